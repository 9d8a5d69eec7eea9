/* SPDX-License-Identifier: MIT */
/*
 * Perflib V2 consumer API (docs/windows-api.md 6) over one counterset:
 * NTPMU_PERF_COUNTERSET_GUID, multi-instance, one instance per processor,
 * one counter per architectural event the PMU can produce (at most one per
 * GP counter, the first ones in CPUID.0AH:EBX order).  Without an
 * architectural PMU the counterset is not registered.
 *
 * Counting: while a query is open the provider holds one GP counter per
 * counter of the set on every processor (HalAllocateHardwareCounters, so
 * ETW and drivers see them taken) and a value is the event count on that
 * processor since the first query opened.  The last close releases them.
 *
 * Statuses (docs/windows-api.md 6.4 leaves all but the sizing protocol open; choices):
 *   call level: unknown query handle ERROR_INVALID_HANDLE; NULL phQuery,
 *   NULL size output, a NULL buffer with a non-zero size, a malformed block
 *   sequence (ntpmu_perf_blocks_check) ERROR_INVALID_PARAMETER; a machine
 *   name other than NULL or u"" ERROR_NOT_SUPPORTED; buffer too small
 *   ERROR_NOT_ENOUGH_MEMORY with the size needed (docs/windows-api.md 6.1); counters taken
 *   ERROR_NO_SYSTEM_RESOURCES; unknown counterset for the instance
 *   enumeration ERROR_WMI_GUID_NOT_FOUND.
 *   per block of PerfAddCounters, in order: the block's own fields
 *   (ntpmu_perf_block_parse) ERROR_INVALID_PARAMETER; unknown counterset
 *   ERROR_WMI_GUID_NOT_FOUND (as Wine); no instance name for this
 *   multi-instance set ERROR_INVALID_PARAMETER (docs/windows-api.md 6.4); a counter ID the
 *   set lacks ERROR_NOT_FOUND; the same spec already in the query
 *   ERROR_ALREADY_EXISTS; out of memory ERROR_NOT_ENOUGH_MEMORY.
 *   PerfDeleteCounters: the block's fields, then ERROR_NOT_FOUND unless an
 *   identical spec (set, counter, instance ID, name) is in the query.
 *   Instance names match exactly or by PERF_WILDCARD_INSTANCE (the only
 *   wildcard); a spec whose instance is gone gives a PERF_ERROR_RETURN
 *   header with ERROR_WMI_INSTANCE_NOT_FOUND in PerfQueryCounterData.
 * PERF_DATA_HEADER clocks (ntpmu_clock.c): PerfTimeStamp is the TSC,
 * PerfFreq its frequency from CPUID 15H, the platform or 16H (0 if
 * unknown); with no calendar clock in the guest, PerfTime100NSec is that
 * TSC in 100-ns units (time since the TSC's zero, from the FILETIME epoch)
 * and SystemTime the same instant (1601-01-01 plus that time); both 0
 * when PerfFreq is 0.
 * The open-query list is under the ntpmu lock; a query handle is used by
 * one thread at a time, and the first open and last close are not made
 * concurrently with other Perflib calls (they start and stop the counters).
 */
#include "ntpmu_internal.h"
#include "ntpmu_clock.h"
#include "ntpmu_etw.h"
#include "ntpmu_perf_blocks.h"
#include "nt/perflib.h"
#include "x86-pmu/events.h"
#include "x86-pmu/msr.h"

#define PERF_NO_INSTANCE_ID	0xFFFFFFFFu
#define PERF_MAX_SET_COUNTERS	PMU_EV_ARCH_NR

static const GUID set_guid = NTPMU_PERF_COUNTERSET_GUID;

struct perf_spec {
	struct perf_spec *next;
	GUID guid;
	ULONG counter, instance;
	bool has_name;
	size_t name_len;
	WCHAR name[];			/* name_len units and a NUL */
};

struct perf_query {
	struct perf_query *next;
	struct perf_spec *specs;	/* in Index order */
};

static struct {
	struct perf_query *queries;
	HANDLE hal;			/* the counters, while a query is open */
	unsigned int n;			/* counters of the set being counted */
	ULONG ids[PERF_MAX_SET_COUNTERS];
	uint8_t gp[PERF_MAX_SET_COUNTERS];	/* same GP counter on every processor */
} prov;

/* The set's counter IDs (architectural events); 0 without a PMU. */
static unsigned int set_counters(ULONG ids[PERF_MAX_SET_COUNTERS])
{
	unsigned int n = 0, e;

	for (e = 0; e < PMU_EV_ARCH_NR && n < ntpmu.nr_gp; e++)
		if (ntpmu_event_available(e))
			ids[n++] = e;
	return n;
}

static bool guid_eq(const GUID *a, const GUID *b)
{
	return __builtin_memcmp(a, b, sizeof(*a)) == 0;
}

static bool machine_ok(LPCWSTR m)
{
	return !m || !m[0];
}

/* Decimal processor number as UTF-16, NUL-terminated; its length. */
static size_t instance_name(unsigned int cpu, WCHAR name[4])
{
	char d[4];
	size_t n = 0, i;

	do {
		d[n++] = (char)('0' + cpu % 10);
		cpu /= 10;
	} while (cpu);
	for (i = 0; i < n; i++)
		name[i] = (WCHAR)d[n - 1 - i];
	name[n] = 0;
	return n;
}

/* ---- the provider's counters ------------------------------------------------ */

struct prog {
	bool on;
};

static void program_cpu(void *arg)
{
	const struct prog *pg = arg;
	uint64_t ctrl = 0, bits = 0;
	unsigned int i;

	for (i = 0; i < prov.n; i++) {
		unsigned int gp = prov.gp[i];

		bits |= 1ULL << gp;
		ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_evtsel(gp), 0);
		if (!pg->on)
			continue;
		ntpmu_ctr_write(gp, 0);
		ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_evtsel(gp), ntpmu_event_select(prov.ids[i]) |
				 EVTSEL_USR | EVTSEL_OS | EVTSEL_EN);
	}
	if (ntpmu.version < 2)
		return;
	ntpmu.ops->rdmsr(ntpmu.ctx, ntpmu_msr_global_ctrl(), &ctrl);
	ctrl = pg->on ? ctrl | bits : ctrl & ~bits;
	ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_global_ctrl(), ctrl);
}

static void program_all(bool on)
{
	struct prog pg = { on };
	unsigned int cpu;

	for (cpu = 0; cpu < ntpmu.nr_cpus; cpu++)
		ntpmu.ops->run_on_cpu(ntpmu.ctx, cpu, program_cpu, &pg);
}

/* GP counters free on every processor. */
static uint64_t free_everywhere(void)
{
	uint64_t gp = ntpmu.present & 0xffffffffULL;
	unsigned long flags = ntpmu_lock();
	unsigned int cpu;

	for (cpu = 0; cpu < ntpmu.nr_cpus; cpu++)
		gp &= ~ntpmu.cpu[cpu].owned;
	gp &= ~ntpmu.config_bits;
	ntpmu_unlock(flags);
	return gp;
}

static ULONG provider_start(void)
{
	struct {
		ULONG Count;
		PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR Descriptors[PERF_MAX_SET_COUNTERS];
	} rl = { 0 };
	uint64_t avail;
	unsigned int n, i;
	NTSTATUS st;

	n = set_counters(prov.ids);
	if (!n)
		return ERROR_SUCCESS;
	avail = free_everywhere();
	for (i = 0; i < n; i++) {
		if (!avail)
			return ERROR_NO_SYSTEM_RESOURCES;
		prov.gp[i] = (uint8_t)__builtin_ctzll(avail);
		avail &= avail - 1;
		rl.Descriptors[i].Type = ResourceTypeSingle;
		rl.Descriptors[i].u.CounterIndex = prov.gp[i];
	}
	rl.Count = n;
	st = HalAllocateHardwareCounters(NULL, 0, (PPHYSICAL_COUNTER_RESOURCE_LIST)&rl, &prov.hal);
	if (st != STATUS_SUCCESS)
		return RtlNtStatusToDosError(st);
	prov.n = n;
	program_all(true);
	return ERROR_SUCCESS;
}

static void provider_stop(void)
{
	if (!prov.hal)
		return;
	program_all(false);
	HalFreeHardwareCounters(prov.hal);
	prov.hal = NULL;
	prov.n = 0;
}

struct snapshot {
	uint64_t v[NTPMU_MAX_CPUS][PERF_MAX_SET_COUNTERS];
};

static void read_cpu(void *arg)
{
	struct snapshot *s = arg;
	unsigned int cpu = ntpmu.ops->cpu_id(ntpmu.ctx), i;

	for (i = 0; i < prov.n; i++)
		ntpmu.ops->rdmsr(ntpmu.ctx, ntpmu_msr_ctr(prov.gp[i]), &s->v[cpu][i]);
}

/* ---- queries ------------------------------------------------------------------ */

static struct perf_query *query_find(HANDLE h)
{
	struct perf_query *q;

	for (q = prov.queries; q; q = q->next)
		if (q == h)
			return q;
	return NULL;
}

ULONG WINAPI PerfOpenQueryHandle(LPCWSTR szMachine, HANDLE *phQuery)
{
	struct perf_query *q;
	unsigned long flags;
	ULONG err = ERROR_SUCCESS;

	if (!phQuery)
		return ERROR_INVALID_PARAMETER;
	*phQuery = NULL;
	if (!machine_ok(szMachine))
		return ERROR_NOT_SUPPORTED;
	q = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*q));
	if (!q)
		return ERROR_NOT_ENOUGH_MEMORY;
	if (!prov.queries)
		err = provider_start();
	if (err != ERROR_SUCCESS) {
		ntpmu.ops->free(ntpmu.ctx, q);
		return err;
	}
	flags = ntpmu_lock();
	q->next = prov.queries;
	prov.queries = q;
	ntpmu_unlock(flags);
	*phQuery = q;
	return ERROR_SUCCESS;
}

static void free_specs(struct perf_query *q)
{
	while (q->specs) {
		struct perf_spec *s = q->specs;

		q->specs = s->next;
		ntpmu.ops->free(ntpmu.ctx, s);
	}
}

ULONG WINAPI PerfCloseQueryHandle(HANDLE hQuery)
{
	struct perf_query **pp, *q = NULL;
	unsigned long flags = ntpmu_lock();

	for (pp = &prov.queries; *pp; pp = &(*pp)->next) {
		if (*pp == hQuery) {
			q = *pp;
			*pp = q->next;
			break;
		}
	}
	ntpmu_unlock(flags);
	if (!q)
		return ERROR_INVALID_HANDLE;
	free_specs(q);
	ntpmu.ops->free(ntpmu.ctx, q);
	if (!prov.queries)
		provider_stop();
	return ERROR_SUCCESS;
}

static bool spec_same(const struct perf_spec *s, const struct ntpmu_perf_block *b)
{
	const PERF_COUNTER_IDENTIFIER *id = b->id;

	return guid_eq(&s->guid, &id->CounterSetGuid) && s->counter == id->CounterId &&
	       s->instance == id->InstanceId && s->has_name == (b->name != NULL) &&
	       s->name_len == b->name_len &&
	       (!b->name || !__builtin_memcmp(s->name, b->name, b->name_len * sizeof(WCHAR)));
}

static ULONG add_one(struct perf_query *q, const struct ntpmu_perf_block *b)
{
	const PERF_COUNTER_IDENTIFIER *id = b->id;
	ULONG ids[PERF_MAX_SET_COUNTERS];
	unsigned int n = set_counters(ids), i;
	struct perf_spec *s, **tail;
	bool known = id->CounterId == PERF_WILDCARD_COUNTER;

	if (!n || !guid_eq(&id->CounterSetGuid, &set_guid))
		return ERROR_WMI_GUID_NOT_FOUND;
	if (!b->name)
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < n; i++)
		known |= ids[i] == id->CounterId;
	if (!known)
		return ERROR_NOT_FOUND;
	for (tail = &q->specs; *tail; tail = &(*tail)->next)
		if (spec_same(*tail, b))
			return ERROR_ALREADY_EXISTS;
	s = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*s) + (b->name_len + 1) * sizeof(WCHAR));
	if (!s)
		return ERROR_NOT_ENOUGH_MEMORY;
	s->guid = id->CounterSetGuid;
	s->counter = id->CounterId;
	s->instance = id->InstanceId;
	s->has_name = true;
	s->name_len = b->name_len;
	__builtin_memcpy(s->name, b->name, b->name_len * sizeof(WCHAR));
	*tail = s;
	return ERROR_SUCCESS;
}

static ULONG delete_one(struct perf_query *q, const struct ntpmu_perf_block *b)
{
	struct perf_spec **pp;

	for (pp = &q->specs; *pp; pp = &(*pp)->next) {
		if (spec_same(*pp, b)) {
			struct perf_spec *s = *pp;

			*pp = s->next;
			ntpmu.ops->free(ntpmu.ctx, s);
			return ERROR_SUCCESS;
		}
	}
	return ERROR_NOT_FOUND;
}

/* Check the whole sequence, then act on each block and write its Status. */
static ULONG for_each_block(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER p, DWORD cb,
			    ULONG (*fn)(struct perf_query *, const struct ntpmu_perf_block *))
{
	struct perf_query *q = query_find(hQuery);
	unsigned int n, i;
	ULONG err;

	if (!q)
		return ERROR_INVALID_HANDLE;
	err = ntpmu_perf_blocks_check(p, cb, &n);
	if (err != ERROR_SUCCESS)
		return err;
	for (i = 0; i < n; i++, p = ntpmu_perf_block_next(p)) {
		struct ntpmu_perf_block b;

		err = ntpmu_perf_block_parse(p, &b);
		if (err == ERROR_SUCCESS)
			err = fn(q, &b);
		p->Status = err;
	}
	return ERROR_SUCCESS;
}

ULONG WINAPI PerfAddCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters)
{
	return for_each_block(hQuery, pCounters, cbCounters, add_one);
}

ULONG WINAPI PerfDeleteCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters,
				DWORD cbCounters)
{
	return for_each_block(hQuery, pCounters, cbCounters, delete_one);
}

/* ---- output ------------------------------------------------------------------- */

/* Appends to buf while it fits; off counts every byte asked for. */
struct out {
	uint8_t *buf;
	size_t cap, off;
};

static void put(struct out *o, const void *p, size_t len)
{
	if (o->buf && o->off + len <= o->cap && len)
		__builtin_memcpy(o->buf + o->off, p, len);
	o->off += len;
}

static void pad8(struct out *o)
{
	static const uint8_t zero[8];

	put(o, zero, (8 - (o->off & 7)) & 7);
}

/* Write a 32-bit value back at an earlier offset (sizes known only later). */
static void patch(struct out *o, size_t at, ULONG v)
{
	if (o->buf && at + sizeof(v) <= o->cap)
		__builtin_memcpy(o->buf + at, &v, sizeof(v));
}

/* Check the caller's buffer and size output, common to the query calls. */
static ULONG out_args(const void *buf, DWORD cb, const LPDWORD actual)
{
	if (!actual || (!buf && cb))
		return ERROR_INVALID_PARAMETER;
	if ((uintptr_t)buf & 7)
		return ERROR_INVALID_PARAMETER;
	return ERROR_SUCCESS;
}

static void emit_spec_info(struct out *o, const struct perf_spec *s, ULONG index)
{
	PERF_COUNTER_IDENTIFIER id = {
		.CounterSetGuid = s->guid, .Size = ntpmu_perf_block_size(s->name_len, s->has_name),
		.CounterId = s->counter, .InstanceId = s->instance, .Index = index,
	};
	static const WCHAR nul;

	put(o, &id, sizeof(id));
	if (s->has_name) {
		put(o, s->name, s->name_len * sizeof(WCHAR));
		put(o, &nul, sizeof(nul));
		pad8(o);
	}
}

ULONG WINAPI PerfQueryCounterInfo(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters,
				  DWORD cbCounters, LPDWORD pcbCountersActual)
{
	struct perf_query *q = query_find(hQuery);
	struct out o = { 0 };
	const struct perf_spec *s;
	ULONG err, i;

	if (!q)
		return ERROR_INVALID_HANDLE;
	err = out_args(pCounters, cbCounters, pcbCountersActual);
	if (err != ERROR_SUCCESS)
		return err;
	for (s = q->specs, i = 0; s; s = s->next, i++)
		emit_spec_info(&o, s, i);
	*pcbCountersActual = (DWORD)o.off;
	if (o.off > cbCounters)
		return ERROR_NOT_ENOUGH_MEMORY;
	o = (struct out){ .buf = (uint8_t *)pCounters, .cap = cbCounters };
	for (s = q->specs, i = 0; s; s = s->next, i++)
		emit_spec_info(&o, s, i);
	return ERROR_SUCCESS;
}

static bool instance_matches(const struct perf_spec *s, unsigned int cpu)
{
	WCHAR name[4];
	size_t len = instance_name(cpu, name);
	bool wild = s->name_len == 1 && s->name[0] == u'*';

	if (s->instance != PERF_NO_INSTANCE_ID && s->instance != cpu)
		return false;
	return wild || (s->name_len == len && !__builtin_memcmp(s->name, name, len * 2));
}

static void emit_value(struct out *o, uint64_t v)
{
	PERF_COUNTER_DATA d = { .dwDataSize = sizeof(v), .dwSize = sizeof(d) + sizeof(v) };

	put(o, &d, sizeof(d));
	put(o, &v, sizeof(v));
}

/* PERF_INSTANCE_HEADER, name, padding. */
static void emit_instance_header(struct out *o, unsigned int cpu)
{
	WCHAR name[4];
	size_t len = instance_name(cpu, name);
	PERF_INSTANCE_HEADER h = { .InstanceId = cpu };

	h.Size = (ULONG)((sizeof(h) + (len + 1) * sizeof(WCHAR) + 7) & ~(size_t)7);
	put(o, &h, sizeof(h));
	put(o, name, (len + 1) * sizeof(WCHAR));
	pad8(o);
}

static void emit_instance(struct out *o, unsigned int cpu, const struct snapshot *snap,
			  int counter)
{
	unsigned int i;

	emit_instance_header(o, cpu);
	for (i = 0; i < prov.n; i++)
		if (counter < 0 || (ULONG)counter == prov.ids[i])
			emit_value(o, snap->v[cpu][i]);
}

static void emit_multi_counters(struct out *o)
{
	PERF_MULTI_COUNTERS mc = { .dwCounters = prov.n };

	mc.dwSize = (ULONG)((sizeof(mc) + prov.n * sizeof(DWORD) + 7) & ~(size_t)7);
	put(o, &mc, sizeof(mc));
	put(o, prov.ids, prov.n * sizeof(DWORD));
	pad8(o);
}

static void emit_spec_data(struct out *o, const struct perf_spec *s, const struct snapshot *snap)
{
	PERF_COUNTER_HEADER h = { 0 };
	bool wc = s->counter == PERF_WILDCARD_COUNTER;
	bool wi = s->name_len == 1 && s->name[0] == u'*';
	size_t at = o->off, mi_at;
	int counter = wc ? -1 : (int)s->counter;
	unsigned int cpu, k = 0, first = 0, i;

	for (cpu = ntpmu.nr_cpus; cpu-- > 0;) {
		if (instance_matches(s, cpu)) {
			k++;
			first = cpu;
		}
	}
	if (!wi && !k) {
		h.dwStatus = ERROR_WMI_INSTANCE_NOT_FOUND;
		h.dwType = PERF_ERROR_RETURN;
		h.dwSize = sizeof(h);
		put(o, &h, sizeof(h));
		return;
	}
	h.dwType = wc ? (wi ? PERF_COUNTERSET : PERF_MULTIPLE_COUNTERS) :
		   (wi ? PERF_MULTIPLE_INSTANCES : PERF_SINGLE_COUNTER);
	put(o, &h, sizeof(h));
	if (wc)
		emit_multi_counters(o);
	if (!wi) {
		for (i = 0; i < prov.n; i++)
			if (wc || s->counter == prov.ids[i])
				emit_value(o, snap->v[first][i]);
	} else {
		PERF_MULTI_INSTANCES mi = { .dwInstances = k };

		mi_at = o->off;
		put(o, &mi, sizeof(mi));
		for (cpu = 0; cpu < ntpmu.nr_cpus; cpu++)
			if (instance_matches(s, cpu))
				emit_instance(o, cpu, snap, counter);
		patch(o, mi_at + offsetof(PERF_MULTI_INSTANCES, dwTotalSize),
		      (ULONG)(o->off - mi_at));
	}
	patch(o, at + offsetof(PERF_COUNTER_HEADER, dwSize), (ULONG)(o->off - at));
}

static void emit_data(struct out *o, const struct perf_query *q, const struct snapshot *snap,
		      uint64_t tsc)
{
	PERF_DATA_HEADER h = { .PerfTimeStamp = (LONGLONG)tsc };
	const struct perf_spec *s;
	uint64_t hz = ntpmu_tsc_hz();
	uint16_t st[8] = { 0 };

	h.PerfFreq = (LONGLONG)hz;
	h.PerfTime100NSec = (LONGLONG)ntpmu_tsc_to_100ns(tsc, hz);
	if (hz)
		ntpmu_filetime_to_systemtime((uint64_t)h.PerfTime100NSec, st);
	h.SystemTime.wYear = st[0];
	h.SystemTime.wMonth = st[1];
	h.SystemTime.wDayOfWeek = st[2];
	h.SystemTime.wDay = st[3];
	h.SystemTime.wHour = st[4];
	h.SystemTime.wMinute = st[5];
	h.SystemTime.wSecond = st[6];
	h.SystemTime.wMilliseconds = st[7];

	for (s = q->specs; s; s = s->next)
		h.dwNumCounters++;
	put(o, &h, sizeof(h));
	for (s = q->specs; s; s = s->next)
		emit_spec_data(o, s, snap);
	patch(o, offsetof(PERF_DATA_HEADER, dwTotalSize), (ULONG)o->off);
}

ULONG WINAPI PerfQueryCounterData(HANDLE hQuery, PPERF_DATA_HEADER pCounterBlock,
				  DWORD cbCounterBlock, LPDWORD pcbCounterBlockActual)
{
	struct perf_query *q = query_find(hQuery);
	struct snapshot *snap;
	struct out o = { 0 };
	unsigned int cpu;
	uint64_t tsc;
	ULONG err;

	if (!q)
		return ERROR_INVALID_HANDLE;
	err = out_args(pCounterBlock, cbCounterBlock, pcbCounterBlockActual);
	if (err != ERROR_SUCCESS)
		return err;
	snap = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*snap));
	if (!snap)
		return ERROR_NOT_ENOUGH_MEMORY;
	for (cpu = 0; cpu < ntpmu.nr_cpus; cpu++)
		ntpmu.ops->run_on_cpu(ntpmu.ctx, cpu, read_cpu, snap);
	tsc = ntpmu.ops->rdtsc(ntpmu.ctx);
	emit_data(&o, q, snap, tsc);
	*pcbCounterBlockActual = (DWORD)o.off;
	if (o.off > cbCounterBlock) {
		err = ERROR_NOT_ENOUGH_MEMORY;
	} else {
		o = (struct out){ .buf = (uint8_t *)pCounterBlock, .cap = cbCounterBlock };
		emit_data(&o, q, snap, tsc);
	}
	ntpmu.ops->free(ntpmu.ctx, snap);
	return err;
}

ULONG WINAPI PerfEnumerateCounterSet(LPCWSTR szMachine, LPGUID pCounterSetIds,
				     DWORD cCounterSetIds, LPDWORD pcCounterSetIdsActual)
{
	ULONG ids[PERF_MAX_SET_COUNTERS];
	DWORD need = set_counters(ids) ? 1 : 0;

	if (!pcCounterSetIdsActual || (!pCounterSetIds && cCounterSetIds))
		return ERROR_INVALID_PARAMETER;
	if (!machine_ok(szMachine))
		return ERROR_NOT_SUPPORTED;
	*pcCounterSetIdsActual = need;
	if (cCounterSetIds < need)
		return ERROR_NOT_ENOUGH_MEMORY;
	if (need)
		__builtin_memcpy(pCounterSetIds, &set_guid, sizeof(set_guid));
	return ERROR_SUCCESS;
}

static void emit_instances(struct out *o)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ntpmu.nr_cpus; cpu++)
		emit_instance_header(o, cpu);
}

ULONG WINAPI PerfEnumerateCounterSetInstances(LPCWSTR szMachine, LPCGUID pCounterSetId,
					      PPERF_INSTANCE_HEADER pInstances, DWORD cbInstances,
					      LPDWORD pcbInstancesActual)
{
	ULONG ids[PERF_MAX_SET_COUNTERS];
	struct out o = { 0 };
	ULONG err;

	if (!pCounterSetId)
		return ERROR_INVALID_PARAMETER;
	err = out_args(pInstances, cbInstances, pcbInstancesActual);
	if (err != ERROR_SUCCESS)
		return err;
	if (!machine_ok(szMachine))
		return ERROR_NOT_SUPPORTED;
	if (!set_counters(ids) || !guid_eq(pCounterSetId, &set_guid))
		return ERROR_WMI_GUID_NOT_FOUND;
	emit_instances(&o);
	*pcbInstancesActual = (DWORD)o.off;
	if (o.off > cbInstances)
		return ERROR_NOT_ENOUGH_MEMORY;
	o = (struct out){ .buf = (uint8_t *)pInstances, .cap = cbInstances };
	emit_instances(&o);
	return ERROR_SUCCESS;
}

void ntpmu_perflib_reset(void)
{
	while (prov.queries) {
		struct perf_query *q = prov.queries;

		prov.queries = q->next;
		free_specs(q);
		ntpmu.ops->free(ntpmu.ctx, q);
	}
	provider_stop();
}
