/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Thread profiling (docs/windows-api.md 3.2-3.5): EnableThreadProfiling & co. and
 * PERFORMANCE_DATA, with context switches simulated on the fake platform.
 * Counts are exact: the vPMU counts exactly what fake_work() reports.
 */
#include <string.h>

#include "suite.h"
#include "nt/ntddk.h"
#include "nt/ntrtl.h"
#include "nt/winbase.h"
#include "ntpmu_fake.h"

#define JUNK_INIT	((HANDLE)0x1234)
#define APP_X	((void *)0x100)
#define APP_Y	((void *)0x200)
#define RD_ALL	(READ_THREAD_PROFILING_FLAG_DISPATCHING | \
		 READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)

static struct fake_platform f;
static struct fake_thread a, b, c;

/* Configuration: [0] GP0 instructions, [1] GP1 branches, [2] fixed 1 cycles. */
static void setup(void)
{
	HARDWARE_COUNTER cfg[3] = {
		{ .Type = PMCCounter, .Index = 0 },
		{ .Type = PMCCounter, .Index = 1 },
		{ .Type = PMCCounter, .Index = 0x40000001 },
	};

	fake_init(&f, 5, 2);
	fake_thread_init(&f, &a, APP_X);
	fake_thread_init(&f, &b, APP_X);
	fake_thread_init(&f, &c, APP_Y);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(cfg, 3), STATUS_SUCCESS);
	fake_program_gp(&f, 0, PMU_EVENT_INSTRUCTIONS);
	fake_program_gp(&f, 1, PMU_EVENT_BRANCHES);
	fake_program_fixed(&f, 1);
}

static void teardown(void)
{
	fake_exit(&f);
}

static void pd_init(PERFORMANCE_DATA *pd)
{
	memset(pd, 0, sizeof(*pd));
	pd->Size = sizeof(*pd);
	pd->Version = PERFORMANCE_DATA_VERSION;
}

static PERFORMANCE_DATA read_all(HANDLE h)
{
	PERFORMANCE_DATA pd;

	pd_init(&pd);
	ck_assert_uint_eq(ReadThreadProfilingData(h, RD_ALL, &pd), ERROR_SUCCESS);
	return pd;
}

static HANDLE enable(DWORD flags, DWORD64 counters)
{
	HANDLE h = NULL;

	ck_assert_uint_eq(EnableThreadProfiling(NtCurrentThread(), flags, counters, &h),
			  ERROR_SUCCESS);
	ck_assert_ptr_nonnull(h);
	return h;
}

START_TEST(test_thread_counts_exclude_other_threads)
{
	PERFORMANCE_DATA pd;
	HANDLE ha, hb;

	fake_switch(&f, 0, &a);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 1000);	/* before enabling: not counted */
	f.tsc = 1000;
	ha = enable(THREAD_PROFILING_FLAG_DISPATCH, 0x7);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 100);
	fake_work(&f, PMU_EV_BRANCHES, 10);
	fake_work(&f, PMU_EV_CORE_CYCLES, 300);
	f.tsc += 5;

	fake_switch(&f, 0, &b);
	hb = enable(THREAD_PROFILING_FLAG_DISPATCH, 0x1);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 1000);
	fake_work(&f, PMU_EV_BRANCHES, 7);
	f.tsc += 7;
	pd = read_all(hb);
	ck_assert_uint_eq(pd.HwCountersCount, 3);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 1000);
	ck_assert_uint_eq(pd.HwCounters[1].Value, 0);	/* bit 1 not requested */
	ck_assert_uint_eq(pd.CycleTime, 7);
	ck_assert_uint_eq(pd.ContextSwitchCount, 0);

	/* A comes back on the other processor. */
	fake_switch(&f, 0, NULL);
	fake_switch(&f, 1, &a);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 50);
	fake_work(&f, PMU_EV_CORE_CYCLES, 20);
	f.tsc += 3;
	pd = read_all(ha);
	ck_assert_uint_eq(pd.HwCountersCount, 3);
	ck_assert_int_eq(pd.HwCounters[0].Type, PMCCounter);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 150);
	ck_assert_uint_eq(pd.HwCounters[1].Value, 10);
	ck_assert_uint_eq(pd.HwCounters[2].Value, 320);
	ck_assert_uint_eq(pd.CycleTime, 8);
	ck_assert_uint_eq(pd.ContextSwitchCount, 1);
	ck_assert_uint_eq(pd.RetryCount, 0);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);

	fake_switch(&f, 1, &b);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 1);
	pd = read_all(hb);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 1001);
	ck_assert_uint_eq(pd.ContextSwitchCount, 1);
	ck_assert_uint_eq(DisableThreadProfiling(hb), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_wait_reasons_since_last_read)
{
	PERFORMANCE_DATA pd;
	HANDLE ha;

	fake_switch(&f, 0, &a);
	ha = enable(THREAD_PROFILING_FLAG_DISPATCH, 0);
	a.wait_reason = DelayExecution;
	fake_switch(&f, 0, &b);
	fake_switch(&f, 0, &a);
	a.wait_reason = WrPreempted;
	fake_switch(&f, 0, NULL);
	fake_switch(&f, 0, &a);
	a.wait_reason = -1;		/* still runnable: no reason */
	fake_switch(&f, 0, &b);
	fake_switch(&f, 0, &a);
	pd = read_all(ha);
	ck_assert_uint_eq(pd.WaitReasonBitMap, BIT_ULL(DelayExecution) | BIT_ULL(WrPreempted));
	ck_assert_uint_eq(pd.ContextSwitchCount, 3);
	ck_assert_uint_eq(pd.HwCountersCount, 3);	/* nothing requested, count still set */
	pd = read_all(ha);
	ck_assert_uint_eq(pd.WaitReasonBitMap, 0);
	ck_assert_uint_eq(pd.ContextSwitchCount, 3);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_no_dispatch_flag)
{
	PERFORMANCE_DATA pd;
	HANDLE ha;

	fake_switch(&f, 0, &a);
	ha = enable(0, 0x1);
	a.wait_reason = Executive;
	fake_switch(&f, 0, &b);
	fake_switch(&f, 0, &a);
	pd = read_all(ha);
	ck_assert_uint_eq(pd.ContextSwitchCount, 0);
	ck_assert_uint_eq(pd.WaitReasonBitMap, 0);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_read_flags_select_fields)
{
	PERFORMANCE_DATA pd;
	HANDLE ha;

	fake_switch(&f, 0, &a);
	ha = enable(THREAD_PROFILING_FLAG_DISPATCH, 0x25);	/* bit 5: not configured */
	fake_work(&f, PMU_EV_INSTRUCTIONS, 9);
	fake_switch(&f, 0, &b);
	fake_switch(&f, 0, &a);
	f.tsc = 4;

	/* Elements of unset or unconfigured bits are left as the caller had them. */
	pd_init(&pd);
	memset(pd.HwCounters, 0xee, sizeof(pd.HwCounters));
	pd.ContextSwitchCount = 0xdead;
	pd.HwCountersCount = 0x77;
	ck_assert_uint_eq(ReadThreadProfilingData(ha, 0, &pd), ERROR_SUCCESS);
	ck_assert_uint_eq(pd.CycleTime, 4);		/* always filled */
	ck_assert_uint_eq(pd.ContextSwitchCount, 0xdead);
	ck_assert_uint_eq(pd.HwCountersCount, 0x77);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 0xeeeeeeeeeeeeeeeeULL);

	ck_assert_uint_eq(ReadThreadProfilingData(ha, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS,
						  &pd), ERROR_SUCCESS);
	ck_assert_uint_eq(pd.ContextSwitchCount, 0xdead);
	ck_assert_uint_eq(pd.HwCountersCount, 3);
	ck_assert_int_eq(pd.HwCounters[0].Type, PMCCounter);
	ck_assert_uint_eq(pd.HwCounters[0].Reserved, 0);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 9);
	ck_assert_uint_eq(pd.HwCounters[1].Value, 0xeeeeeeeeeeeeeeeeULL);
	ck_assert_uint_eq(pd.HwCounters[2].Value, 0);
	ck_assert_uint_eq(pd.HwCounters[5].Value, 0xeeeeeeeeeeeeeeeeULL);

	ck_assert_uint_eq(ReadThreadProfilingData(ha, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(pd.ContextSwitchCount, 1);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_read_checks)
{
	PERFORMANCE_DATA pd;
	HANDLE ha;

	fake_switch(&f, 0, &a);
	ha = enable(0, 1);
	/* Size, then Version, then Flags (docs/windows-api.md 3.5), then the handle. */
	pd_init(&pd);
	pd.Size = sizeof(pd) - 1;
	pd.Version = 2;
	ck_assert_uint_eq(ReadThreadProfilingData(NULL, 4, &pd), ERROR_INVALID_USER_BUFFER);
	ck_assert_int_eq(RtlReadThreadProfilingData(NULL, 4, &pd), STATUS_INVALID_BUFFER_SIZE);
	pd.Size = sizeof(pd);
	ck_assert_int_eq(RtlReadThreadProfilingData(NULL, 4, &pd), STATUS_INVALID_PARAMETER_3);
	ck_assert_uint_eq(ReadThreadProfilingData(NULL, 4, &pd), ERROR_INVALID_PARAMETER);
	pd.Version = 1;
	ck_assert_int_eq(RtlReadThreadProfilingData(NULL, 4, &pd), STATUS_INVALID_PARAMETER_2);
	ck_assert_int_eq(RtlReadThreadProfilingData(NULL, 3, &pd), STATUS_INVALID_HANDLE);
	ck_assert_uint_eq(ReadThreadProfilingData(NULL, 3, &pd), ERROR_INVALID_HANDLE);
	ck_assert_int_eq(RtlReadThreadProfilingData(ha, 3, NULL), STATUS_INVALID_PARAMETER_3);
	/* Another thread's handle: only the current thread reads its data. */
	fake_switch(&f, 0, &b);
	ck_assert_uint_eq(ReadThreadProfilingData(ha, 3, &pd), ERROR_INVALID_HANDLE);
	fake_switch(&f, 0, &a);
	ck_assert_uint_eq(ReadThreadProfilingData(ha, 3, &pd), ERROR_SUCCESS);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_enable_checks)
{
	HANDLE h = JUNK_INIT;

	fake_switch(&f, 0, &a);
	ck_assert_int_eq(RtlEnableThreadProfiling(NtCurrentThread(), 2, 0x10000, &h),
			 STATUS_INVALID_PARAMETER_2);
	ck_assert_int_eq(RtlEnableThreadProfiling(NtCurrentThread(), 0, 0x10000, &h),
			 STATUS_INVALID_PARAMETER_3);
	ck_assert_uint_eq(EnableThreadProfiling(NtCurrentThread(), 0, 0x10000, &h),
			  ERROR_INVALID_PARAMETER);
	ck_assert_int_eq(RtlEnableThreadProfiling(NtCurrentThread(), 0, 0, NULL),
			 STATUS_INVALID_PARAMETER_4);
	/* Only the current thread. */
	ck_assert_int_eq(RtlEnableThreadProfiling(&b, 0, 0, &h), STATUS_INVALID_PARAMETER_1);
	ck_assert_uint_eq(EnableThreadProfiling(&b, 0, 0, &h), ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(EnableThreadProfiling((HANDLE)0x999, 0, 0, &h), ERROR_INVALID_HANDLE);
	ck_assert_ptr_eq(h, JUNK_INIT);
	ck_assert_int_eq(f.live_allocs, 0);
	/* The thread's own real handle works like NtCurrentThread(). */
	ck_assert_uint_eq(EnableThreadProfiling(&a, 0, 0xffff, &h), ERROR_SUCCESS);
	ck_assert_uint_eq(EnableThreadProfiling(&a, 0, 0, &h), ERROR_WMI_ALREADY_ENABLED);
	ck_assert_int_eq(f.live_allocs, 1);
	ck_assert_uint_eq(DisableThreadProfiling(h), ERROR_SUCCESS);
	ck_assert_int_eq(f.live_allocs, 0);

	f.alloc_fail_in = 1;
	ck_assert_uint_eq(EnableThreadProfiling(&a, 0, 0, &h), ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_int_eq(f.live_allocs, 0);
	ck_assert_uint_eq(EnableThreadProfiling(&a, 0, 0, &h), ERROR_SUCCESS);
	ck_assert_uint_eq(DisableThreadProfiling(h), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_one_application)
{
	HANDLE ha, hb, hc;
	BOOLEAN on = 9;

	fake_switch(&f, 0, &a);
	ha = enable(0, 1);
	fake_switch(&f, 1, &b);
	hb = enable(0, 1);		/* same application: fine */
	fake_switch(&f, 1, &c);
	ck_assert_uint_eq(EnableThreadProfiling(NtCurrentThread(), 0, 1, &hc),
			  ERROR_WMI_ALREADY_ENABLED);
	ck_assert_uint_eq(QueryThreadProfiling(NtCurrentThread(), &on), ERROR_SUCCESS);
	ck_assert_uint_eq(on, FALSE);
	ck_assert_uint_eq(QueryThreadProfiling(&a, &on), ERROR_SUCCESS);
	ck_assert_uint_eq(on, TRUE);
	ck_assert_uint_eq(QueryThreadProfiling(&a, NULL), ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(QueryThreadProfiling((HANDLE)0x999, &on), ERROR_INVALID_HANDLE);

	fake_switch(&f, 0, &a);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
	fake_switch(&f, 1, &c);
	ck_assert_uint_eq(EnableThreadProfiling(NtCurrentThread(), 0, 1, &hc),
			  ERROR_WMI_ALREADY_ENABLED);
	fake_switch(&f, 1, &b);
	ck_assert_uint_eq(DisableThreadProfiling(hb), ERROR_SUCCESS);
	fake_switch(&f, 1, &c);
	hc = enable(0, 1);
	ck_assert_uint_eq(DisableThreadProfiling(hc), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_disable_checks)
{
	HANDLE ha, hb;
	BOOLEAN on;

	fake_switch(&f, 0, &a);
	ha = enable(0, 1);
	ck_assert_uint_eq(DisableThreadProfiling(NULL), ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(DisableThreadProfiling((HANDLE)((char *)ha + 8)), ERROR_INVALID_HANDLE);
	fake_switch(&f, 1, &b);
	hb = enable(0, 1);
	ck_assert_int_eq(RtlDisableThreadProfiling(ha), STATUS_INVALID_HANDLE);
	ck_assert_uint_eq(QueryThreadProfiling(&a, &on), ERROR_SUCCESS);
	ck_assert_uint_eq(on, TRUE);
	ck_assert_uint_eq(DisableThreadProfiling(hb), ERROR_SUCCESS);
	ck_assert_uint_eq(DisableThreadProfiling(hb), ERROR_INVALID_HANDLE);
	fake_switch(&f, 0, &a);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
	ck_assert_uint_eq(QueryThreadProfiling(&a, &on), ERROR_SUCCESS);
	ck_assert_uint_eq(on, FALSE);
}
END_TEST

START_TEST(test_thread_user_rdpmc)
{
	PERFORMANCE_DATA pd;
	HANDLE ha, hb;

	f.user_mode = true;		/* reads come from CPL3: RDPMC needs CR4.PCE */
	fake_switch(&f, 0, &a);
	ha = enable(0, 0x1);
	ck_assert(f.pce[0]);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 5);
	pd = read_all(ha);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 5);

	fake_switch(&f, 0, &b);
	ck_assert(!f.pce[0]);
	hb = enable(0, 0);		/* no counters: no RDPMC needed */
	ck_assert(!f.pce[0]);
	pd = read_all(hb);
	fake_switch(&f, 0, &a);
	ck_assert(f.pce[0]);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
	ck_assert(!f.pce[0]);
	fake_switch(&f, 0, &b);
	ck_assert_uint_eq(DisableThreadProfiling(hb), ERROR_SUCCESS);

	/* A reader without PCE faults on RDPMC: reported, not crashed. */
	fake_switch(&f, 0, &a);
	ha = enable(0, 0x1);
	f.pce[0] = false;
	pd_init(&pd);
	ck_assert_int_eq(RtlReadThreadProfilingData(ha, RD_ALL, &pd), STATUS_PRIVILEGED_INSTRUCTION);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

/*
 * The kernel reads the counters at CPL0 whatever CR4.PCE says: at enable
 * (PCE still off) and when the thread is switched in (PCE is set after).
 * A fake that let those reads fault hid it: Start stayed 0, which matched
 * the counter only because nothing had counted yet.
 */
START_TEST(test_thread_kernel_reads_without_pce)
{
	PERFORMANCE_DATA pd;
	HANDLE ha;

	f.user_mode = true;
	fake_switch(&f, 0, &a);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 1000);	/* before enabling: not A's */
	ck_assert(!f.pce[0]);
	ha = enable(0, 0x1);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 5);
	pd = read_all(ha);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 5);

	fake_switch(&f, 0, &b);
	ck_assert(!f.pce[0]);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 100);	/* B's */
	fake_switch(&f, 0, &a);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 7);
	pd = read_all(ha);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 12);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

/* Preempts the reader once: A out, B runs 1000 instructions, A back in. */
static void preempt_reader(struct fake_platform *p)
{
	fake_switch(p, 0, &b);
	fake_work(p, PMU_EV_INSTRUCTIONS, 1000);
	fake_switch(p, 0, &a);
}

START_TEST(test_thread_read_retries)
{
	PERFORMANCE_DATA pd;
	HANDLE ha;

	fake_switch(&f, 0, &a);
	ha = enable(THREAD_PROFILING_FLAG_DISPATCH, 0x1);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 42);
	f.rdpmc_hook = preempt_reader;
	pd = read_all(ha);
	ck_assert_uint_eq(pd.RetryCount, 1);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 42);
	ck_assert_uint_eq(pd.ContextSwitchCount, 1);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_empty_config_and_absent_counters)
{
	HARDWARE_COUNTER cfg[2] = {
		{ .Type = PMCCounter, .Index = 20 },	/* no such counter */
		{ .Type = PMCCounter, .Index = 0 },
	};
	PERFORMANCE_DATA pd;
	HANDLE ha;

	fake_switch(&f, 0, &a);
	ck_assert_int_eq(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	ha = enable(0, 0x3);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 3);
	pd_init(&pd);
	ck_assert_uint_eq(ReadThreadProfilingData(ha, RD_ALL, &pd), ERROR_SUCCESS);
	ck_assert_uint_eq(pd.HwCountersCount, 0);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 0);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);

	ck_assert_int_eq(KeSetHardwareCounterConfiguration(cfg, 2), STATUS_SUCCESS);
	ha = enable(0, 0x3);
	fake_work(&f, PMU_EV_INSTRUCTIONS, 3);
	pd_init(&pd);
	pd.HwCounters[0].Value = 0x55;
	ck_assert_uint_eq(ReadThreadProfilingData(ha, RD_ALL, &pd), ERROR_SUCCESS);
	ck_assert_uint_eq(pd.HwCountersCount, 2);
	ck_assert_uint_eq(pd.HwCounters[0].Value, 0x55);
	ck_assert_uint_eq(pd.HwCounters[1].Value, 3);
	ck_assert_uint_eq(DisableThreadProfiling(ha), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_exit_without_disable)
{
	HANDLE ha;
	HANDLE hc;

	fake_switch(&f, 0, &a);
	ha = enable(0, 1);
	ck_assert_ptr_nonnull(ha);
	fake_switch(&f, 0, NULL);
	ntpmu_thread_exit(&a);
	ck_assert_ptr_null(a.slot);
	ck_assert_int_eq(f.live_allocs, 0);
	/* The application no longer profiles: another may. */
	fake_switch(&f, 0, &c);
	hc = enable(0, 1);
	ck_assert_uint_eq(DisableThreadProfiling(hc), ERROR_SUCCESS);
}
END_TEST

START_TEST(test_thread_status_to_dos_error)
{
	ck_assert_uint_eq(RtlNtStatusToDosError(STATUS_SUCCESS), ERROR_SUCCESS);
	ck_assert_uint_eq(RtlNtStatusToDosError(STATUS_NOT_IMPLEMENTED), ERROR_INVALID_FUNCTION);
	ck_assert_uint_eq(RtlNtStatusToDosError(STATUS_INSUFFICIENT_RESOURCES),
			  ERROR_NO_SYSTEM_RESOURCES);
	ck_assert_uint_eq(RtlNtStatusToDosError(STATUS_BUFFER_TOO_SMALL), ERROR_INSUFFICIENT_BUFFER);
	ck_assert_uint_eq(RtlNtStatusToDosError(STATUS_WMI_ALREADY_ENABLED),
			  ERROR_WMI_ALREADY_ENABLED);
	ck_assert_uint_eq(RtlNtStatusToDosError(STATUS_NOT_SUPPORTED), ERROR_NOT_SUPPORTED);
	ck_assert_uint_eq(RtlNtStatusToDosError((NTSTATUS)0xC0FFEE00), ERROR_MR_MID_NOT_FOUND);
}
END_TEST

static Suite *ntpmu_thread_suite(void)
{
	Suite *s = suite_create("ntpmu_thread");
	TCase *tc = tcase_create("profiling");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_thread_counts_exclude_other_threads);
	tcase_add_test(tc, test_thread_wait_reasons_since_last_read);
	tcase_add_test(tc, test_thread_no_dispatch_flag);
	tcase_add_test(tc, test_thread_read_flags_select_fields);
	tcase_add_test(tc, test_thread_read_checks);
	tcase_add_test(tc, test_thread_enable_checks);
	tcase_add_test(tc, test_thread_one_application);
	tcase_add_test(tc, test_thread_disable_checks);
	tcase_add_test(tc, test_thread_user_rdpmc);
	tcase_add_test(tc, test_thread_kernel_reads_without_pce);
	tcase_add_test(tc, test_thread_read_retries);
	tcase_add_test(tc, test_thread_empty_config_and_absent_counters);
	tcase_add_test(tc, test_thread_exit_without_disable);
	tcase_add_test(tc, test_thread_status_to_dos_error);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_thread_suite)
