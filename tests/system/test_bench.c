/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The benchmark guests and pmuvm's benchmark-only hook, run tiny
 * so that `make bench` cannot rot unnoticed.  No timing is checked here:
 * only that each guest passes, that PMUVM_BENCH_RAW_STEP=1 steps the same
 * instructions without counting them, and that PMUVM_BENCH_TIMING=1 puts
 * its times in the report.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

/* vcpus[0].KEY (a dotted path) of a report; fails the test if it is not there. */
static long long report_vcpu0(const char *path, const char *key)
{
	json_object *root = report_load(path);
	char full[128];
	long long val;

	snprintf(full, sizeof(full), "vcpus.0.%s", key);
	val = json_object_get_int64(json_get(root, full));
	json_object_put(root);
	return val;
}

START_TEST(test_bench_raw_step_hook)
{
	static const char *const raw_env[] = { "PMUVM_BENCH_RAW_STEP=1", "PMUVM_BENCH_TIMING=1",
						NULL };
	const char *counted_rep = "counted.json", *raw_rep = "raw.json";
	struct pmuvm_result r;
	long long counted_steps;

	REQUIRE_KVM();
	/* The guest asserts the exact count, 200 loop instructions + 13, stepped. */
	pmuvm_run(&r, "--exact", "step", "--timeout", "60", "--report", tmp_path(counted_rep), "--append",
		  "sizes=200 reps=1", guest_path("bench_exact"));
	expect_guest_pass(&r, "bench_exact");
	ck_assert_msg(strstr(r.out, "bench: exact size=200 rep=0 insns=213 "), "%s", r.out);
	pmuvm_result_free(&r);
	counted_steps = report_vcpu0(tmp_path(counted_rep), "debug.exact.steps");
	ck_assert_int_ge(counted_steps, 213);

	pmuvm_run_env(&r, raw_env, 120, (const char *const[]){ "--timeout", "60", "--report",
		      tmp_path(raw_rep), "--append", "sizes=200 reps=1 raw=1",
		      guest_path("bench_exact"), NULL });
	expect_guest_pass(&r, "bench_exact raw");
	ck_assert_msg(strstr(r.out, "bench: exact size=200 rep=0 insns=0 "), "%s", r.out);
	pmuvm_result_free(&r);
	ck_assert_int_eq(report_vcpu0(tmp_path(raw_rep), "debug.exact.steps"), counted_steps);
	ck_assert_int_gt(report_vcpu0(tmp_path(raw_rep), "debug.bench.kvm_run_ns"), 0);
	ck_assert_int_gt(report_vcpu0(tmp_path(raw_rep), "debug.bench.vmm_ns"), 0);
}
END_TEST

START_TEST(test_bench_guests_run)
{
	struct pmuvm_result r;
	char tsc[64], app[128];
	json_object *root;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", "--report", tmp_path("msr.json"), "--append",
		  "n=10 reps=1", guest_path("bench_msr"));
	expect_guest_pass(&r, "bench_msr");
	ck_assert_msg(strstr(r.out, "bench: msr rep=0 n=10 "), "%s", r.out);
	pmuvm_result_free(&r);
	/*
	 * The real TSC rate, as make bench passes it: a rate too low makes the
	 * 10 kHz period shorter than a PMI handler's tail where KVM emulates
	 * CPL0, which the clock source counts as user time (vmm/clock/clock.c):
	 * at 1 GHz on a 2.6 GHz kvm_pvm host every PMI came before the loop ran.
	 */
	root = report_load(tmp_path("msr.json"));
	snprintf(tsc, sizeof(tsc), "tsc_khz=%llu",
		 (unsigned long long)json_u64(root, "config.pmu.tsc_khz"));
	json_object_put(root);

	snprintf(app, sizeof(app), "%s iters=100000 reps=1", tsc);
	pmuvm_run(&r, "--timeout", "60", "--cpus", "2", "--append", app, guest_path("bench_sample"));
	expect_guest_pass(&r, "bench_sample");
	ck_assert_msg(strstr(r.out, "bench: sample rep=0 freq=10000 cpu=1 "), "%s", r.out);
	pmuvm_result_free(&r);

	snprintf(app, sizeof(app), "%s pmis=3 period_us=1000", tsc);
	pmuvm_run(&r, "--timeout", "60", "--append", app, guest_path("bench_pmi"));
	expect_guest_pass(&r, "bench_pmi");
	ck_assert_msg(strstr(r.out, "bench: pmi_latency i=2 "), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *bench_suite(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("bench");

	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_bench_raw_step_hook);
	tcase_add_test(tc, test_bench_guests_run);
	suite_add_tcase(s, tc);
	return s;
}
TEST_SUITE(bench_suite)
