/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KeSetHardwareCounterConfiguration / KeQueryHardwareCounterConfiguration
 * (docs/windows-api.md 1.2-1.3) on the fake platform.
 */
#include <string.h>

#include "suite.h"
#include "nt/ntddk.h"
#include "nt/winbase.h"
#include "ntpmu_fake.h"

static struct fake_platform f;

static void hc(HARDWARE_COUNTER *c, ULONG64 index)
{
	*c = (HARDWARE_COUNTER){ .Type = PMCCounter, .Index = index };
}

static void single(PHYSICAL_COUNTER_RESOURCE_LIST *l, ULONG index)
{
	*l = (PHYSICAL_COUNTER_RESOURCE_LIST){ .Count = 1 };
	l->Descriptors[0].Type = ResourceTypeSingle;
	l->Descriptors[0].u.CounterIndex = index;
}

START_TEST(test_ke_no_pmu)
{
	HARDWARE_COUNTER c[MAX_HW_COUNTERS + 1] = { 0 };
	ULONG n = 77;

	fake_init(&f, 0, 2);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 1), STATUS_NOT_IMPLEMENTED);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_NOT_IMPLEMENTED);
	/* NOT_IMPLEMENTED comes before the parameter checks. */
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, MAX_HW_COUNTERS + 1),
			 STATUS_NOT_IMPLEMENTED);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(c, 16, &n), STATUS_NOT_IMPLEMENTED);
	ck_assert_uint_eq(n, 77);
	fake_exit(&f);
}
END_TEST

START_TEST(test_ke_boot_default_empty)
{
	ULONG n = 77;

	fake_init(&f, 5, 2);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(NULL, 0, &n), STATUS_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(NULL, 0, NULL),
			 STATUS_INVALID_PARAMETER);
	fake_exit(&f);
}
END_TEST

START_TEST(test_ke_count_limit)
{
	HARDWARE_COUNTER c[MAX_HW_COUNTERS + 1];
	ULONG i, n;

	fake_init(&f, 5, 1);
	for (i = 0; i <= MAX_HW_COUNTERS; i++)
		hc(&c[i], i % 8);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, MAX_HW_COUNTERS + 1),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 1), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(NULL, 0, &n), STATUS_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, MAX_HW_COUNTERS), STATUS_SUCCESS);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(NULL, 0, &n), STATUS_BUFFER_TOO_SMALL);
	ck_assert_uint_eq(n, MAX_HW_COUNTERS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_ke_set_query_copy)
{
	HARDWARE_COUNTER c[3], out[4];
	ULONG n = 0;

	fake_init(&f, 5, 2);
	hc(&c[0], 2);
	hc(&c[1], 0x40000001);
	/* Only the low 32 bits of Index are kept; Type/Reserved not validated. */
	c[2] = (HARDWARE_COUNTER){ .Type = MaxHardwareCounterType, .Reserved = 9,
				   .Index = 0x100000005ULL };
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 3), STATUS_SUCCESS);
	/* The array was copied. */
	hc(&c[0], 7);

	memset(out, 0xaa, sizeof(out));
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(out, 2, &n), STATUS_BUFFER_TOO_SMALL);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(out[0].Index, 0xaaaaaaaaaaaaaaaaULL);	/* nothing written */

	f.cur = 1;	/* global: every processor sees the same configuration */
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(out, 4, &n), STATUS_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(out[0].Type, PMCCounter);
	ck_assert_uint_eq(out[0].Reserved, 0);
	ck_assert_uint_eq(out[0].Index, 2);
	ck_assert_uint_eq(out[1].Index, 0x40000001);
	ck_assert_int_eq(out[2].Type, PMCCounter);
	ck_assert_uint_eq(out[2].Reserved, 0);
	ck_assert_uint_eq(out[2].Index, 5);
	ck_assert_uint_eq(out[3].Index, 0xaaaaaaaaaaaaaaaaULL);
	fake_exit(&f);
}
END_TEST

START_TEST(test_ke_replace_through_empty)
{
	HARDWARE_COUNTER c[2], out[2];
	ULONG n;

	fake_init(&f, 5, 2);
	hc(&c[0], 0);
	hc(&c[1], 1);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 1), STATUS_SUCCESS);
	/* A non-empty configuration is installed: its counters are enabled. */
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c[1], 1), STATUS_WMI_ALREADY_ENABLED);
	/* The Count check comes before the in-use check. */
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c[1], MAX_HW_COUNTERS + 1),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(out, 2, &n), STATUS_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(out[0].Index, 0);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(out, 2, &n), STATUS_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c[1], 1), STATUS_SUCCESS);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(out, 2, &n), STATUS_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(out[0].Index, 1);
	/* The empty configuration can always be set again. */
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_ke_conflict_with_hal)
{
	PHYSICAL_COUNTER_RESOURCE_LIST l;
	GROUP_AFFINITY cpu1 = { .Mask = 2 };
	HARDWARE_COUNTER c[2];
	HANDLE h, full;

	fake_init(&f, 5, 2);
	single(&l, 3);
	ck_assert_int_eq(HalAllocateHardwareCounters(&cpu1, 1, &l, &h), STATUS_SUCCESS);
	hc(&c[0], 4);
	hc(&c[1], 3);	/* held on processor 1 only: still in use */
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 2), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 1), STATUS_SUCCESS);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 2), STATUS_SUCCESS);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);

	/* The whole PMU held: every counter is in use. */
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, NULL, &full), STATUS_SUCCESS);
	hc(&c[0], 0x40000002);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 1), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(full), STATUS_SUCCESS);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(c, 1), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_ke_conflict_with_profiling)
{
	struct fake_thread a;
	HARDWARE_COUNTER c;
	HANDLE pd;

	fake_init(&f, 5, 1);
	fake_thread_init(&f, &a, NULL);
	fake_switch(&f, 0, &a);
	ck_assert_uint_eq(EnableThreadProfiling(NtCurrentThread(), 0, 0, &pd), ERROR_SUCCESS);
	hc(&c, 0);
	/* "Call this routine only when thread profiling is disabled." */
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c, 1), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_WMI_ALREADY_ENABLED);
	ck_assert_uint_eq(DisableThreadProfiling(pd), ERROR_SUCCESS);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c, 1), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_ke_absent_counter_accepted)
{
	HARDWARE_COUNTER c;
	PHYSICAL_COUNTER_RESOURCE_LIST l;
	HANDLE h;
	ULONG n;

	/* Indices are not validated (docs/windows-api.md 1.2); a counter the PMU lacks claims nothing. */
	fake_init(&f, 5, 1);
	hc(&c, 30);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(&c, 1), STATUS_SUCCESS);
	ck_assert_int_eq(KeQueryHardwareCounterConfiguration(&c, 1, &n), STATUS_SUCCESS);
	ck_assert_uint_eq(c.Index, 30);
	single(&l, 7);
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, &l, &h), STATUS_SUCCESS);
	ck_assert_int_eq(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

static Suite *ntpmu_ke_suite(void)
{
	Suite *s = suite_create("ntpmu_ke");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, test_ke_no_pmu);
	tcase_add_test(tc, test_ke_boot_default_empty);
	tcase_add_test(tc, test_ke_count_limit);
	tcase_add_test(tc, test_ke_set_query_copy);
	tcase_add_test(tc, test_ke_replace_through_empty);
	tcase_add_test(tc, test_ke_conflict_with_hal);
	tcase_add_test(tc, test_ke_conflict_with_profiling);
	tcase_add_test(tc, test_ke_absent_counter_accepted);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_ke_suite)
