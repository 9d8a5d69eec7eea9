/* SPDX-License-Identifier: MIT */
/*
 * HalAllocateHardwareCounters / HalFreeHardwareCounters: counter arbitration
 * between drivers and thread profiling (docs/windows-api.md 2.2-2.5), and the PMI dispatch
 * to overflow handlers.
 *
 * A grant is a set of processors (group 0) times a set of counters, plus
 * optionally the overflow interrupt of those processors.  Grants must not
 * overlap on any processor, nor take a counter of the thread-profiling
 * configuration; a conflict is STATUS_INSUFFICIENT_RESOURCES and leaves no
 * trace (everything is checked before anything is committed).
 *
 * Status precedence of the allocate call:
 *   1. CounterSetHandle NULL                     STATUS_INVALID_PARAMETER
 *      (from here on *CounterSetHandle is NULL unless we succeed)
 *   2. GroupAffinty NULL iff GroupCount 0, else  STATUS_INVALID_PARAMETER
 *   3. both GroupAffinty and ResourceList NULL: the whole PMU of every
 *      processor, a full-PMU handle in [0x80000000, 0xBFFFFFFF]; taken
 *      anywhere -> STATUS_INSUFFICIENT_RESOURCES (docs/windows-api.md 2.4; this path does
 *      not need a PMU, as on Windows)
 *   4. no processor of group 0 in the affinity   STATUS_INVALID_PARAMETER
 *   5. no architectural PMU (the HAL's "Default" profile interface has no
 *      allocate routine)                          STATUS_INSUFFICIENT_RESOURCES
 *   6. ResourceList NULL: the whole PMU of the affinity's processors;
 *      else each descriptor in order:
 *      Flags != 0, Count == 0, a counter that does not exist, Begin > End,
 *      a range across GP and fixed, a NULL or second overflow handler, a type
 *      >= ResourceTypeMax                        STATUS_INVALID_PARAMETER
 *      ExtendedCounterConfiguration (always, docs/windows-api.md 2.2), Overflow on a
 *      version 1 PMU (no global status to tell which counter overflowed),
 *      EventBuffer without PEBS                 STATUS_NOT_SUPPORTED
 *      EventBuffer: its own checks, ntpmu_evbuf.c
 *      IdentificationTag: accepted and kept
 *   7. out of memory, conflict                   STATUS_INSUFFICIENT_RESOURCES
 */
#include "ntpmu_internal.h"
#include "x86-pmu/msr.h"

struct ntpmu_request {
	uint64_t cpus;
	uint64_t counters;
	bool overflow;
	PPHYSICAL_COUNTER_OVERFLOW_HANDLER handler;
	ULONG tag;
	bool evbuf;
	PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION eb;
};

static NTSTATUS parse_range(ULONG begin, ULONG end, uint64_t *counters)
{
	ULONG i;

	if (begin > end || ((begin ^ end) & NTPMU_RDPMC_FIXED) || end - begin > 31)
		return STATUS_INVALID_PARAMETER;
	for (i = begin; i <= end; i++) {
		int bit = ntpmu_counter_bit(i);

		if (bit < 0)
			return STATUS_INVALID_PARAMETER;
		*counters |= 1ULL << bit;
	}
	return STATUS_SUCCESS;
}

static NTSTATUS parse_descriptor(const PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR *d,
				 struct ntpmu_request *req)
{
	if (d->Flags)
		return STATUS_INVALID_PARAMETER;
	switch (d->Type) {
	case ResourceTypeSingle:
		return parse_range(d->u.CounterIndex, d->u.CounterIndex, &req->counters);
	case ResourceTypeRange:
		return parse_range(d->u.Range.Begin, d->u.Range.End, &req->counters);
	case ResourceTypeExtendedCounterConfiguration:
		return STATUS_NOT_SUPPORTED;
	case ResourceTypeEventBuffer:
		req->eb = d->u.EventBufferConfiguration;
		return ntpmu_evbuf_parse(&req->eb, &req->evbuf);
	case ResourceTypeOverflow:
		if (!d->u.OverflowHandler || req->overflow)
			return STATUS_INVALID_PARAMETER;
		if (ntpmu.version < 2)
			return STATUS_NOT_SUPPORTED;
		req->overflow = true;
		req->handler = d->u.OverflowHandler;
		return STATUS_SUCCESS;
	case ResourceTypeIdenitificationTag:
		req->tag = d->u.IdentificationTag;
		return STATUS_SUCCESS;
	default:
		return STATUS_INVALID_PARAMETER;
	}
}

static NTSTATUS parse_list(const PHYSICAL_COUNTER_RESOURCE_LIST *list, struct ntpmu_request *req)
{
	NTSTATUS st;
	ULONG i;

	if (!list) {
		req->counters = ntpmu.present;
		req->overflow = true;
		return STATUS_SUCCESS;
	}
	if (!list->Count)
		return STATUS_INVALID_PARAMETER;
	for (i = 0; i < list->Count; i++) {
		st = parse_descriptor(&list->Descriptors[i], req);
		if (st != STATUS_SUCCESS)
			return st;
	}
	return STATUS_SUCCESS;
}

static bool conflicts(const struct ntpmu_request *req)
{
	unsigned int c;

	if (req->counters & ntpmu.config_bits)
		return true;
	for (c = 0; c < ntpmu.nr_cpus; c++) {
		const struct ntpmu_cpu_state *cs = &ntpmu.cpu[c];

		if (!(req->cpus >> c & 1))
			continue;
		if ((cs->owned & req->counters) || (req->overflow && cs->ovf_taken) ||
		    (req->evbuf && ntpmu_evbuf_conflicts(cs)))
			return true;
	}
	return false;
}

static void commit(struct ntpmu_owner *o)
{
	unsigned int c;

	for (c = 0; c < ntpmu.nr_cpus; c++) {
		struct ntpmu_cpu_state *cs = &ntpmu.cpu[c];

		if (!(o->cpus >> c & 1))
			continue;
		cs->owned |= o->counters;
		if (o->overflow) {
			cs->ovf_handle = o->handle;
			cs->ovf_counters = o->counters;
			__atomic_store_n(&cs->ovf_handler, o->handler, __ATOMIC_RELEASE);
			cs->ovf_taken = true;
		}
		if (o->evbuf)
			__atomic_store_n(&cs->eb_owner, o, __ATOMIC_RELEASE);
	}
	o->next = ntpmu.owners;
	ntpmu.owners = o;
}

static void release(struct ntpmu_owner *o)
{
	unsigned int c;

	for (c = 0; c < ntpmu.nr_cpus; c++) {
		struct ntpmu_cpu_state *cs = &ntpmu.cpu[c];

		if (!(o->cpus >> c & 1))
			continue;
		cs->owned &= ~o->counters;
		if (o->overflow) {
			__atomic_store_n(&cs->ovf_handler, NULL, __ATOMIC_RELEASE);
			cs->ovf_taken = false;
		}
		if (o->evbuf)
			__atomic_store_n(&cs->eb_owner, NULL, __ATOMIC_RELEASE);
	}
}

static HANDLE next_full_handle(void)
{
	if (++ntpmu.full_handle >= NTPMU_FULL_HANDLE_END)
		ntpmu.full_handle = NTPMU_FULL_HANDLE_FIRST;
	return (HANDLE)(ULONG_PTR)ntpmu.full_handle;
}

static uint64_t affinity_cpus(const GROUP_AFFINITY *ga, ULONG count)
{
	uint64_t cpus = 0;
	ULONG i;

	if (!ga)
		return ntpmu.all_cpus;
	for (i = 0; i < count; i++)
		if (ga[i].Group == 0)
			cpus |= ga[i].Mask;
	return cpus & ntpmu.all_cpus;
}

NTSTATUS NTAPI HalAllocateHardwareCounters(PGROUP_AFFINITY GroupAffinty, ULONG GroupCount,
					   PPHYSICAL_COUNTER_RESOURCE_LIST ResourceList,
					   PHANDLE CounterSetHandle)
{
	struct ntpmu_request req = { 0 };
	struct ntpmu_owner *o;
	bool full = !GroupAffinty && !ResourceList;
	unsigned long flags;
	NTSTATUS st;

	if (!CounterSetHandle)
		return STATUS_INVALID_PARAMETER;
	*CounterSetHandle = NULL;
	if (!GroupAffinty != !GroupCount)
		return STATUS_INVALID_PARAMETER;
	req.cpus = affinity_cpus(GroupAffinty, GroupCount);
	if (!full) {
		if (!req.cpus)
			return STATUS_INVALID_PARAMETER;
		if (!ntpmu.version)
			return STATUS_INSUFFICIENT_RESOURCES;
	}
	st = parse_list(ResourceList, &req);
	if (st != STATUS_SUCCESS)
		return st;

	o = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*o));
	if (!o)
		return STATUS_INSUFFICIENT_RESOURCES;
	o->cpus = req.cpus;
	o->counters = req.counters;
	o->overflow = req.overflow;
	o->handler = req.handler;
	o->tag = req.tag;
	o->evbuf = req.evbuf;
	o->eb = req.eb;
	if (o->evbuf && ntpmu_evbuf_alloc(o)) {
		ntpmu.ops->free(ntpmu.ctx, o);
		return STATUS_INSUFFICIENT_RESOURCES;
	}

	flags = ntpmu_lock();
	if (conflicts(&req)) {
		ntpmu_unlock(flags);
		ntpmu_evbuf_free(o);
		ntpmu.ops->free(ntpmu.ctx, o);
		return STATUS_INSUFFICIENT_RESOURCES;
	}
	o->handle = full ? next_full_handle() : (HANDLE)o;
	commit(o);
	*CounterSetHandle = o->handle;
	ntpmu_unlock(flags);
	if (o->evbuf)
		ntpmu_evbuf_install(o);
	return STATUS_SUCCESS;
}

/* NULL, (HANDLE)-1 and anything we did not hand out: STATUS_INVALID_PARAMETER. */
NTSTATUS NTAPI HalFreeHardwareCounters(HANDLE CounterSetHandle)
{
	struct ntpmu_owner **pp, *o = NULL;
	unsigned long flags;

	if (!CounterSetHandle || CounterSetHandle == (HANDLE)(LONG_PTR)-1)
		return STATUS_INVALID_PARAMETER;
	flags = ntpmu_lock();
	for (pp = &ntpmu.owners; *pp; pp = &(*pp)->next) {
		if ((*pp)->handle == CounterSetHandle) {
			o = *pp;
			*pp = o->next;
			release(o);
			break;
		}
	}
	ntpmu_unlock(flags);
	if (!o)
		return STATUS_INVALID_PARAMETER;
	if (o->evbuf)
		ntpmu_evbuf_remove(o);
	ntpmu.ops->free(ntpmu.ctx, o);
	return STATUS_SUCCESS;
}

uint64_t ntpmu_hal_owned_any(void)
{
	uint64_t owned = 0;
	unsigned int c;

	for (c = 0; c < ntpmu.nr_cpus; c++)
		owned |= ntpmu.cpu[c].owned;
	return owned;
}

void ntpmu_hal_reset(void)
{
	while (ntpmu.owners) {
		struct ntpmu_owner *o = ntpmu.owners;

		ntpmu.owners = o->next;
		release(o);
		ntpmu_evbuf_free(o);
		ntpmu.ops->free(ntpmu.ctx, o);
	}
}

/*
 * The HAL clears the overflow state itself and the handler gets the bitmap
 * of its counters that overflowed (docs/windows-api.md 2.2).  Runs in the PMI without the
 * lock; the handler fields are published with release stores.  The LVT
 * mask-on-delivery is the platform's to undo after this returns.
 */
uint64_t ntpmu_pmi(void)
{
	struct ntpmu_cpu_state *cs;
	PPHYSICAL_COUNTER_OVERFLOW_HANDLER fn;
	uint64_t status = 0, mine;

	if (ntpmu.version < 2)
		return 0;
	cs = &ntpmu.cpu[ntpmu.ops->cpu_id(ntpmu.ctx)];
	if (ntpmu.ops->rdmsr(ntpmu.ctx, ntpmu_msr_global_status(), &status) || !status)
		return 0;
	fn = __atomic_load_n(&cs->ovf_handler, __ATOMIC_ACQUIRE);
	mine = status & cs->ovf_counters;
	if (fn && mine)
		fn(mine, cs->ovf_handle);
	ntpmu_evbuf_pmi(cs, status);
	if (ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_status_clear(), status))
		ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_status_clear(), status & ntpmu.present);
	return status;
}
