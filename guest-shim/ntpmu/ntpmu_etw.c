/* SPDX-License-Identifier: MIT */
/*
 * NtSetSystemInformation(SystemPerformanceTraceInformation) for the PMC
 * classes (docs/windows-api.md 4.5-4.6), and what the configured counters do:
 * counter lists (0x0F) attach this processor's counter values to the
 * records of the logger's event list (0x0E; CSwitch until one is set);
 * profile configurations (0x0C) sample, each overflow writing a PMC sample
 * record (IP, thread, source).
 *
 * Status precedence for 0x0C and 0x0F (docs/windows-api.md 4.6's order; it
 * leaves 0x0C's rules unconfirmed, so 0x0C follows 0x0F's, per logger, with its
 * own set of sources):
 *   0. SystemInformation NULL                   STATUS_ACCESS_VIOLATION
 *      length below the first ULONG             STATUS_INFO_LENGTH_MISMATCH
 *      other EVENT_TRACE_INFORMATION_CLASS      STATUS_NOT_IMPLEMENTED
 *      length below the 0x10-byte header        STATUS_INFO_LENGTH_MISMATCH
 *      (docs/windows-api.md 8.2: the too-small status is unconfirmed)
 *   1. length - 0x10 not whole ULONGs           STATUS_INVALID_PARAMETER
 *   2. no running logger with that ID, or one another configure call holds
 *                                               STATUS_WMI_INSTANCE_NOT_FOUND
 *   3. the logger does not grant TRACELOG_GUID_ENABLE  STATUS_ACCESS_DENIED
 *   4. no sources, or more than the PMU's GP counters (so any count
 *      without a PMU)                           STATUS_INVALID_PARAMETER
 *   5. EVENT_TRACE_USE_PAGED_MEMORY logger      STATUS_INVALID_PARAMETER
 *   6. ETW_PMC_SUPPORT cannot be allocated      STATUS_NO_MEMORY
 *   7. sources already set on the logger        STATUS_WMI_ALREADY_ENABLED
 *   8. per processor, HalAllocatePmcCounterSets: a source the PMU cannot
 *      produce STATUS_NOT_SUPPORTED (choice; docs/windows-api.md 4.6.8 leaves it open);
 *      otherwise the HAL's answer (HalAllocateHardwareCounters for free
 *      GP counters of that processor, plus its overflow interrupt for a
 *      profile; STATUS_INSUFFICIENT_RESOURCES when they are taken).  A
 *      failure releases what earlier processors got, and the support
 *      structure if this call created it.
 *
 * Status precedence for 0x0E EventTraceProfileEventListInformation (spec
 * 4.4-4.5: "settable once per logger", "requires an NT Kernel Logger
 * session"; the rest mirrors 0x0F's order, as choices):
 *   0. as above; length below the 0x10 header   STATUS_INFO_LENGTH_MISMATCH
 *   1. length - 0x10 not whole ULONGs           STATUS_INVALID_PARAMETER
 *   2. no running logger with that ID (or busy) STATUS_WMI_INSTANCE_NOT_FOUND
 *   3. no TRACELOG_GUID_ENABLE                  STATUS_ACCESS_DENIED
 *   4. not the NT Kernel Logger                 STATUS_INVALID_PARAMETER
 *   5. more than ETW_MAX_PMC_EVENTS (4) hook IDs, or one above 0xFFFF
 *      (ETW_PMC_SUPPORT keeps USHORT HookId[4]) STATUS_INVALID_PARAMETER
 *   6. EVENT_TRACE_USE_PAGED_MEMORY logger      STATUS_INVALID_PARAMETER
 *   7. ETW_PMC_SUPPORT cannot be allocated      STATUS_NO_MEMORY
 *   8. an event list already set                STATUS_WMI_ALREADY_ENABLED
 * Zero hook IDs is a valid list: counters ride on no event.  The list may
 * come before or after the counter list.  Events ntpmu raises, and so can
 * carry counter values: CSwitch (0x0524) and the PMC sample (0x0F2F); any
 * other hook ID is accepted and kept but never raised.
 * (ntpmu_sysinfo.c dispatches NtSetSystemInformation by class.)
 */
#include "ntpmu_etw.h"
#include "x86-pmu/msr.h"

#define ETW_HEADER_BYTES	offsetof(EVENT_TRACE_PROFILE_COUNTER_INFORMATION, ProfileSource)
#define ETW_EVENT_HEADER_BYTES	offsetof(EVENT_TRACE_SYSTEM_EVENT_INFORMATION, HookId)

struct resource_list {
	ULONG Count;
	PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR Descriptors[NTPMU_ETW_MAX_PMC + 1];
};

_Static_assert(offsetof(struct resource_list, Descriptors) ==
	       offsetof(PHYSICAL_COUNTER_RESOURCE_LIST, Descriptors), "resource_list layout");

struct program_args {
	const struct ntpmu_pmc_set *set;
	unsigned int n;
	bool profile;
	bool on;
};

static void overflow_handler(ULONGLONG bits, HANDLE owner);

/* On the processor: start (or stop) the set's counters there. */
static void program_cpu(void *arg)
{
	const struct program_args *a = arg;
	const struct ntpmu_pmc_set *set = a->set;
	unsigned int cpu = ntpmu.ops->cpu_id(ntpmu.ctx), i;
	uint64_t ctrl = 0, bits = 0;

	for (i = 0; i < a->n; i++) {
		unsigned int gp = set->gp[cpu][i];
		uint64_t sel = set->evsel[i] | EVTSEL_USR | EVTSEL_OS | EVTSEL_EN;

		bits |= 1ULL << gp;
		ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_evtsel(gp), 0);
		if (!a->on)
			continue;
		ntpmu_ctr_write(gp, a->profile ? -(int64_t)set->interval[i] : 0);
		ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_evtsel(gp), sel | (a->profile ? EVTSEL_INT : 0));
	}
	if (ntpmu.version < 2)
		return;
	ntpmu.ops->rdmsr(ntpmu.ctx, ntpmu_msr_global_ctrl(), &ctrl);
	ctrl = a->on ? ctrl | bits : ctrl & ~bits;
	ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_global_ctrl(), ctrl);
}

static void program_all(const struct ntpmu_pmc_set *set, unsigned int n, bool profile, bool on)
{
	struct program_args a = { set, n, profile, on };
	unsigned int cpu;

	for (cpu = 0; cpu < ntpmu.nr_cpus; cpu++)
		ntpmu.ops->run_on_cpu(ntpmu.ctx, cpu, program_cpu, &a);
}

static void free_grants(struct ntpmu_pmc_set *set)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NTPMU_MAX_CPUS; cpu++) {
		if (set->hal[cpu])
			HalFreeHardwareCounters(set->hal[cpu]);
		set->hal[cpu] = NULL;
	}
}

void ntpmu_pmc_set_release(struct ntpmu_pmc_set *set)
{
	unsigned int n = set->n;
	unsigned long flags;

	if (!n)
		return;
	flags = ntpmu_lock();
	set->n = 0;
	ntpmu_unlock(flags);
	program_all(set, n, false, false);
	free_grants(set);
}

/* GP counters of `cpu` that no HAL owner and no thread-profiling configuration holds. */
static uint64_t free_gp(unsigned int cpu)
{
	uint64_t gp = ntpmu.present & 0xffffffffULL;
	unsigned long flags = ntpmu_lock();

	gp &= ~ntpmu.cpu[cpu].owned & ~ntpmu.config_bits;
	ntpmu_unlock(flags);
	return gp;
}

/* HalAllocatePmcCounterSets for one processor (docs/windows-api.md 4.6.8). */
static NTSTATUS allocate_cpu(struct ntpmu_pmc_set *set, unsigned int n, bool profile,
			     unsigned int cpu)
{
	struct resource_list rl = { 0 };
	GROUP_AFFINITY ga = { .Mask = (KAFFINITY)1 << cpu };
	uint64_t avail = free_gp(cpu);
	unsigned int i;

	for (i = 0; i < n; i++) {
		int gp;

		if (!avail)
			return STATUS_INSUFFICIENT_RESOURCES;
		gp = __builtin_ctzll(avail);
		avail &= avail - 1;
		set->gp[cpu][i] = (uint8_t)gp;
		rl.Descriptors[rl.Count].Type = ResourceTypeSingle;
		rl.Descriptors[rl.Count++].u.CounterIndex = (ULONG)gp;
	}
	if (profile) {
		rl.Descriptors[rl.Count].Type = ResourceTypeOverflow;
		rl.Descriptors[rl.Count++].u.OverflowHandler = overflow_handler;
	}
	return HalAllocateHardwareCounters(&ga, 1, (PPHYSICAL_COUNTER_RESOURCE_LIST)&rl,
					   &set->hal[cpu]);
}

static NTSTATUS allocate(struct ntpmu_pmc_set *set, const ULONG *src, unsigned int n,
			 bool profile)
{
	unsigned int i, cpu;
	NTSTATUS st;

	for (i = 0; i < n; i++) {
		const struct ntpmu_source *s = ntpmu_source_find(src[i]);

		if (!s)
			return STATUS_NOT_SUPPORTED;
		set->source[i] = src[i];
		set->evsel[i] = ntpmu_event_select(s->event);
		set->interval[i] = ntpmu_source_interval(src[i]);
	}
	for (cpu = 0; cpu < ntpmu.nr_cpus; cpu++) {
		st = allocate_cpu(set, n, profile, cpu);
		if (st != STATUS_SUCCESS) {
			free_grants(set);
			return st;
		}
	}
	return STATUS_SUCCESS;
}

/* Rules 2-3 under the lock: the logger, held exclusively until release(). */
static NTSTATUS acquire(TRACEHANDLE h, struct ntpmu_logger **out)
{
	struct ntpmu_logger *lg;
	unsigned long flags = ntpmu_lock();
	NTSTATUS st = STATUS_SUCCESS;

	lg = ntpmu_logger_find(h);
	if (!lg || lg->busy)
		st = STATUS_WMI_INSTANCE_NOT_FOUND;
	else if (!(lg->access & TRACELOG_GUID_ENABLE))
		st = STATUS_ACCESS_DENIED;
	else
		lg->busy = true;
	ntpmu_unlock(flags);
	*out = lg;
	return st;
}

static void release(struct ntpmu_logger *lg)
{
	unsigned long flags = ntpmu_lock();

	lg->busy = false;
	ntpmu_unlock(flags);
}

static NTSTATUS configure(struct ntpmu_logger *lg, const ULONG *src, unsigned int n,
			  bool profile)
{
	struct ntpmu_pmc_support *created = NULL;
	struct ntpmu_pmc_set *set;
	unsigned long flags;
	NTSTATUS st;

	if (n == 0 || n > ntpmu_etw_max_counters())
		return STATUS_INVALID_PARAMETER;
	if (lg->mode & EVENT_TRACE_USE_PAGED_MEMORY)
		return STATUS_INVALID_PARAMETER;
	if (!lg->pmc) {
		created = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*created));
		if (!created)
			return STATUS_NO_MEMORY;
		flags = ntpmu_lock();
		lg->pmc = created;
		ntpmu_unlock(flags);
	}
	/* The logger is ours alone (acquire()): no other call sets `set` meanwhile. */
	set = profile ? &lg->pmc->profile : &lg->pmc->list;
	if (set->n)
		return STATUS_WMI_ALREADY_ENABLED;

	st = allocate(set, src, n, profile);
	if (st != STATUS_SUCCESS) {
		if (created) {
			flags = ntpmu_lock();
			lg->pmc = NULL;
			ntpmu_unlock(flags);
			ntpmu.ops->free(ntpmu.ctx, created);
		}
		return st;
	}
	/* Counting first, then visible to the switch hook and the PMI. */
	program_all(set, n, profile, true);
	flags = ntpmu_lock();
	set->n = n;
	ntpmu_unlock(flags);
	return STATUS_SUCCESS;
}

static NTSTATUS set_pmc_sources(const EVENT_TRACE_PROFILE_COUNTER_INFORMATION *info, ULONG len,
				bool profile)
{
	struct ntpmu_logger *lg;
	ULONG src[NTPMU_ETW_MAX_PMC];
	TRACEHANDLE h;
	unsigned int n, i;
	NTSTATUS st;

	if (len < ETW_HEADER_BYTES)
		return STATUS_INFO_LENGTH_MISMATCH;
	if ((len - ETW_HEADER_BYTES) % sizeof(ULONG))
		return STATUS_INVALID_PARAMETER;
	n = (len - ETW_HEADER_BYTES) / sizeof(ULONG);
	__builtin_memcpy(&h, &info->TraceHandle, sizeof(h));
	st = acquire(h, &lg);
	if (st != STATUS_SUCCESS)
		return st;
	/* Copied once: the caller's buffer may change under us. */
	for (i = 0; i < n && i < NTPMU_ETW_MAX_PMC; i++)
		__builtin_memcpy(&src[i], &info->ProfileSource[i], sizeof(ULONG));
	st = configure(lg, src, n, profile);
	release(lg);
	return st;
}

/* Rules 4-8 of 0x0E on the logger acquire() holds; `hook` is the caller's. */
static NTSTATUS configure_events(struct ntpmu_logger *lg, const ULONG *hook, unsigned int n)
{
	USHORT ids[ETW_MAX_PMC_EVENTS];
	unsigned long flags;
	unsigned int i;

	if (lg->id != KERNEL_LOGGER_ID)
		return STATUS_INVALID_PARAMETER;
	if (n > ETW_MAX_PMC_EVENTS)
		return STATUS_INVALID_PARAMETER;
	/* Copied once: the caller's buffer may change under us. */
	for (i = 0; i < n; i++) {
		ULONG id;

		__builtin_memcpy(&id, &hook[i], sizeof(id));
		if (id > 0xFFFF)
			return STATUS_INVALID_PARAMETER;
		ids[i] = (USHORT)id;
	}
	if (lg->mode & EVENT_TRACE_USE_PAGED_MEMORY)
		return STATUS_INVALID_PARAMETER;
	if (!lg->pmc) {
		struct ntpmu_pmc_support *created = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*created));

		if (!created)
			return STATUS_NO_MEMORY;
		flags = ntpmu_lock();
		lg->pmc = created;
		ntpmu_unlock(flags);
	}
	if (lg->pmc->events_set)
		return STATUS_WMI_ALREADY_ENABLED;
	flags = ntpmu_lock();
	for (i = 0; i < n; i++)
		lg->pmc->hook[i] = ids[i];
	lg->pmc->nhooks = n;
	lg->pmc->events_set = true;
	ntpmu_unlock(flags);
	return STATUS_SUCCESS;
}

static NTSTATUS set_event_list(const EVENT_TRACE_SYSTEM_EVENT_INFORMATION *info, ULONG len)
{
	struct ntpmu_logger *lg;
	TRACEHANDLE h;
	NTSTATUS st;

	if (len < ETW_EVENT_HEADER_BYTES)
		return STATUS_INFO_LENGTH_MISMATCH;
	if ((len - ETW_EVENT_HEADER_BYTES) % sizeof(ULONG))
		return STATUS_INVALID_PARAMETER;
	__builtin_memcpy(&h, &info->TraceHandle, sizeof(h));
	st = acquire(h, &lg);
	if (st != STATUS_SUCCESS)
		return st;
	st = configure_events(lg, info->HookId, (len - ETW_EVENT_HEADER_BYTES) / sizeof(ULONG));
	release(lg);
	return st;
}

NTSTATUS ntpmu_etw_set_information(PVOID SystemInformation, ULONG SystemInformationLength)
{
	ULONG cls;

	if (!SystemInformation)
		return STATUS_ACCESS_VIOLATION;
	if (SystemInformationLength < sizeof(ULONG))
		return STATUS_INFO_LENGTH_MISMATCH;
	__builtin_memcpy(&cls, SystemInformation, sizeof(cls));
	switch (cls) {
	case EventTraceProfileConfigInformation:
		return set_pmc_sources(SystemInformation, SystemInformationLength, true);
	case EventTraceProfileCounterListInformation:
		return set_pmc_sources(SystemInformation, SystemInformationLength, false);
	case EventTraceProfileEventListInformation:
		return set_event_list(SystemInformation, SystemInformationLength);
	default:
		return STATUS_NOT_IMPLEMENTED;
	}
}

static uint64_t read_gp(unsigned int gp)
{
	uint64_t v = 0;

	ntpmu.ops->rdmsr(ntpmu.ctx, ntpmu_msr_ctr(gp), &v);
	return v;
}

/*
 * The counter list's raw values on this processor if the logger's events
 * carry them on `hook` (0x0E's list, CSwitch until one is set); the count.
 * Under the lock.
 */
static unsigned int list_values(const struct ntpmu_logger *lg, unsigned int cpu, USHORT hook,
				uint64_t *vals)
{
	const struct ntpmu_pmc_support *pmc = lg->pmc;
	bool on = !pmc->events_set && hook == PERFINFO_LOG_TYPE_CONTEXTSWAP;
	unsigned int i;

	for (i = 0; pmc->events_set && i < pmc->nhooks; i++)
		on |= pmc->hook[i] == hook;
	if (!on)
		return 0;
	for (i = 0; i < pmc->list.n; i++)
		vals[i] = read_gp(pmc->list.gp[cpu][i]);
	return pmc->list.n;
}

/*
 * Every running logger with a counter list gets a CSwitch record, carrying
 * this processor's raw counter values at the switch when its event list
 * names CSwitch.
 */
void ntpmu_etw_context_switch(void *prev, void *next)
{
	unsigned int cpu, l;
	unsigned long flags;

	if (!ntpmu.ops)
		return;
	cpu = ntpmu.ops->cpu_id(ntpmu.ctx);
	flags = ntpmu_lock();
	for (l = 0; l < NTPMU_MAX_LOGGERS; l++) {
		struct ntpmu_logger *lg = &ntpmu_loggers[l];
		uint64_t vals[NTPMU_ETW_MAX_PMC];
		unsigned int n;
		NTPMU_CSWITCH cs;

		if (!lg->active || !lg->pmc || !lg->pmc->list.n)
			continue;
		n = list_values(lg, cpu, PERFINFO_LOG_TYPE_CONTEXTSWAP, vals);
		cs = (NTPMU_CSWITCH){
			.NewThreadId = ntpmu_thread_id(next),
			.OldThreadId = ntpmu_thread_id(prev),
			.OldThreadWaitReason = prev ? ntpmu.ops->thread_wait_reason(ntpmu.ctx, prev)
						    : -1,
		};
		ntpmu_logger_write(lg, PERFINFO_LOG_TYPE_CONTEXTSWAP, &cs, sizeof(cs), vals, n);
	}
	ntpmu_unlock(flags);
}

/*
 * The HAL's overflow callback (PMI): one sample per overflowed counter of
 * the profile that owns this processor's overflow interrupt (with the
 * counter list's values when the event list names 0x0F2F), then the
 * counter restarts at -interval.
 */
static void overflow_handler(ULONGLONG bits, HANDLE owner)
{
	unsigned int cpu = ntpmu.ops->cpu_id(ntpmu.ctx), i, l;
	uint64_t ip = ntpmu.ops->pmi_ip ? ntpmu.ops->pmi_ip(ntpmu.ctx) : 0;
	unsigned long flags = ntpmu_lock();

	for (l = 0; l < NTPMU_MAX_LOGGERS; l++) {
		struct ntpmu_logger *lg = &ntpmu_loggers[l];
		struct ntpmu_pmc_set *set;

		if (!lg->active || !lg->pmc || lg->pmc->profile.hal[cpu] != owner)
			continue;
		set = &lg->pmc->profile;
		for (i = 0; i < set->n; i++) {
			unsigned int gp = set->gp[cpu][i];
			PERFINFO_PMC_SAMPLE_INFORMATION s;
			uint64_t vals[NTPMU_ETW_MAX_PMC];
			unsigned int nv;

			if (!(bits >> gp & 1))
				continue;
			nv = list_values(lg, cpu, PERFINFO_LOG_TYPE_PMC_INTERRUPT, vals);
			s = (PERFINFO_PMC_SAMPLE_INFORMATION){
				.InstructionPointer = (PVOID)(uintptr_t)ip,
				.ThreadId = ntpmu_thread_id(ntpmu.ops->current_thread(ntpmu.ctx)),
				.ProfileSource = (USHORT)set->source[i],
			};
			ntpmu_logger_write(lg, PERFINFO_LOG_TYPE_PMC_INTERRUPT, &s, sizeof(s),
					   vals, nv);
			ntpmu_ctr_write(gp, -(int64_t)set->interval[i]);
		}
	}
	ntpmu_unlock(flags);
}
