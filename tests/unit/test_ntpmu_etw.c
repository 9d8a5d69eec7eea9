/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ETW PMC configuration on the fake platform: NtSetSystemInformation(
 * SystemPerformanceTraceInformation) 0x0C/0x0F in docs/windows-api.md 4.6's order, the
 * loggers, TraceSetInformation/TraceQueryInformation, and the records the
 * configured counters write (CSwitch counter values, PMC samples).
 */
#include <stdlib.h>
#include <string.h>

#include "suite.h"
#include "nt/evntrace.h"
#include "nt/ntddk.h"
#include "nt/ntrtl.h"
#include "nt/ntwmi.h"
#include "ntpmu_fake.h"

static struct fake_platform f;

/* EVENT_TRACE_PROFILE_COUNTER_INFORMATION with room for 20 sources. */
struct etpci {
	ULONG cls;
	ULONG pad;
	TRACEHANDLE h;
	ULONG src[20];
};

_Static_assert(offsetof(struct etpci, src) ==
	       offsetof(EVENT_TRACE_PROFILE_COUNTER_INFORMATION, ProfileSource), "etpci layout");
_Static_assert(offsetof(struct etpci, src) ==
	       offsetof(EVENT_TRACE_SYSTEM_EVENT_INFORMATION, HookId), "etpci as 0x0E");

static NTSTATUS set_sources(ULONG cls, TRACEHANDLE h, const ULONG *src, unsigned int n)
{
	struct etpci b = { .cls = cls, .h = h };

	if (n)
		memcpy(b.src, src, n * sizeof(ULONG));
	return NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 0x10 + n * 4);
}

static TRACEHANDLE start(const WCHAR *name, ULONG mode, ULONG access)
{
	TRACEHANDLE h = 0;

	ck_assert_int_eq(ntpmu_logger_start(name, mode, 4096, access, &h), STATUS_SUCCESS);
	return h;
}

/* Every counter of every processor free again (full-PMU allocation works). */
static void assert_pmu_free(void)
{
	HANDLE h;

	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, NULL, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
}

static const ULONG instr_branch[] = { ProfileInstructionRetired, ProfileBranchInstructions };

START_TEST(test_etw_header_checks)
{
	struct etpci b = { .cls = EventTraceProfileCounterListInformation };

	fake_init(&f, 5, 2);
	ck_assert_int_eq(NtSetSystemInformation(5, &b, 0x18), STATUS_INVALID_INFO_CLASS);
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, NULL, 0x18),
			 STATUS_ACCESS_VIOLATION);
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 3),
			 STATUS_INFO_LENGTH_MISMATCH);
	b.cls = EventTraceProfileSourceListInformation;	/* a query class */
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 0x18),
			 STATUS_NOT_IMPLEMENTED);
	b.cls = EventTraceProfileConfigInformation;
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 0x0c),
			 STATUS_INFO_LENGTH_MISMATCH);
	fake_exit(&f);
}
END_TEST

/*
 * docs/windows-api.md 4.6's rules in order: each call breaks rule k and every later rule,
 * and must get rule k's status.  Run for both classes.
 */
START_TEST(test_etw_rule_order)
{
	ULONG cls = _i ? EventTraceProfileConfigInformation : EventTraceProfileCounterListInformation;
	ULONG nine[9] = { 26, 26, 26, 26, 26, 26, 26, 26, 26 };
	struct etpci b = { .cls = cls, .h = 7 };
	TRACEHANDLE denied, paged, ok;
	int live;

	fake_init(&f, 5, 2);
	denied = start(u"denied", EVENT_TRACE_USE_PAGED_MEMORY, 0);
	paged = start(u"paged", EVENT_TRACE_USE_PAGED_MEMORY, TRACELOG_GUID_ENABLE);
	ok = start(u"ok", 0, TRACELOG_GUID_ENABLE);
	live = f.live_allocs;

	/* 1: not whole elements (missing logger, no sources also wrong) */
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 0x12),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 0x17),
			 STATUS_INVALID_PARAMETER);
	/* 2: no such logger (and no permission, no sources...) */
	ck_assert_int_eq(set_sources(cls, 7, NULL, 0), STATUS_WMI_INSTANCE_NOT_FOUND);
	ck_assert_int_eq(set_sources(cls, KERNEL_LOGGER_ID, instr_branch, 2),
			 STATUS_WMI_INSTANCE_NOT_FOUND);
	/* 3: no TRACELOG_GUID_ENABLE (and no sources, paged) */
	ck_assert_int_eq(set_sources(cls, denied, NULL, 0), STATUS_ACCESS_DENIED);
	/* 4: no sources / more than the 8 GP counters (paged too) */
	ck_assert_int_eq(set_sources(cls, paged, NULL, 0), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(set_sources(cls, ok, nine, 9), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(set_sources(cls, ok, nine, 8) == STATUS_INVALID_PARAMETER, 0);
	ntpmu_logger_stop(ok);
	ok = start(u"ok", 0, TRACELOG_GUID_ENABLE);
	/* 5: paged memory, even when the allocation would fail */
	f.alloc_fail_in = 1;
	ck_assert_int_eq(set_sources(cls, paged, instr_branch, 2), STATUS_INVALID_PARAMETER);
	f.alloc_fail_in = 0;
	/* 6: ETW_PMC_SUPPORT cannot be allocated; nothing stays behind */
	live = f.live_allocs;
	f.alloc_fail_in = 1;
	ck_assert_int_eq(set_sources(cls, ok, instr_branch, 2), STATUS_NO_MEMORY);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(f.live_allocs, live);
	/* success, then 7: already set, even with a source rule 8 would refuse */
	ck_assert_int_eq(set_sources(cls, ok, instr_branch, 2), STATUS_SUCCESS);
	ck_assert_int_eq(set_sources(cls, ok, instr_branch, 2), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(set_sources(cls, ok, (ULONG[]){ ProfilePipelineDry }, 1),
			 STATUS_WMI_ALREADY_ENABLED);
	/* the logger ID is the low 16 bits of TraceHandle */
	ck_assert_int_eq(set_sources(cls, ok | 0xabcd0000ull, instr_branch, 2),
			 STATUS_WMI_ALREADY_ENABLED);
	/* sources stay until the logger stops; then the counters are free */
	ck_assert_int_eq(ntpmu_logger_stop(ok), STATUS_SUCCESS);
	assert_pmu_free();
	ck_assert_int_eq(set_sources(cls, ok, instr_branch, 2), STATUS_WMI_INSTANCE_NOT_FOUND);
	fake_exit(&f);
}
END_TEST

/* 8: a source the PMU cannot produce; the support structure is released. */
START_TEST(test_etw_unsupported_source)
{
	TRACEHANDLE ok;
	unsigned int c;
	int live;

	fake_init(&f, 5, 2);
	ok = start(u"ok", 0, TRACELOG_GUID_ENABLE);
	live = f.live_allocs;
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok,
				     (ULONG[]){ ProfileInstructionRetired, ProfilePipelineDry }, 2),
			 STATUS_NOT_SUPPORTED);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok,
				     (ULONG[]){ ProfileTime }, 1), STATUS_NOT_SUPPORTED);
	/* CPUID.0AH:EBX marks LLC misses unavailable: sources 10 and 29 go */
	for (c = 0; c < 2; c++)
		f.pmu[c].cfg.available_events &= ~(1u << PMU_EV_LLC_MISSES);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok,
				     (ULONG[]){ ProfileLLCMisses }, 1), STATUS_NOT_SUPPORTED);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok,
				     (ULONG[]){ ProfileCacheMisses }, 1), STATUS_NOT_SUPPORTED);
	ck_assert_int_eq(f.live_allocs, live);
	assert_pmu_free();
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok,
				     (ULONG[]){ ProfileLLCReference }, 1), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

/*
 * A failure on one processor fails the call and releases the counters the
 * other processors got.
 */
START_TEST(test_etw_cpu_rollback)
{
	PHYSICAL_COUNTER_RESOURCE_LIST rl = { .Count = 1 };
	GROUP_AFFINITY cpu1 = { .Mask = 2 }, cpu0 = { .Mask = 1 };
	HANDLE taken, h;
	TRACEHANDLE ok;
	int live;

	fake_init(&f, 5, 2);
	ok = start(u"ok", 0, TRACELOG_GUID_ENABLE);
	rl.Descriptors[0].Type = ResourceTypeRange;
	rl.Descriptors[0].u.Range.Begin = 0;
	rl.Descriptors[0].u.Range.End = 6;	/* processor 1 keeps only GP7 */
	ck_assert_int_eq(HalAllocateHardwareCounters(&cpu1, 1, &rl, &taken), STATUS_SUCCESS);
	live = f.live_allocs;
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok, instr_branch, 2),
			 STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(f.live_allocs, live);
	rl.Descriptors[0].u.Range.End = 7;
	ck_assert_int_eq(HalAllocateHardwareCounters(&cpu0, 1, &rl, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);

	/* the HAL allocation itself failing (out of memory) on processor 1 */
	ck_assert_int_eq(HalFreeHardwareCounters(taken), STATUS_SUCCESS);
	live = f.live_allocs;
	f.alloc_fail_in = 3;	/* support, processor 0's grant, processor 1's grant */
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok, instr_branch, 2),
			 STATUS_INSUFFICIENT_RESOURCES);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(f.live_allocs, live);
	assert_pmu_free();

	/* one counter left on processor 1 is enough for one source */
	rl.Descriptors[0].u.Range.End = 6;
	ck_assert_int_eq(HalAllocateHardwareCounters(&cpu1, 1, &rl, &taken), STATUS_SUCCESS);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok,
				     (ULONG[]){ ProfileInstructionRetired }, 1), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_etw_no_pmu)
{
	ULONG max = 99, ret = 0;
	TRACEHANDLE ok;
	uint8_t buf[256];
	PROFILE_SOURCE_INFO *e = (PROFILE_SOURCE_INFO *)buf;

	fake_init(&f, 0, 1);
	ok = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ck_assert_uint_eq(ok, KERNEL_LOGGER_ID);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, ok,
				     (ULONG[]){ ProfileTotalCycles }, 1), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(set_sources(EventTraceProfileConfigInformation, ok,
				     (ULONG[]){ ProfileTotalCycles }, 1), STATUS_INVALID_PARAMETER);
	ck_assert_uint_eq(TraceSetInformation(ok, TracePmcCounterListInfo,
					      (ULONG[]){ ProfileTotalCycles }, 4),
			  ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(TraceQueryInformation(0, TraceMaxPmcCounterQuery, &max, 4, &ret),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(max, 0);
	/* only the timer is listed */
	ck_assert_uint_eq(TraceQueryInformation(0, TraceProfileSourceListInfo, buf, sizeof(buf),
						&ret), ERROR_SUCCESS);
	ck_assert_uint_eq(ret, 0x28);
	ck_assert_uint_eq(e->NextEntryOffset, 0);
	ck_assert_uint_eq(e->Source, ProfileTime);
	ck_assert_mem_eq(e->Description, u"Timer", 12);
	fake_exit(&f);
}
END_TEST

START_TEST(test_etw_loggers)
{
	TRACEHANDLE h[NTPMU_MAX_LOGGERS], x;
	const void *buf;
	ULONG used, lost;
	WCHAR name[] = u"L0";
	unsigned int i;
	int live;

	fake_init(&f, 5, 1);
	live = f.live_allocs;
	ck_assert_int_eq(ntpmu_logger_start(NULL, 0, 4096, 0, &x), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(ntpmu_logger_start(u"a", 0, 4096, 0, NULL), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(ntpmu_logger_start(u"", 0, 4096, 0, &x), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(ntpmu_logger_start(u"a", 0, 8, 0, &x), STATUS_INVALID_PARAMETER);
	f.alloc_fail_in = 1;
	ck_assert_int_eq(ntpmu_logger_start(u"a", 0, 4096, 0, &x), STATUS_NO_MEMORY);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(f.live_allocs, live);
	for (i = 0; i < NTPMU_MAX_LOGGERS; i++) {
		name[1] = (WCHAR)(u'0' + i);
		h[i] = start(name, 0, 0);
		ck_assert_uint_eq(h[i], i + 1);
	}
	ck_assert_int_eq(ntpmu_logger_start(u"more", 0, 4096, 0, &x),
			 STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(ntpmu_logger_start(u"L3", 0, 4096, 0, &x), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(f.live_allocs, live + NTPMU_MAX_LOGGERS);
	ck_assert_int_eq(ntpmu_logger_stop(h[2]), STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(h[2]), STATUS_WMI_INSTANCE_NOT_FOUND);
	ck_assert_int_eq(ntpmu_logger_buffer(h[2], &buf, &used, &lost),
			 STATUS_WMI_INSTANCE_NOT_FOUND);
	/* the freed ID is reused; the kernel logger always has 0xFFFF */
	ck_assert_uint_eq(start(u"again", 0, 0), 3);
	ck_assert_int_eq(ntpmu_logger_stop(h[0]), STATUS_SUCCESS);
	ck_assert_uint_eq(start(KERNEL_LOGGER_NAMEW, 0, 0), KERNEL_LOGGER_ID);
	ck_assert_int_eq(ntpmu_logger_buffer(KERNEL_LOGGER_ID, &buf, &used, &lost), STATUS_SUCCESS);
	ck_assert_uint_eq(used, 0);
	ck_assert_uint_eq(lost, 0);
	fake_exit(&f);
}
END_TEST

/* Walks a logger's records with bounds checks. */
struct records {
	const uint8_t *p;
	ULONG used, off, lost;
};

static void records_open(struct records *r, TRACEHANDLE h)
{
	const void *buf;

	ck_assert_int_eq(ntpmu_logger_buffer(h, &buf, &r->used, &r->lost), STATUS_SUCCESS);
	r->p = buf;
	r->off = 0;
}

static const NTPMU_TRACE_HEADER *records_next(struct records *r)
{
	const NTPMU_TRACE_HEADER *h;

	if (r->off == r->used)
		return NULL;
	ck_assert_uint_le(r->off + sizeof(*h), r->used);
	h = (const NTPMU_TRACE_HEADER *)(r->p + r->off);
	ck_assert_uint_eq(h->Size % 8, 0);
	ck_assert_uint_le(r->off + h->Size, r->used);
	r->off += h->Size;
	return h;
}

static void expect_cswitch(struct records *r, unsigned int cpu, uint32_t old, uint32_t new,
			   uint64_t v0, uint64_t v1)
{
	const NTPMU_TRACE_HEADER *h = records_next(r);
	const NTPMU_CSWITCH *cs = (const NTPMU_CSWITCH *)(h + 1);
	const uint64_t *v = (const uint64_t *)(cs + 1);

	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->HookId, PERFINFO_LOG_TYPE_CONTEXTSWAP);
	ck_assert_uint_eq(h->Size, sizeof(*h) + sizeof(*cs) + 16);
	ck_assert_uint_eq(h->Processor, cpu);
	ck_assert_uint_eq(h->PmcCount, 2);
	ck_assert_uint_eq(cs->OldThreadId, old);
	ck_assert_uint_eq(cs->NewThreadId, new);
	ck_assert_uint_eq(v[0], v0);
	ck_assert_uint_eq(v[1], v1);
}

START_TEST(test_etw_cswitch_counters)
{
	struct fake_thread a, b;
	struct records r;
	TRACEHANDLE lg;
	const NTPMU_TRACE_HEADER *h;

	fake_init(&f, 5, 2);
	fake_thread_init(&f, &a, NULL);
	fake_thread_init(&f, &b, NULL);
	lg = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ck_assert_uint_eq(TraceSetInformation(lg, TracePmcCounterListInfo, (PVOID)instr_branch, 8),
			  ERROR_SUCCESS);
	f.tsc = 1000;
	fake_switch(&f, 0, &a);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 100);
	fake_work(&f, PMU_EV_BRANCHES, 7);
	b.wait_reason = -1;
	a.wait_reason = DelayExecution;
	fake_switch(&f, 0, &b);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 50);
	fake_switch(&f, 1, &a);
	fake_work(&f, PMU_EV_BRANCHES, 3);
	fake_switch(&f, 1, NULL);
	fake_switch(&f, 0, NULL);

	records_open(&r, lg);
	ck_assert_uint_eq(r.lost, 0);
	expect_cswitch(&r, 0, 0, a.id, 0, 0);
	h = (const NTPMU_TRACE_HEADER *)r.p;
	ck_assert_uint_eq(h->TimeStamp, 1000);
	expect_cswitch(&r, 0, a.id, b.id, 100, 7);
	ck_assert_int_eq(((const NTPMU_CSWITCH *)((const NTPMU_TRACE_HEADER *)(r.p + 0x38) + 1))
			 ->OldThreadWaitReason, DelayExecution);
	expect_cswitch(&r, 1, 0, a.id, 0, 0);
	expect_cswitch(&r, 1, a.id, 0, 0, 3);
	expect_cswitch(&r, 0, b.id, 0, 150, 7);
	ck_assert_ptr_null(records_next(&r));

	/* stopped: no more records, the counters are free */
	ck_assert_int_eq(ntpmu_logger_stop(lg), STATUS_SUCCESS);
	fake_switch(&f, 0, &a);
	assert_pmu_free();
	fake_exit(&f);
}
END_TEST

START_TEST(test_etw_buffer_full)
{
	struct fake_thread a;
	struct records r;
	TRACEHANDLE lg;
	int i;

	fake_init(&f, 5, 1);
	fake_thread_init(&f, &a, NULL);
	ck_assert_int_eq(ntpmu_logger_start(u"small", 0, 0x70, TRACELOG_GUID_ENABLE, &lg),
			 STATUS_SUCCESS);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, lg, instr_branch, 2),
			 STATUS_SUCCESS);
	for (i = 0; i < 4; i++)
		fake_switch(&f, 0, i & 1 ? NULL : &a);
	records_open(&r, lg);
	/* 0x38-byte records: two fit in 0x70 */
	ck_assert_uint_eq(r.used, 0x70);
	ck_assert_uint_eq(r.lost, 2);
	fake_exit(&f);
}
END_TEST

static const PERFINFO_PMC_SAMPLE_INFORMATION *expect_sample(struct records *r, uint64_t ip,
							     uint32_t tid, USHORT source)
{
	const NTPMU_TRACE_HEADER *h = records_next(r);
	const PERFINFO_PMC_SAMPLE_INFORMATION *s = (const void *)(h + 1);

	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->HookId, PERFINFO_LOG_TYPE_PMC_INTERRUPT);
	ck_assert_uint_eq(h->Size, sizeof(*h) + sizeof(*s));
	ck_assert_uint_eq(h->PmcCount, 0);
	ck_assert_uint_eq(h->ThreadId, tid);
	ck_assert_uint_eq((uintptr_t)s->InstructionPointer, ip);
	ck_assert_uint_eq(s->ThreadId, tid);
	ck_assert_uint_eq(s->ProfileSource, source);
	return s;
}

START_TEST(test_etw_profile_samples)
{
	TRACE_PROFILE_INTERVAL ti = { ProfileInstructionRetired, 100 };
	ULONG src[] = { ProfileInstructionRetired, ProfileBranchInstructionRetired }, ret;
	struct fake_thread a, b;
	struct records r;
	TRACEHANDLE lg, lg2;

	fake_init(&f, 5, 2);
	fake_thread_init(&f, &a, NULL);
	fake_thread_init(&f, &b, NULL);
	lg = start(u"prof", 0, TRACELOG_GUID_ENABLE);
	/* below the minimum: clamped to 4096 */
	ck_assert_uint_eq(TraceSetInformation(0, TraceSampledProfileIntervalInfo, &ti, 8),
			  ERROR_SUCCESS);
	ti.Interval = 0;
	ck_assert_uint_eq(TraceQueryInformation(0, TraceSampledProfileIntervalInfo, &ti, 8, &ret),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(ti.Interval, 4096);
	ck_assert_uint_eq(TraceSetInformation(lg, TraceProfileSourceConfigInfo, src, 8),
			  ERROR_SUCCESS);
	/* the overflow interrupt is taken: a second profile fails, a list does not */
	lg2 = start(u"other", 0, TRACELOG_GUID_ENABLE);
	ck_assert_int_eq(set_sources(EventTraceProfileConfigInformation, lg2, src, 1),
			 STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, lg2, src, 1),
			 STATUS_SUCCESS);

	fake_switch(&f, 1, &b);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 4095);
	ck_assert(!vpmu_take_pmi(&f.pmu[1]));
	fake_work(&f, PMU_EV_INSTRUCTIONS, 1);
	ck_assert(vpmu_take_pmi(&f.pmu[1]));
	f.pmi_ip = 0x401234;
	ck_assert_uint_ne(ntpmu_pmi(), 0);
	/* reloaded at -4096: 4096 more give the next sample */
	fake_work(&f, PMU_EV_INSTRUCTIONS, 4095);
	ck_assert(!vpmu_take_pmi(&f.pmu[1]));
	fake_work(&f, PMU_EV_INSTRUCTIONS, 1);
	ck_assert(vpmu_take_pmi(&f.pmu[1]));
	f.pmi_ip = 0x405678;
	ntpmu_pmi();
	/* the default interval (65536) for branches, on processor 0 */
	fake_switch(&f, 0, &a);
	fake_work(&f, PMU_EV_BRANCHES, 65536);
	ck_assert(vpmu_take_pmi(&f.pmu[0]));
	f.pmi_ip = 0x409abc;
	ntpmu_pmi();

	records_open(&r, lg);
	expect_sample(&r, 0x401234, b.id, ProfileInstructionRetired);
	expect_sample(&r, 0x405678, b.id, ProfileInstructionRetired);
	expect_sample(&r, 0x409abc, a.id, ProfileBranchInstructionRetired);
	ck_assert_ptr_null(records_next(&r));
	ck_assert_int_eq(ntpmu_logger_stop(lg), STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(lg2), STATUS_SUCCESS);
	assert_pmu_free();
	fake_exit(&f);
}
END_TEST

/* Version 1: no overflow interrupt to own, so no profile; lists work. */
START_TEST(test_etw_v1)
{
	TRACEHANDLE lg;

	fake_init(&f, 1, 1);
	lg = start(u"v1", 0, TRACELOG_GUID_ENABLE);
	ck_assert_int_eq(set_sources(EventTraceProfileConfigInformation, lg, instr_branch, 1),
			 STATUS_NOT_SUPPORTED);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, lg, instr_branch, 2),
			 STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_trace_set_checks)
{
	ULONG nine[9] = { 0 }, one = ProfileTotalCycles;
	TRACE_PROFILE_INTERVAL ti = { 0 };
	TRACEHANDLE lg;
	int live;

	fake_init(&f, 5, 1);
	lg = start(u"t", 0, TRACELOG_GUID_ENABLE);
	live = f.live_allocs;
	for (int cls = TraceProfileSourceConfigInfo; cls <= TracePmcCounterListInfo; cls += 3) {
		ck_assert_uint_eq(TraceSetInformation(lg, cls, nine, 6), ERROR_INCORRECT_SIZE);
		ck_assert_uint_eq(TraceSetInformation(lg, cls, nine, 36), ERROR_INCORRECT_SIZE);
		ck_assert_uint_eq(TraceSetInformation(lg, cls, nine, 0), ERROR_INVALID_PARAMETER);
		ck_assert_uint_eq(TraceSetInformation(lg, cls, NULL, 4), ERROR_INVALID_PARAMETER);
		ck_assert_uint_eq(TraceSetInformation(99, cls, &one, 4),
				  ERROR_WMI_INSTANCE_NOT_FOUND);
		f.alloc_fail_in = 1;
		ck_assert_uint_eq(TraceSetInformation(lg, cls, &one, 4), ERROR_OUTOFMEMORY);
		f.alloc_fail_in = 0;
		ck_assert_int_eq(f.live_allocs, live);
	}
	ck_assert_uint_eq(TraceSetInformation(lg, 12, &one, 4), ERROR_NOT_SUPPORTED);
	ck_assert_uint_eq(TraceSetInformation(lg, TraceSampledProfileIntervalInfo, &ti, 8),
			  ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(TraceSetInformation(0, TraceSampledProfileIntervalInfo, &ti, 4),
			  ERROR_BAD_LENGTH);
	fake_exit(&f);
}
END_TEST

/* 0x0E's EVENT_TRACE_SYSTEM_EVENT_INFORMATION has 0x0F's layout (docs/windows-api.md 4.5). */
static NTSTATUS set_hooks(TRACEHANDLE h, const ULONG *hook, unsigned int n)
{
	return set_sources(EventTraceProfileEventListInformation, h, hook, n);
}

static const ULONG five_hooks[5] = { 0x0524, 0x0524, 0x0524, 0x0524, 0x0524 };

/*
 * 0x0E's rules (ntpmu_etw.c) in order: each call breaks rule k and every
 * later rule it can, and must get rule k's status.
 */
START_TEST(test_etw_event_list_rules)
{
	struct etpci b = { .cls = EventTraceProfileEventListInformation, .h = KERNEL_LOGGER_ID };
	ULONG cswitch = PERFINFO_LOG_TYPE_CONTEXTSWAP, big = 0x10524;
	TRACEHANDLE kl, other;
	int live;

	fake_init(&f, 5, 2);
	/* 0: below the header */
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 0x0c),
			 STATUS_INFO_LENGTH_MISMATCH);
	/* 1: not whole ULONGs (and no logger) */
	ck_assert_int_eq(NtSetSystemInformation(SystemPerformanceTraceInformation, &b, 0x13),
			 STATUS_INVALID_PARAMETER);
	/* 2: no logger (and too many hooks) */
	ck_assert_int_eq(set_hooks(KERNEL_LOGGER_ID, five_hooks, 5), STATUS_WMI_INSTANCE_NOT_FOUND);
	/* 3: no TRACELOG_GUID_ENABLE (and too many hooks, paged) */
	kl = start(KERNEL_LOGGER_NAMEW, EVENT_TRACE_USE_PAGED_MEMORY, 0);
	ck_assert_int_eq(set_hooks(kl, five_hooks, 5), STATUS_ACCESS_DENIED);
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	/* 4: not the NT Kernel Logger, even with a list the kernel logger takes */
	other = start(u"other", 0, TRACELOG_GUID_ENABLE);
	ck_assert_int_eq(set_hooks(other, &cswitch, 1), STATUS_INVALID_PARAMETER);
	/* 5 and 6 before 7: too many, too big, paged, even when allocation fails */
	kl = start(KERNEL_LOGGER_NAMEW, EVENT_TRACE_USE_PAGED_MEMORY, TRACELOG_GUID_ENABLE);
	live = f.live_allocs;
	f.alloc_fail_in = 1;
	ck_assert_int_eq(set_hooks(kl, &cswitch, 1), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(f.alloc_fail_in, 1);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	kl = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	live = f.live_allocs;
	f.alloc_fail_in = 1;
	ck_assert_int_eq(set_hooks(kl, five_hooks, 5), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(set_hooks(kl, &big, 1), STATUS_INVALID_PARAMETER);
	/* 7: ETW_PMC_SUPPORT cannot be allocated; nothing stays behind */
	ck_assert_int_eq(set_hooks(kl, &cswitch, 1), STATUS_NO_MEMORY);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(f.live_allocs, live);
	/* four hooks is the maximum; then 8: set once (5 still breaks rule 5) */
	ck_assert_int_eq(set_hooks(kl, five_hooks, 4), STATUS_SUCCESS);
	ck_assert_int_eq(set_hooks(kl, &cswitch, 1), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(set_hooks(kl, NULL, 0), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(set_hooks(kl | 0x12340000ull, NULL, 0), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(set_hooks(kl, five_hooks, 5), STATUS_INVALID_PARAMETER);
	/* the counter list still comes after, on the same support structure */
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, kl, instr_branch, 2),
			 STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	/* a list set first: the support exists, no allocation to fail */
	kl = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, kl, instr_branch, 2),
			 STATUS_SUCCESS);
	f.alloc_fail_in = 1;
	ck_assert_int_eq(set_hooks(kl, NULL, 0), STATUS_SUCCESS);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(other), STATUS_SUCCESS);
	assert_pmu_free();
	fake_exit(&f);
}
END_TEST

static CLASSIC_EVENT_ID classic(GUID g, UCHAR type)
{
	return (CLASSIC_EVENT_ID){ .EventGuid = g, .Type = type, .Reserved = { 0xff } };
}

static const GUID thread_guid = NTPMU_THREAD_GUID, perfinfo_guid = NTPMU_PERFINFO_GUID,
		  process_guid = NTPMU_PROCESS_GUID, unknown_guid = { 0x12345678, 1, 2, { 3 } };

/* Set 8 (docs/windows-api.md 4.4) in its order, then what it forwards to 0x0E. */
START_TEST(test_trace_event_list)
{
	CLASSIC_EVENT_ID ev[5];
	ULONG info[8], ret;
	TRACEHANDLE kl, other;
	int live, i;

	fake_init(&f, 5, 1);
	for (i = 0; i < 5; i++)
		ev[i] = classic(thread_guid, CSWITCH_EVENT_TYPE);
	other = start(u"other", 0, TRACELOG_GUID_ENABLE);
	/* 1: not whole 0x18 entries, more than 4 (no logger either) */
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, ev, 0x17),
			  ERROR_INCORRECT_SIZE);
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, ev, 0x19),
			  ERROR_INCORRECT_SIZE);
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, ev, 5 * 0x18),
			  ERROR_INCORRECT_SIZE);
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, NULL, 5 * 0x18),
			  ERROR_INCORRECT_SIZE);
	/* 2: empty with a buffer, entries without one */
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, ev, 0),
			  ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, NULL, 0x18),
			  ERROR_INVALID_PARAMETER);
	/* 3: out of memory, nothing left */
	live = f.live_allocs;
	f.alloc_fail_in = 1;
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, ev, 0x18),
			  ERROR_OUTOFMEMORY);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(f.live_allocs, live);
	/* 4: the kernel's answer: no logger, not the NT Kernel Logger */
	ck_assert_uint_eq(TraceSetInformation(99, TracePmcEventListInfo, NULL, 0),
			  ERROR_WMI_INSTANCE_NOT_FOUND);
	ck_assert_uint_eq(TraceSetInformation(other, TracePmcEventListInfo, ev, 0x18),
			  ERROR_INVALID_PARAMETER);
	/* unknown GUIDs dropped: the kernel gets the rest, once */
	kl = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ev[0] = classic(unknown_guid, CSWITCH_EVENT_TYPE);
	ev[1] = classic(process_guid, 1);
	ev[2] = classic(perfinfo_guid, PMC_INTERRUPT_EVENT_TYPE);
	ev[3] = classic(unknown_guid, 2);
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcEventListInfo, ev, 4 * 0x18),
			  ERROR_SUCCESS);
	/* what the kernel kept, through query 27: Process/1 and PerfInfo/0x2F */
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcSessionInformation, info, sizeof(info),
						&ret), ERROR_SUCCESS);
	ck_assert_uint_eq(ret, 0x18);
	ck_assert_uint_eq(info[3], 2);
	ck_assert_uint_eq(info[4], (EVENT_TRACE_GROUP_PERFINFO | PMC_INTERRUPT_EVENT_TYPE) << 16 |
				   (EVENT_TRACE_GROUP_PROCESS | 1));
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcEventListInfo, ev, 0x18),
			  ERROR_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	/* all unknown: an empty list, accepted */
	kl = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcEventListInfo, ev, 0x18),
			  ERROR_SUCCESS);
	ck_assert_int_eq(set_hooks(kl, NULL, 0), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(other), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

/* A CSwitch record with no counter values. */
static void expect_bare_cswitch(struct records *r, unsigned int cpu, uint32_t old, uint32_t new)
{
	const NTPMU_TRACE_HEADER *h = records_next(r);
	const NTPMU_CSWITCH *cs = (const NTPMU_CSWITCH *)(h + 1);

	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->HookId, PERFINFO_LOG_TYPE_CONTEXTSWAP);
	ck_assert_uint_eq(h->Size, sizeof(*h) + sizeof(*cs));
	ck_assert_uint_eq(h->Processor, cpu);
	ck_assert_uint_eq(h->PmcCount, 0);
	ck_assert_uint_eq(cs->OldThreadId, old);
	ck_assert_uint_eq(cs->NewThreadId, new);
}

/*
 * The event list replaces the CSwitch default: a list naming Process/Start
 * (accepted, never raised) and the PMC sample puts the counter list's
 * values on the samples and none on the context switches.
 */
START_TEST(test_etw_event_list_counters)
{
	CLASSIC_EVENT_ID ev[2] = { classic(process_guid, 1),
				   classic(perfinfo_guid, PMC_INTERRUPT_EVENT_TYPE) };
	ULONG prof = ProfileInstructionRetired;
	const PERFINFO_PMC_SAMPLE_INFORMATION *s;
	const uint64_t *v;
	struct fake_thread a;
	struct records r;
	TRACEHANDLE kl;

	fake_init(&f, 5, 1);
	fake_thread_init(&f, &a, NULL);
	kl = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcEventListInfo, ev, sizeof(ev)),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcCounterListInfo, (PVOID)instr_branch, 8),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(TraceSetInformation(kl, TraceProfileSourceConfigInfo, &prof, 4),
			  ERROR_SUCCESS);
	fake_switch(&f, 0, &a);
	fake_work(&f, PMU_EV_BRANCHES, 9);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 65536);
	ck_assert(vpmu_take_pmi(&f.pmu[0]));
	f.pmi_ip = 0x401000;
	ntpmu_pmi();
	fake_switch(&f, 0, NULL);

	records_open(&r, kl);
	ck_assert_uint_eq(r.lost, 0);
	expect_bare_cswitch(&r, 0, 0, a.id);
	{
		const NTPMU_TRACE_HEADER *h = records_next(&r);

		ck_assert_ptr_nonnull(h);
		ck_assert_uint_eq(h->HookId, PERFINFO_LOG_TYPE_PMC_INTERRUPT);
		ck_assert_uint_eq(h->PmcCount, 2);
		ck_assert_uint_eq(h->Size, sizeof(*h) + sizeof(*s) + 16);
		s = (const void *)(h + 1);
		ck_assert_uint_eq((uintptr_t)s->InstructionPointer, 0x401000);
		ck_assert_uint_eq(s->ProfileSource, ProfileInstructionRetired);
		v = (const uint64_t *)(s + 1);
		ck_assert_uint_eq(v[0], 65536);
		ck_assert_uint_eq(v[1], 9);
	}
	expect_bare_cswitch(&r, 0, a.id, 0);
	ck_assert_ptr_null(records_next(&r));
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	assert_pmu_free();
	fake_exit(&f);
}
END_TEST

/* An event list naming CSwitch keeps the counters there, not on samples. */
START_TEST(test_etw_event_list_cswitch)
{
	CLASSIC_EVENT_ID ev = classic(thread_guid, CSWITCH_EVENT_TYPE);
	struct fake_thread a;
	struct records r;
	TRACEHANDLE kl;

	fake_init(&f, 5, 1);
	fake_thread_init(&f, &a, NULL);
	kl = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcCounterListInfo, (PVOID)instr_branch, 8),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcEventListInfo, &ev, sizeof(ev)),
			  ERROR_SUCCESS);
	fake_switch(&f, 0, &a);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 12);
	fake_work(&f, PMU_EV_BRANCHES, 5);
	fake_switch(&f, 0, NULL);
	records_open(&r, kl);
	expect_cswitch(&r, 0, 0, a.id, 0, 0);
	expect_cswitch(&r, 0, a.id, 0, 12, 5);
	ck_assert_ptr_null(records_next(&r));
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_trace_query_sources)
{
	static const ULONG want[] = { 0, 2, 6, 11, 19, 25, 26, 27, 28, 30, 31 };
	static const char *const names[] = {
		"Timer", "TotalIssues", "BranchInstructions", "BranchMispredictions",
		"TotalCycles", "UnhaltedCoreCycles", "InstructionRetired",
		"UnhaltedReferenceCycles", "LLCReference", "BranchInstructionRetired",
		"BranchMispredictsRetired",
	};
	ULONG need = 0, ret = 0, off = 0, interval = 0;
	TRACE_PROFILE_INTERVAL ti = { ProfileLLCMisses, 5000 };
	uint8_t *buf;
	unsigned int i, j;

	fake_init(&f, 5, 1);
	f.pmu[0].cfg.available_events &= ~(1u << PMU_EV_LLC_MISSES);
	ck_assert_uint_eq(TraceQueryInformation(1, TraceProfileSourceListInfo, NULL, 0, &need),
			  ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(TraceQueryInformation(0, TraceProfileSourceListInfo, NULL, 0, &need),
			  ERROR_BAD_LENGTH);
	buf = malloc(need);
	ck_assert_uint_eq(TraceQueryInformation(0, TraceProfileSourceListInfo, buf, need - 8, &ret),
			  ERROR_BAD_LENGTH);
	ck_assert_uint_eq(ret, need);
	ck_assert_uint_eq(TraceQueryInformation(0, TraceProfileSourceListInfo, buf, need, &ret),
			  ERROR_SUCCESS);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const PROFILE_SOURCE_INFO *e = (const void *)(buf + off);

		ck_assert_uint_le(off + 0x20, need);
		ck_assert_uint_eq(e->Source, want[i]);
		ck_assert_uint_eq(e->MinInterval, want[i] ? 4096 : 1221);
		ck_assert_uint_eq(e->MaxInterval, want[i] ? 2147483647 : 1000000);
		for (j = 0; names[i][j]; j++)
			ck_assert_uint_eq(e->Description[j], (WCHAR)names[i][j]);
		ck_assert_uint_eq(e->Description[j], 0);
		if (i + 1 == sizeof(want) / sizeof(want[0]))
			ck_assert_uint_eq(e->NextEntryOffset, 0);
		else
			ck_assert_uint_eq(e->NextEntryOffset % 8, 0);
		off += e->NextEntryOffset;
	}
	ck_assert_uint_eq(off + 0x50, need);	/* "BranchMispredictsRetired" entry */
	free(buf);

	/* an unsupported source's interval is 0, still success */
	ck_assert_uint_eq(TraceSetInformation(0, TraceSampledProfileIntervalInfo, &ti, 8),
			  ERROR_SUCCESS);
	ck_assert_int_eq(NtQueryIntervalProfile(ProfileLLCMisses, &interval), STATUS_SUCCESS);
	ck_assert_uint_eq(interval, 0);
	ck_assert_int_eq(NtQueryIntervalProfile(ProfileLLCReference, &interval), STATUS_SUCCESS);
	ck_assert_uint_eq(interval, 65536);
	ck_assert_int_eq(NtSetIntervalProfile(0xFFFFFFFFu, ProfileLLCReference), STATUS_SUCCESS);
	ck_assert_int_eq(NtQueryIntervalProfile(ProfileLLCReference, &interval), STATUS_SUCCESS);
	ck_assert_uint_eq(interval, 2147483647u);
	ck_assert_uint_eq(TraceQueryInformation(0, TraceMaxPmcCounterQuery, &interval, 4, &ret),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(interval, 8);
	ck_assert_uint_eq(TraceQueryInformation(0, TraceMaxPmcCounterQuery, &interval, 2, &ret),
			  ERROR_BAD_LENGTH);
	ck_assert_uint_eq(TraceQueryInformation(0, TraceVersionInfo, &interval, 4, &ret),
			  ERROR_NOT_SUPPORTED);
	fake_exit(&f);
}
END_TEST

/* A HAL grant of GP counters `mask` on processor `cpu`, with `tag` if non-zero. */
static HANDLE hal_grant(unsigned int cpu, uint64_t mask, ULONG tag)
{
	struct {
		ULONG Count;
		PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR Descriptors[8];
	} rl = { 0 };
	GROUP_AFFINITY ga = { .Mask = (KAFFINITY)1 << cpu };
	HANDLE h;

	for (unsigned int i = 0; i < 8; i++) {
		if (!(mask >> i & 1))
			continue;
		rl.Descriptors[rl.Count].Type = ResourceTypeSingle;
		rl.Descriptors[rl.Count++].u.CounterIndex = i;
	}
	if (tag) {
		rl.Descriptors[rl.Count].Type = ResourceTypeIdenitificationTag;
		rl.Descriptors[rl.Count++].u.IdentificationTag = tag;
	}
	ck_assert_int_eq(HalAllocateHardwareCounters(&ga, 1, (PPHYSICAL_COUNTER_RESOURCE_LIST)&rl,
						     &h), STATUS_SUCCESS);
	return h;
}

static void expect_owner(const ETW_PMC_COUNTER_OWNERSHIP_STATUS *st, unsigned int i,
			 ETW_PMC_COUNTER_OWNER_TYPE type, ULONG source, ULONG tag)
{
	ck_assert_uint_eq(st->CounterOwners[i].OwnerType, type);
	ck_assert_uint_eq(st->CounterOwners[i].ProfileSource, source);
	ck_assert_uint_eq(st->CounterOwners[i].OwnerTag, tag);
}

/* Query 25 (ntpmu_trace_pmc.c): its size rules, then who holds what. */
START_TEST(test_trace_pmc_owners)
{
	union {
		ETW_PMC_COUNTER_OWNERSHIP_STATUS st;
		uint8_t b[8 + 12 * 8 + 4];
	} u;
	HARDWARE_COUNTER c = { .Type = PMCCounter, .Index = 6 };
	ULONG ret = 0;
	TRACEHANDLE lg;
	HANDLE h1, h2;

	fake_init(&f, 5, 2);
	memset(&u, 0xcc, sizeof(u));
	u.st.ProcessorNumber = 0;
	/* 8 GP counters: 8 + 12 * 8 */
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcCounterOwners, &u, 0x67, &ret),
			  ERROR_BAD_LENGTH);
	ck_assert_uint_eq(ret, 0x68);
	ck_assert_uint_eq(u.b[8], 0xcc);
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcCounterOwners, NULL, 0x68, &ret),
			  ERROR_INVALID_PARAMETER);
	u.st.ProcessorNumber = 2;
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcCounterOwners, &u, 0x68, &ret),
			  ERROR_INVALID_PARAMETER);

	lg = start(u"owners", 0, TRACELOG_GUID_ENABLE);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, lg, instr_branch, 2),
			 STATUS_SUCCESS);
	h1 = hal_grant(1, 1u << 2, 0x5a5a);
	h2 = hal_grant(1, 1u << 3, 0);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c, 1), STATUS_SUCCESS);

	u.st.ProcessorNumber = 1;
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcCounterOwners, &u, sizeof(u), &ret),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(ret, 0x68);
	ck_assert_uint_eq(u.st.ProcessorNumber, 1);
	ck_assert_uint_eq(u.st.NumberOfCounters, 8);
	expect_owner(&u.st, 0, EtwPmcOwnerTaggedWithSource, ProfileInstructionRetired, lg);
	expect_owner(&u.st, 1, EtwPmcOwnerTaggedWithSource, ProfileBranchInstructions, lg);
	expect_owner(&u.st, 2, EtwPmcOwnerTagged, 0, 0x5a5a);
	expect_owner(&u.st, 3, EtwPmcOwnerUntagged, 0, 0);
	expect_owner(&u.st, 4, EtwPmcOwnerFree, 0, 0);
	expect_owner(&u.st, 5, EtwPmcOwnerFree, 0, 0);
	expect_owner(&u.st, 6, EtwPmcOwnerUntagged, 0, 0);
	expect_owner(&u.st, 7, EtwPmcOwnerFree, 0, 0);
	ck_assert_uint_eq(u.b[0x68], 0xcc);
	/* processor 0: only ETW and thread profiling */
	u.st.ProcessorNumber = 0;
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcCounterOwners, &u, 0x68, &ret),
			  ERROR_SUCCESS);
	expect_owner(&u.st, 0, EtwPmcOwnerTaggedWithSource, ProfileInstructionRetired, lg);
	expect_owner(&u.st, 2, EtwPmcOwnerFree, 0, 0);
	expect_owner(&u.st, 3, EtwPmcOwnerFree, 0, 0);
	expect_owner(&u.st, 6, EtwPmcOwnerUntagged, 0, 0);

	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h1), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h2), STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(lg), STATUS_SUCCESS);
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcCounterOwners, &u, 0x68, &ret),
			  ERROR_SUCCESS);
	for (unsigned int i = 0; i < 8; i++)
		expect_owner(&u.st, i, EtwPmcOwnerFree, 0, 0);
	fake_exit(&f);
}
END_TEST

/* Query 27: one blob per logger with PMC counting configured. */
START_TEST(test_trace_pmc_sessions)
{
	CLASSIC_EVENT_ID ev[2] = { classic(perfinfo_guid, PMC_INTERRUPT_EVENT_TYPE),
				   classic(process_guid, 1) };
	uint8_t buf[256];
	const ETW_PMC_SESSION_INFO *si;
	const ULONG *src;
	const USHORT *hook;
	ULONG ret = 99;
	TRACEHANDLE a, kl, none;

	fake_init(&f, 5, 1);
	/* nothing configured: empty */
	none = start(u"none", 0, TRACELOG_GUID_ENABLE);
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcSessionInformation, NULL, 0, &ret),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(ret, 0);

	a = start(u"a", 0, TRACELOG_GUID_ENABLE);
	ck_assert_int_eq(set_sources(EventTraceProfileCounterListInformation, a, instr_branch, 2),
			 STATUS_SUCCESS);
	kl = start(KERNEL_LOGGER_NAMEW, 0, TRACELOG_GUID_ENABLE);
	ck_assert_uint_eq(TraceSetInformation(kl, TracePmcEventListInfo, ev, sizeof(ev)),
			  ERROR_SUCCESS);
	/* a: 0x10 + 8 + 2 -> 0x20; kernel logger: 0x10 + 4 -> 0x18 */
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcSessionInformation, NULL, 0, &ret),
			  ERROR_BAD_LENGTH);
	ck_assert_uint_eq(ret, 0x38);
	memset(buf, 0xcc, sizeof(buf));
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcSessionInformation, buf, 0x37, &ret),
			  ERROR_BAD_LENGTH);
	ck_assert_uint_eq(buf[0], 0xcc);
	ck_assert_uint_eq(TraceQueryInformation(0, TracePmcSessionInformation, buf, sizeof(buf),
						&ret), ERROR_SUCCESS);
	ck_assert_uint_eq(ret, 0x38);
	si = (const void *)buf;
	ck_assert_uint_eq(si->NextEntryOffset, 0x20);
	ck_assert_uint_eq(si->LoggerId, a);
	ck_assert_uint_eq(si->ProfileSourceCount, 2);
	ck_assert_uint_eq(si->HookIdCount, 1);
	src = (const ULONG *)(si + 1);
	ck_assert_uint_eq(src[0], ProfileInstructionRetired);
	ck_assert_uint_eq(src[1], ProfileBranchInstructions);
	hook = (const USHORT *)(src + 2);
	ck_assert_uint_eq(hook[0], PERFINFO_LOG_TYPE_CONTEXTSWAP);
	si = (const void *)(buf + 0x20);
	ck_assert_uint_eq(si->NextEntryOffset, 0);
	ck_assert_uint_eq(si->LoggerId, KERNEL_LOGGER_ID);
	ck_assert_uint_eq(si->ProfileSourceCount, 0);
	ck_assert_uint_eq(si->HookIdCount, 2);
	hook = (const USHORT *)(si + 1);
	ck_assert_uint_eq(hook[0], PERFINFO_LOG_TYPE_PMC_INTERRUPT);
	ck_assert_uint_eq(hook[1], EVENT_TRACE_GROUP_PROCESS | 1);
	ck_assert_uint_eq(buf[0x38], 0xcc);

	ck_assert_int_eq(ntpmu_logger_stop(a), STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(kl), STATUS_SUCCESS);
	ck_assert_int_eq(ntpmu_logger_stop(none), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

static Suite *ntpmu_etw_suite(void)
{
	Suite *s = suite_create("ntpmu_etw");
	TCase *tc = tcase_create("etw");

	tcase_add_test(tc, test_etw_header_checks);
	tcase_add_loop_test(tc, test_etw_rule_order, 0, 2);
	tcase_add_test(tc, test_etw_unsupported_source);
	tcase_add_test(tc, test_etw_cpu_rollback);
	tcase_add_test(tc, test_etw_no_pmu);
	tcase_add_test(tc, test_etw_loggers);
	tcase_add_test(tc, test_etw_cswitch_counters);
	tcase_add_test(tc, test_etw_buffer_full);
	tcase_add_test(tc, test_etw_profile_samples);
	tcase_add_test(tc, test_etw_v1);
	tcase_add_test(tc, test_trace_set_checks);
	tcase_add_test(tc, test_trace_query_sources);
	tcase_add_test(tc, test_etw_event_list_rules);
	tcase_add_test(tc, test_trace_event_list);
	tcase_add_test(tc, test_etw_event_list_counters);
	tcase_add_test(tc, test_etw_event_list_cswitch);
	tcase_add_test(tc, test_trace_pmc_owners);
	tcase_add_test(tc, test_trace_pmc_sessions);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_etw_suite)
