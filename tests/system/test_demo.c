/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The demo guest (guest-shim/demo/, make run) on each PMU it can be given:
 * it names the vendor's PMU as CPUID describes it, counts a loop's
 * instructions exactly and some cycles with it through rt/pmc.h, and fails
 * (status 3) where there is no PMU.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

#define LOOP_LINE "demo: a loop of 1000 iterations (DEC, JNZ) at CPL0: "

static void expect_line(const struct pmuvm_result *r, const char *line)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s\n", line);
	ck_assert_msg(strstr(r->out, buf), "missing line '%s' in:\n%s", line, r->out);
}

/* The loop's line: exactly 2000 instructions, and some cycles. */
static void expect_loop_counted(const struct pmuvm_result *r)
{
	const char *l = strstr(r->out, LOOP_LINE);
	unsigned long long insns, cycles;

	ck_assert_msg(l && sscanf(l + strlen(LOOP_LINE),
				  "%llu instructions (2000 expected), %llu cycles",
				  &insns, &cycles) == 2, "no loop line in:\n%s", r->out);
	ck_assert_uint_eq(insns, 2000);
	ck_assert_uint_gt(cycles, 0);
}

START_TEST(test_demo_intel)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu", "intel", "--cpus", "2", "--timeout", "60", guest_path("demo"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "demo: 2 cpus");
	expect_line(&r, "demo: intel pmu (GenuineIntel)");
	expect_line(&r, "demo: pmu version 5, 8 gp counters x 48 bits, "
			"3 fixed counters x 48 bits");
	expect_loop_counted(&r);
	ck_assert_msg(strstr(r.out, "demo: pebs profile, instructions retired every 101"),
		      "no PEBS profile in:\n%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

/* Version 5's fixed counters 0 and 2 (CPUID.0AH:EDX[4:0] 0, ECX 0x5): two, not three. */
START_TEST(test_demo_intel_fixed_hole)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu", "intel", "--pmu-version", "5", "--fixed-counters", "0",
		  "--fixed-counter-mask", "0x5", "--timeout", "60", guest_path("demo"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "demo: pmu version 5, 8 gp counters x 48 bits, "
			"2 fixed counters x 48 bits");
	expect_loop_counted(&r);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_demo_amd)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu", "amd", "--timeout", "60", guest_path("demo"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "demo: amd pmu (AuthenticAMD)");
	ck_assert_msg(strstr(r.out, "(PerfCtrExtCore 1); cpuid 0x80000022: eax=0x00000001 "
				    "ebx=0x00000006 (PerfMonV2 1)\n"),
		      "no PerfMonV2 line in:\n%s", r.out);
	expect_line(&r, "demo: pmu version 2, 6 gp counters x 48 bits, 0 fixed counters x 0 bits");
	expect_loop_counted(&r);
	expect_line(&r, "demo: pebs: not supported on this CPU");
	pmuvm_result_free(&r);
}
END_TEST

/* A K10: the four legacy counters, which no CPUID bit announces. */
START_TEST(test_demo_amd_legacy)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu", "amd", "--pmu-version", "1", "--gp-counters", "4",
		  "--timeout", "60", guest_path("demo"));
	expect_guest_pass(&r, __func__);
	ck_assert_msg(strstr(r.out, "(PerfCtrExtCore 0)"), "no CPUID line in:\n%s", r.out);
	expect_line(&r, "demo: pmu version 1, 4 gp counters x 48 bits, 0 fixed counters x 0 bits");
	expect_loop_counted(&r);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_demo_no_pmu_fails)
{
	struct pmuvm_result r;
	json_object *done;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu", "none", "--timeout", "60", guest_path("demo"));
	ck_assert_msg(r.status == 3, "status %d (want 3: main returned 1)\n%s\n%s", r.status,
		      r.out, r.err);
	ck_assert_msg(strstr(r.out, "demo: no PMU on this ") &&
		      strstr(r.out, " CPU: nothing to count with\n"), "output:\n%s", r.out);
	expect_line(&r, "FAIL: main returned 1");
	ck_assert_ptr_null(strstr(r.out, "PASS"));
	done = guest_results_find(r.report, "done", NULL);
	ck_assert_msg(done, "no done result in the report");
	ck_assert_int_eq(json_u64(done, "status"), 1);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *demo_suite(void)
{
	Suite *s = suite_create("demo");
	TCase *tc = tcase_create("pmus");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_demo_intel);
	tcase_add_test(tc, test_demo_intel_fixed_hole);
	tcase_add_test(tc, test_demo_amd);
	tcase_add_test(tc, test_demo_amd_legacy);
	tcase_add_test(tc, test_demo_no_pmu_fails);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(demo_suite)
