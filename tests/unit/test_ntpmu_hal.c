/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * HalAllocateHardwareCounters / HalFreeHardwareCounters (docs/windows-api.md 2.2-2.5) and
 * the PMI dispatch to overflow handlers, on the fake platform.
 */
#include <string.h>

#include "suite.h"
#include "nt/ntddk.h"
#include "nt/ntexapi.h"
#include "x86-pmu/msr.h"
#include "ntpmu_fake.h"
#include "ntpmu_list.h"

#define FULL0	((HANDLE)(ULONG_PTR)0x80000000u)
#define JUNK	((HANDLE)(ULONG_PTR)0x1234)

static struct fake_platform f;

static NTSTATUS alloc(GROUP_AFFINITY *ga, ULONG n, struct counter_list4 *l, HANDLE *h)
{
	*h = JUNK;
	return HalAllocateHardwareCounters(ga, n, l ? counter_list(l) : NULL, h);
}

START_TEST(test_hal_params)
{
	GROUP_AFFINITY ga = { .Mask = 1 };
	struct counter_list4 l = counter_list_one(0);
	HANDLE h;

	fake_init(&f, 5, 2);
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, NULL, NULL), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 1, counter_list(&l), NULL),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(alloc(NULL, 1, &l, &h), STATUS_INVALID_PARAMETER);
	ck_assert_ptr_null(h);
	ck_assert_int_eq(alloc(&ga, 0, &l, &h), STATUS_INVALID_PARAMETER);
	ck_assert_ptr_null(h);
	ga = (GROUP_AFFINITY){ .Mask = 1, .Group = 1 };	/* only group 0 exists */
	ck_assert_int_eq(alloc(&ga, 1, &l, &h), STATUS_INVALID_PARAMETER);
	ga = (GROUP_AFFINITY){ .Mask = 4 };		/* processor 2 does not exist */
	ck_assert_int_eq(alloc(&ga, 1, &l, &h), STATUS_INVALID_PARAMETER);
	ck_assert_ptr_null(h);
	ck_assert_int_eq(HalFreeHardwareCounters(NULL), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(HalFreeHardwareCounters((HANDLE)(LONG_PTR)-1), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(HalFreeHardwareCounters(JUNK), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(HalFreeHardwareCounters(FULL0), STATUS_INVALID_PARAMETER);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_full_pmu)
{
	struct counter_list4 l = counter_list_one(5);
	HANDLE h, h2;

	fake_init(&f, 5, 2);
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_SUCCESS);
	ck_assert_ptr_eq(h, FULL0);
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h2), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(h2);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h2), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(h2);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h2), STATUS_SUCCESS);
	/* One counter held: the whole PMU is not available. */
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(HalFreeHardwareCounters(h2), STATUS_SUCCESS);
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_SUCCESS);
	ck_assert_ptr_eq(h, (HANDLE)(ULONG_PTR)0x80000001u);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_no_pmu)
{
	struct counter_list4 l = counter_list_one(0);
	HANDLE h;

	fake_init(&f, 0, 1);
	/* The full-PMU path needs no profile interface (docs/windows-api.md 2.4)... */
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_SUCCESS);
	ck_assert_ptr_eq(h, FULL0);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	/* ...the resource-list path does, before looking at the list. */
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(h);
	l.Descriptors[0].Type = ResourceTypeExtendedCounterConfiguration;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INSUFFICIENT_RESOURCES);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_single_range_conflicts)
{
	struct counter_list4 l;
	HANDLE a, b, c;

	fake_init(&f, 5, 2);
	l = counter_list_one(0);
	ck_assert_int_eq(alloc(NULL, 0, &l, &a), STATUS_SUCCESS);
	ck_assert_ptr_nonnull(a);
	l = counter_list_range(0, 1);
	ck_assert_int_eq(alloc(NULL, 0, &l, &b), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(b);
	l = counter_list_range(1, 3);
	ck_assert_int_eq(alloc(NULL, 0, &l, &b), STATUS_SUCCESS);
	l = counter_list_one(2);
	ck_assert_int_eq(alloc(NULL, 0, &l, &c), STATUS_INSUFFICIENT_RESOURCES);
	l = counter_list_one(0x40000000);
	ck_assert_int_eq(alloc(NULL, 0, &l, &c), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(b), STATUS_SUCCESS);
	l = counter_list_one(2);
	ck_assert_int_eq(alloc(NULL, 0, &l, &b), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(a), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(b), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(c), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(c), STATUS_INVALID_PARAMETER);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_affinity)
{
	GROUP_AFFINITY cpu0 = { .Mask = 1 }, cpu1 = { .Mask = 2 };
	GROUP_AFFINITY both[2] = { { .Mask = 1 }, { .Mask = 2, .Group = 1 } };
	struct counter_list4 l = counter_list_one(0);
	HANDLE a, b, c;

	fake_init(&f, 5, 2);
	ck_assert_int_eq(alloc(&cpu0, 1, &l, &a), STATUS_SUCCESS);
	ck_assert_int_eq(alloc(&cpu1, 1, &l, &b), STATUS_SUCCESS);
	ck_assert_int_eq(alloc(NULL, 0, &l, &c), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(HalFreeHardwareCounters(b), STATUS_SUCCESS);
	/* Group 1 entries add nothing; processor 0 is still taken. */
	ck_assert_int_eq(alloc(both, 2, &l, &c), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(HalFreeHardwareCounters(a), STATUS_SUCCESS);
	ck_assert_int_eq(alloc(both, 2, &l, &c), STATUS_SUCCESS);
	/* ...so processor 1 stayed free. */
	ck_assert_int_eq(alloc(&cpu1, 1, &l, &b), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(b), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(c), STATUS_SUCCESS);

	/* No resource list: the whole PMU of the affinity's processors. */
	ck_assert_int_eq(alloc(&cpu0, 1, NULL, &a), STATUS_SUCCESS);
	ck_assert_ptr_ne(a, FULL0);
	l = counter_list_one(0x40000002);
	ck_assert_int_eq(alloc(&cpu0, 1, &l, &b), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(alloc(&cpu1, 1, &l, &b), STATUS_SUCCESS);
	ck_assert_int_eq(alloc(NULL, 0, NULL, &c), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(HalFreeHardwareCounters(a), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(b), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

static void handler_a(ULONGLONG bits, HANDLE owner);
static void eb_handler(PVOID buf, SIZE_T entry, SIZE_T n, HANDLE owner);

START_TEST(test_hal_descriptor_checks)
{
	struct counter_list4 l;
	HANDLE h;

	fake_init(&f, 5, 1);	/* 8 GP, 3 fixed counters */
	l = counter_list_one(8);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_one(0x40000003);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_range(3, 2);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_range(6, 0x40000000);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_range(6, 8);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_one(0);
	l.Descriptors[0].Flags = 1;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_one(0);
	l.Count = 0;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_one(0);
	l.Descriptors[0].Type = ResourceTypeMax;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_one(0);
	l.Descriptors[0].Type = ResourceTypeExtendedCounterConfiguration;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_NOT_SUPPORTED);
	ck_assert_ptr_null(h);
	l = counter_list_one(0);
	counter_list_add(&l, ResourceTypeEventBuffer)->u.EventBufferConfiguration =
		(PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION){ .OverflowHandler = eb_handler,
							       .EventThreshold = 4 };
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_NOT_SUPPORTED);	/* no PEBS */
	l = counter_list_one(0);
	counter_list_add(&l, ResourceTypeOverflow);		/* NULL handler */
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = counter_list_one(0);
	counter_list_add(&l, ResourceTypeOverflow)->u.OverflowHandler = handler_a;
	counter_list_add(&l, ResourceTypeOverflow)->u.OverflowHandler = handler_a;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);

	/* The first bad descriptor decides. */
	l = counter_list_one(0);
	l.Descriptors[0].Type = ResourceTypeExtendedCounterConfiguration;
	counter_list_add(&l, ResourceTypeSingle)->Flags = 1;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_NOT_SUPPORTED);
	l = counter_list_one(0);
	l.Descriptors[0].Flags = 1;
	counter_list_add(&l, ResourceTypeExtendedCounterConfiguration);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);

	/* Nothing was granted by any of these. */
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);

	/* An identification tag is accepted with the counters. */
	l = counter_list_range(0x40000000, 0x40000002);
	counter_list_add(&l, ResourceTypeIdenitificationTag)->u.IdentificationTag = 0x1234;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_overflow_v1_not_supported)
{
	struct counter_list4 l = counter_list_one(0);
	HANDLE h;

	fake_init(&f, 1, 1);
	counter_list_add(&l, ResourceTypeOverflow)->u.OverflowHandler = handler_a;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_NOT_SUPPORTED);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_alloc_failure_rolls_back)
{
	struct counter_list4 l = counter_list_range(0, 7);
	HANDLE h;

	fake_init(&f, 5, 2);
	f.alloc_fail_in = 1;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(h);
	f.alloc_fail_in = 1;
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(h);
	/* Nothing stayed claimed, and the full-PMU handle was not consumed. */
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_SUCCESS);
	ck_assert_ptr_eq(h, FULL0);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_conflict_with_profiling_config)
{
	HARDWARE_COUNTER c = { .Type = PMCCounter, .Index = 1 };
	struct counter_list4 l = counter_list_one(1);
	HANDLE h;

	fake_init(&f, 5, 2);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c, 1), STATUS_SUCCESS);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_int_eq(alloc(NULL, 0, NULL, &h), STATUS_INSUFFICIENT_RESOURCES);
	l = counter_list_range(0, 2);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INSUFFICIENT_RESOURCES);
	l = counter_list_one(2);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	l = counter_list_one(1);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

/* Overflow handlers: calls recorded here. */
static struct {
	unsigned int calls;
	ULONGLONG bits;
	HANDLE owner;
	unsigned int cpu;
} seen;

static void handler_a(ULONGLONG bits, HANDLE owner)
{
	seen.calls++;
	seen.bits = bits;
	seen.owner = owner;
	seen.cpu = f.cur;
}

static void wr(unsigned int cpu, uint32_t msr, uint64_t v)
{
	ck_assert_int_eq(vpmu_wrmsr(&f.pmu[cpu], msr, v), VPMU_OK);
}

static uint64_t rd(unsigned int cpu, uint32_t msr)
{
	uint64_t v;

	ck_assert_int_eq(vpmu_rdmsr(&f.pmu[cpu], msr, &v), VPMU_OK);
	return v;
}

/* GP counter idx on cpu: 10 instructions before it wraps, PMI on overflow. */
static void arm(unsigned int cpu, unsigned int idx)
{
	wr(cpu, MSR_IA32_PERFEVTSEL0 + idx, PMU_EVENT_INSTRUCTIONS | EVTSEL_EN | EVTSEL_USR |
	   EVTSEL_INT);
	wr(cpu, MSR_IA32_A_PMC0 + idx, 0xfffffffffff6ULL);
	wr(cpu, MSR_IA32_PERF_GLOBAL_CTRL, rd(cpu, MSR_IA32_PERF_GLOBAL_CTRL) | BIT_ULL(idx));
}

START_TEST(test_hal_overflow_handler)
{
	struct counter_list4 l = counter_list_range(0, 1), other = counter_list_one(2);
	HANDLE h, h2, h3;

	fake_init(&f, 5, 2);
	memset(&seen, 0, sizeof(seen));
	counter_list_add(&l, ResourceTypeOverflow)->u.OverflowHandler = handler_a;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_SUCCESS);
	/* The overflow interrupt is one resource per processor. */
	counter_list_add(&other, ResourceTypeOverflow)->u.OverflowHandler = handler_a;
	ck_assert_int_eq(alloc(NULL, 0, &other, &h2), STATUS_INSUFFICIENT_RESOURCES);
	other = counter_list_one(2);
	ck_assert_int_eq(alloc(NULL, 0, &other, &h2), STATUS_SUCCESS);

	arm(1, 1);
	arm(1, 2);
	f.cur = 1;
	fake_work(&f, PMU_EV_INSTRUCTIONS, 15);
	ck_assert(vpmu_take_pmi(&f.pmu[1]));
	ck_assert_uint_eq(rd(1, MSR_IA32_PERF_GLOBAL_STATUS), 0x6);
	ck_assert_uint_eq(ntpmu_pmi(), 0x6);
	/* Only the owner's counters, from the processor that overflowed. */
	ck_assert_uint_eq(seen.calls, 1);
	ck_assert_uint_eq(seen.bits, 0x2);
	ck_assert_ptr_eq(seen.owner, h);
	ck_assert_uint_eq(seen.cpu, 1);
	/* The HAL cleared the overflow state. */
	ck_assert_uint_eq(rd(1, MSR_IA32_PERF_GLOBAL_STATUS), 0);

	/* Another owner's counter alone: no call, still cleared. */
	wr(1, MSR_IA32_A_PMC0 + 2, 0xfffffffffffeULL);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 2);
	ck_assert_uint_eq(ntpmu_pmi(), 0x4);
	ck_assert_uint_eq(seen.calls, 1);
	ck_assert_uint_eq(rd(1, MSR_IA32_PERF_GLOBAL_STATUS), 0);

	/* Freed: no handler any more; the interrupt can be granted again. */
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	wr(1, MSR_IA32_A_PMC0 + 1, 0xfffffffffffeULL);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 2);
	ck_assert_uint_eq(ntpmu_pmi(), 0x2);
	ck_assert_uint_eq(seen.calls, 1);
	l = counter_list_one(0);
	counter_list_add(&l, ResourceTypeOverflow)->u.OverflowHandler = handler_a;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h3), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h3), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h2), STATUS_SUCCESS);
	/* No overflow pending: nothing to do. */
	ck_assert_uint_eq(ntpmu_pmi(), 0);
	fake_exit(&f);
}
END_TEST

/* ResourceTypeEventBuffer (guest-shim/ntpmu/ntpmu_evbuf.c). */
static struct {
	unsigned int calls;
	PVOID buf;
	SIZE_T entry, n;
	HANDLE owner;
} eb_seen;

static void eb_handler(PVOID buf, SIZE_T entry, SIZE_T n, HANDLE owner)
{
	eb_seen.calls++;
	eb_seen.buf = buf;
	eb_seen.entry = entry;
	eb_seen.n = n;
	eb_seen.owner = owner;
}

static struct counter_list4 event_buffer(ULONG threshold)
{
	struct counter_list4 l = counter_list_one(0);

	counter_list_add(&l, ResourceTypeEventBuffer)->u.EventBufferConfiguration =
		(PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION){ .OverflowHandler = eb_handler,
							       .EventThreshold = threshold };
	return l;
}

static uint64_t msr_on(unsigned int cpu, uint32_t msr)
{
	uint64_t v;

	ck_assert_int_eq(vpmu_rdmsr(&f.pmu[cpu], msr, &v), VPMU_OK);
	return v;
}

START_TEST(test_hal_event_buffer_checks)
{
	struct counter_list4 l;
	HANDLE h;

	fake_init_pebs(&f, 5, 1, 4);
	l = event_buffer(4);
	l.Descriptors[1].u.EventBufferConfiguration.OverflowHandler = NULL;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = event_buffer(4);
	l.Descriptors[1].u.EventBufferConfiguration.CustomEventBufferEntrySize = 0x20;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = event_buffer(0);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	l = event_buffer(4);
	counter_list_add(&l, ResourceTypeEventBuffer)->u.EventBufferConfiguration = l.Descriptors[1].u.EventBufferConfiguration;
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INVALID_PARAMETER);
	ck_assert_ptr_null(h);
	fake_exit(&f);

	fake_init(&f, 5, 1);		/* no PEBS */
	l = event_buffer(4);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_NOT_SUPPORTED);
	fake_exit(&f);
}
END_TEST

START_TEST(test_hal_event_buffer)
{
	GROUP_AFFINITY ga = { .Mask = 0x3 };
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA ca = { .Allocate = TRUE };
	const PEBS_DS_SAVE_AREA64 *ds[2];
	struct counter_list4 l = event_buffer(4), l2 = event_buffer(2);
	HANDLE h, h2;
	unsigned int c;

	fake_init_pebs(&f, 5, 3, 4);
	memset(&eb_seen, 0, sizeof(eb_seen));
	/* Adaptive records with the GPR group: 0x20 + 0x90 bytes each. */
	for (c = 0; c < 3; c++)
		ck_assert_int_eq(vpmu_wrmsr(&f.pmu[c], MSR_PEBS_DATA_CFG, PEBS_DATACFG_GPRS), VPMU_OK);
	ck_assert_int_eq(alloc(&ga, 1, &l, &h), STATUS_SUCCESS);
	ck_assert_ptr_nonnull(h);
	for (c = 0; c < 2; c++) {
		ds[c] = (const void *)(uintptr_t)msr_on(c, MSR_IA32_DS_AREA);
		ck_assert_ptr_nonnull(ds[c]);
		ck_assert_uint_eq((uintptr_t)ds[c] % 64, 0);
		ck_assert_uint_eq(ds[c]->PebsIndex, ds[c]->PebsBufferBase);
		ck_assert_uint_eq(ds[c]->PebsInterruptThreshold - ds[c]->PebsBufferBase, 4 * 0xb0);
		ck_assert(ds[c]->PebsAbsoluteMaximum >= ds[c]->PebsInterruptThreshold);
	}
	ck_assert_ptr_ne(ds[0], ds[1]);
	ck_assert_uint_eq(msr_on(2, MSR_IA32_DS_AREA), 0);	/* not in the affinity */

	/* Another event buffer or a control area on those processors conflicts. */
	ck_assert_int_eq(alloc(&ga, 1, &l2, &h2), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(h2);
	ck_assert_int_eq(NtSetSystemInformation(SystemProcessorProfileControlArea, &ca, sizeof(ca)),
			 STATUS_INSUFFICIENT_RESOURCES);

	/* CPU 1's buffer reaches its threshold: the PMI hands it over and it restarts. */
	f.cur = 1;
	((PEBS_DS_SAVE_AREA64 *)ds[1])->PebsIndex = ds[1]->PebsBufferBase + 4 * 0xb0;
	ck_assert_int_eq(vpmu_set_global_status_host(&f.pmu[1], GLOBAL_STATUS_BUFFER_OVF), 0);
	ntpmu_pmi();
	ck_assert_uint_eq(eb_seen.calls, 1);
	ck_assert_ptr_eq(eb_seen.buf, (PVOID)(uintptr_t)ds[1]->PebsBufferBase);
	ck_assert_uint_eq(eb_seen.entry, 0xb0);
	ck_assert_uint_eq(eb_seen.n, 4);
	ck_assert_ptr_eq(eb_seen.owner, h);
	ck_assert_uint_eq(ds[1]->PebsIndex, ds[1]->PebsBufferBase);
	ck_assert_uint_eq(msr_on(1, MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_BUFFER_OVF, 0);
	/* A PMI without bit 62 does not call it. */
	ck_assert_int_eq(vpmu_set_global_status_host(&f.pmu[1], 1), 0);
	ntpmu_pmi();
	ck_assert_uint_eq(eb_seen.calls, 1);

	/* Freeing clears IA32_DS_AREA on every processor of the grant. */
	f.cur = 0;
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	for (c = 0; c < 2; c++)
		ck_assert_uint_eq(msr_on(c, MSR_IA32_DS_AREA), 0);
	ck_assert_int_eq(alloc(&ga, 1, &l2, &h2), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h2), STATUS_SUCCESS);
	fake_exit(&f);	/* no leak */
}
END_TEST

START_TEST(test_hal_event_buffer_alloc_failure)
{
	struct counter_list4 l = event_buffer(8);
	HANDLE h;

	for (int n = 1; n <= 4; n++) {
		fake_init_pebs(&f, 5, 2, 3);
		f.alloc_fail_in = n;	/* the owner, its buffer table, each processor's buffer */
		ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_INSUFFICIENT_RESOURCES);
		ck_assert_ptr_null(h);
		ck_assert_uint_eq(msr_on(0, MSR_IA32_DS_AREA), 0);
		fake_exit(&f);		/* nothing leaked */
	}
	fake_init_pebs(&f, 5, 2, 3);
	ck_assert_int_eq(alloc(NULL, 0, &l, &h), STATUS_SUCCESS);
	ck_assert_uint_eq(((const PEBS_DS_SAVE_AREA64 *)(uintptr_t)msr_on(0, MSR_IA32_DS_AREA))
				  ->PebsInterruptThreshold -
			  ((const PEBS_DS_SAVE_AREA64 *)(uintptr_t)msr_on(0, MSR_IA32_DS_AREA))
				  ->PebsBufferBase, 8 * 0xc8);	/* format 3 records */
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

static Suite *ntpmu_hal_suite(void)
{
	Suite *s = suite_create("ntpmu_hal");
	TCase *tc = tcase_create("hal");

	tcase_add_test(tc, test_hal_params);
	tcase_add_test(tc, test_hal_full_pmu);
	tcase_add_test(tc, test_hal_no_pmu);
	tcase_add_test(tc, test_hal_single_range_conflicts);
	tcase_add_test(tc, test_hal_affinity);
	tcase_add_test(tc, test_hal_descriptor_checks);
	tcase_add_test(tc, test_hal_overflow_v1_not_supported);
	tcase_add_test(tc, test_hal_alloc_failure_rolls_back);
	tcase_add_test(tc, test_hal_conflict_with_profiling_config);
	tcase_add_test(tc, test_hal_overflow_handler);
	tcase_add_test(tc, test_hal_event_buffer_checks);
	tcase_add_test(tc, test_hal_event_buffer);
	tcase_add_test(tc, test_hal_event_buffer_alloc_failure);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_hal_suite)
