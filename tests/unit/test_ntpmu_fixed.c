/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ntpmu's fixed counters as CPUID.0AH enumerates them (SDM vol. 2A, CPUID
 * leaf 0AH; docs/intel-pmu.md 1.2): the first EDX[4:0], and from version 5
 * also those ECX names, holes included; before version 5 ECX is reserved
 * and whatever it holds is ignored.  A counter that does not exist is
 * refused by HalAllocateHardwareCounters and never read for a profiled
 * thread; the ones around it work.
 */
#include <string.h>

#include "suite.h"
#include "nt/ntddk.h"
#include "nt/ntrtl.h"
#include "nt/winbase.h"
#include "ntpmu_fake.h"
#include "ntpmu_list.h"

#define FIXED(i)	(0x40000000u | (i))
#define APP		((void *)0x100)
#define RD_HW		READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS

static struct fake_platform f;

/* HalAllocateHardwareCounters of counters begin..end on every processor; freed again. */
static NTSTATUS hal_try(ULONG begin, ULONG end)
{
	struct counter_list4 l = begin == end ? counter_list_one(begin) :
						counter_list_range(begin, end);
	HANDLE h = NULL;
	NTSTATUS st;

	st = HalAllocateHardwareCounters(NULL, 0, counter_list(&l), &h);
	if (st == STATUS_SUCCESS)
		ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	else
		ck_assert_ptr_null(h);
	return st;
}

static void expect_cpuid(uint32_t ecx, unsigned int edx_fixed)
{
	uint32_t r[4];

	fake_ops.cpuid(&f, 0xa, 0, r);
	ck_assert_uint_eq(r[2], ecx);
	ck_assert_uint_eq(r[3] & 0x1f, edx_fixed);
}

static void expect_info(unsigned int version, uint32_t fixed_counters, unsigned int nr_fixed)
{
	struct ntpmu_pmu_info info;

	memset(&info, 0xa5, sizeof(info));
	ntpmu_pmu_info(&info);
	ck_assert_uint_eq(info.version, version);
	ck_assert_uint_eq(info.fixed_counters, fixed_counters);
	ck_assert_uint_eq(info.nr_fixed, nr_fixed);
	ck_assert_uint_eq(info.fixed_width, version >= 2 ? 48 : 0);
}

/*
 * Profile the current thread over fixed counters 0, 1 and 2 (configured in
 * that order), counting `insns` instructions and `ref` reference cycles:
 * the block keeps the counters that exist (bit i: configured counter i),
 * and each reads what its event counted, a missing one 0.
 */
static void profile_fixed(struct fake_thread *t, uint32_t exists, uint64_t insns, uint64_t ref)
{
	HARDWARE_COUNTER cfg[3] = {
		{ .Type = PMCCounter, .Index = FIXED(0) },
		{ .Type = PMCCounter, .Index = FIXED(1) },
		{ .Type = PMCCounter, .Index = FIXED(2) },
	};
	const THREAD_PERFORMANCE_DATA *blk;
	PERFORMANCE_DATA pd;
	HANDLE h = NULL;

	ck_assert_int_eq(KeSetHardwareCounterConfiguration(cfg, 3), STATUS_SUCCESS);
	for (unsigned int i = 0; i < 3; i++)
		if (exists >> i & 1)
			fake_program_fixed(&f, i);
	fake_thread_init(&f, t, APP);
	fake_switch(&f, 0, t);
	ck_assert_uint_eq(EnableThreadProfiling(NtCurrentThread(), 0, 0x7, &h), ERROR_SUCCESS);
	blk = h;
	ck_assert_uint_eq(blk->HardwareCounters, exists);
	fake_work(&f, PMU_EV_INSTRUCTIONS, insns);
	fake_work(&f, PMU_EV_REF_CYCLES, ref);

	memset(&pd, 0, sizeof(pd));
	pd.Size = sizeof(pd);
	pd.Version = PERFORMANCE_DATA_VERSION;
	ck_assert_uint_eq(ReadThreadProfilingData(h, RD_HW, &pd), ERROR_SUCCESS);
	ck_assert_uint_eq(pd.HwCountersCount, 3);
	ck_assert_uint_eq(pd.HwCounters[0].Value, exists & 1 ? insns : 0);
	ck_assert_uint_eq(pd.HwCounters[1].Value, 0);	/* cycles: no work counted */
	ck_assert_uint_eq(pd.HwCounters[2].Value, exists & 4 ? ref : 0);
	ck_assert_uint_eq(DisableThreadProfiling(h), ERROR_SUCCESS);
	fake_switch(&f, 0, NULL);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
}

/* Version 5, EDX[4:0] = 0, ECX = 0x5: fixed counters 0 and 2, not 1. */
START_TEST(test_fixed_v5_bitmap_with_hole)
{
	struct fake_thread t;

	fake_init_fixed(&f, 5, 2, 0, 0x5, 0);
	expect_cpuid(0x5, 0);
	expect_info(5, 0x5, 3);

	ck_assert_int_eq(hal_try(FIXED(0), FIXED(0)), STATUS_SUCCESS);
	ck_assert_int_eq(hal_try(FIXED(1), FIXED(1)), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(hal_try(FIXED(2), FIXED(2)), STATUS_SUCCESS);
	ck_assert_int_eq(hal_try(FIXED(3), FIXED(3)), STATUS_INVALID_PARAMETER);
	/* A range over the hole names a counter that does not exist. */
	ck_assert_int_eq(hal_try(FIXED(0), FIXED(2)), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(hal_try(0, 7), STATUS_SUCCESS);

	profile_fixed(&t, 0x5, 100, 40);
	fake_exit(&f);
}
END_TEST

/*
 * Version 5 with EDX[4:0] = 1 and ECX = 0x4, which leaves counter 0 to
 * EDX: counters 0 and 2 (the vPMU itself names counter 0 in ECX too).
 */
START_TEST(test_fixed_v5_edx_and_ecx)
{
	struct fake_thread t;

	fake_init_fixed(&f, 5, 1, 1, 0x4, 0x1);
	expect_cpuid(0x4, 1);
	expect_info(5, 0x5, 3);
	ck_assert_int_eq(hal_try(FIXED(1), FIXED(1)), STATUS_INVALID_PARAMETER);
	profile_fixed(&t, 0x5, 7, 3);
	fake_exit(&f);
}
END_TEST

/* Version 4: ECX is reserved; set bits there name no counter. */
START_TEST(test_fixed_v4_ignores_ecx)
{
	struct fake_thread t;

	fake_init_fixed(&f, 4, 2, 2, 0, 0xfffffffcu);
	expect_cpuid(0xfffffffcu, 2);
	expect_info(4, 0x3, 2);

	ck_assert_int_eq(hal_try(FIXED(0), FIXED(1)), STATUS_SUCCESS);
	ck_assert_int_eq(hal_try(FIXED(2), FIXED(2)), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(hal_try(FIXED(15), FIXED(15)), STATUS_INVALID_PARAMETER);

	profile_fixed(&t, 0x3, 50, 20);
	fake_exit(&f);
}
END_TEST

/* Version 1 has no fixed counters, whatever EDX and ECX hold. */
START_TEST(test_fixed_v1_none)
{
	fake_init_fixed(&f, 1, 1, 0, 0, 0x7);
	expect_info(1, 0, 0);
	ck_assert_int_eq(hal_try(FIXED(0), FIXED(0)), STATUS_INVALID_PARAMETER);
	fake_exit(&f);
}
END_TEST

static Suite *ntpmu_fixed_suite(void)
{
	Suite *s = suite_create("ntpmu_fixed");
	TCase *tc = tcase_create("cpuid_0a");

	tcase_add_test(tc, test_fixed_v5_bitmap_with_hole);
	tcase_add_test(tc, test_fixed_v5_edx_and_ecx);
	tcase_add_test(tc, test_fixed_v4_ignores_ecx);
	tcase_add_test(tc, test_fixed_v1_none);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_fixed_suite)
