/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest runtime's threads, scheduler, allocator, cross-CPU calls and
 * CPL3 tasks (tests/guests/rt_threads.c) under pmuvm with 1 and 2 vCPUs.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

static const char *const both_cpus[] = {
	"rt alloc alignment",
	"rt alloc reuse and zeroing",
	"rt alloc exhaustion",
	"rt alloc fault injection",
	"rt threads yield and join",
	"rt thread creation without memory",
	"rt sleep, wait reasons, kernel preemption",
	"rt preempt cpl3 thread",
	"rt user threads and syscalls",
	"rt run_user with the scheduler",
	"rt on_each_cpu",
	"rt switch hook",
};

static const char *const two_cpus[] = {
	"rt preempt cpl3 thread on cpu 1",
	"rt spinlock contention",
	"rt threads on 2 cpus",
};

static void expect_line(const struct pmuvm_result *r, const char *line)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s\n", line);
	ck_assert_msg(strstr(r->out, buf), "missing line '%s' in:\n%s", line, r->out);
}

static void run_rt_threads(const char *cpus)
{
	struct pmuvm_result r;
	char line[256];
	int two = !strcmp(cpus, "2");

	pmuvm_run(&r, "--cpus", cpus, "--timeout", "30", guest_path("rt_threads"));
	expect_guest_pass(&r, cpus);
	snprintf(line, sizeof(line), "rt_threads: %s cpus", cpus);
	expect_line(&r, line);
	for (size_t i = 0; i < sizeof(both_cpus) / sizeof(both_cpus[0]); i++)
		expect_guest_ok(&r, both_cpus[i]);
	for (size_t i = 0; i < sizeof(two_cpus) / sizeof(two_cpus[0]); i++) {
		if (two) {
			expect_guest_ok(&r, two_cpus[i]);
		} else {
			ck_assert_ptr_null(guest_results_find(r.report, "ok", two_cpus[i]));
			snprintf(line, sizeof(line), "skip - %s (needs 2 cpus)", two_cpus[i]);
			expect_line(&r, line);
		}
	}
	ck_assert_str_eq(r.err, "");
	pmuvm_result_free(&r);
}

START_TEST(test_rt_threads_one_cpu)
{
	REQUIRE_KVM();
	run_rt_threads("1");
}
END_TEST

START_TEST(test_rt_threads_two_cpus)
{
	REQUIRE_KVM();
	run_rt_threads("2");
}
END_TEST

/* rt_panic() (rt/panic.h): its line and RT_EXIT_PANIC, (3 << 1) | 1. */
START_TEST(test_rt_panic)
{
	struct pmuvm_result r;
	char want[128], ptr[32];
	const char *at;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "30", guest_path("rt_panic"));
	ck_assert_msg(r.status == ((3 << 1) | 1), "status %d\nstdout:\n%s\nstderr:\n%s", r.status,
		      r.out, r.err);
	at = strstr(r.out, "rt_panic: freeing ");
	ck_assert_msg(at && sscanf(at, "rt_panic: freeing %31s twice", ptr) == 1, "%s", r.out);
	snprintf(want, sizeof(want), ": rt_free(%s): not an rt_alloc() pointer or freed twice\n",
		 ptr);
	at = strstr(r.out, "PANIC guest-shim/rt/alloc.c:");
	ck_assert_msg(at && strstr(at, want), "no PANIC line '%s' in:\n%s", want, r.out);
	ck_assert_msg(!strstr(r.out, "PASS") && !strstr(r.out, "FAIL"), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *rt_suite(void)
{
	Suite *s = suite_create("rt");
	TCase *tc = tcase_create("threads");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rt_threads_one_cpu);
	tcase_add_test(tc, test_rt_threads_two_cpus);
	tcase_add_test(tc, test_rt_panic);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(rt_suite)
