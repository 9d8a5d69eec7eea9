/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest results through the ucall port end to end (docs/guest-sdk.md,
 * "Guest results (ucall)"): what pmuvm decodes, prints and reports for each kind of guest
 * failure (tests/guests/ucall_fail.c), and that hostile ucalls
 * (tests/guests/ucall_hostile.c) are refused one by one with a warning
 * while pmuvm keeps running and reading only guest RAM.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

/* Each invalid ucall ucall_hostile sends, in order: where its message was, and why. */
enum hostile_gpa { GPA_NONE, GPA_MSG, GPA_IS };

static const struct {
	enum hostile_gpa where;	/* none (a bad port access), the guest's message, or gpa */
	uint64_t gpa;
	const char *reason;
} hostile[] = {
	{ GPA_IS, 64u << 20, "the 368-byte message is not all in guest RAM" },
	{ GPA_IS, (64u << 20) - 100, "the 368-byte message is not all in guest RAM" },
	{ GPA_IS, 0xfee00000, "the 368-byte message is not all in guest RAM" },
	{ GPA_IS, 0xffffffff, "the 368-byte message is not all in guest RAM" },
	{ GPA_MSG, 0, "bad magic 0x00000000" },
	{ GPA_MSG, 0, "unknown command 0xdeadbeef" },
	{ GPA_MSG, 0, "4294967295 values (at most 4)" },
	{ GPA_MSG, 0, "file name without its NUL" },
	{ GPA_MSG, 0, "text without its NUL" },
	{ GPA_MSG, 0, "ok without a name" },
	{ GPA_MSG, 0, "done with 0 values (wants 1)" },
	{ GPA_NONE, 0, "a 1-byte OUT to port 0x7e0 (a ucall is one 4-byte OUT to 0x7e0)" },
	{ GPA_NONE, 0, "a 2-byte OUT to port 0x7e2" },
	{ GPA_NONE, 0, "a 4-byte OUT to port 0x7e1" },
};

#define NR_HOSTILE	(sizeof(hostile) / sizeof(hostile[0]))

static unsigned int count(const char *text, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

START_TEST(test_ucall_hostile)
{
	struct pmuvm_result r;
	json_object *guest, *results, *res, *gpa;
	const char *line;
	char why[1024];
	uint64_t msg;
	size_t i;

	REQUIRE_KVM();
	pmuvm_run(&r, "--mem", "64M", "--timeout", "60", guest_path("ucall_hostile"));
	/* pmuvm kept running: the guest got to its end and exited by itself. */
	ck_assert_msg(r.status == GUEST_PASS, "status %d\nstdout:\n%s\nstderr:\n%s", r.status,
		      r.out, r.err);
	ck_assert_ptr_nonnull(r.report);
	guest = json_get(r.report, "guest");
	ck_assert_uint_eq(json_u64(guest, "invalid"), NR_HOSTILE);
	ck_assert_uint_eq(expect_guest_value(&r, "ucall_hostile invalid sent", 0), NR_HOSTILE);
	msg = expect_guest_value(&r, "ucall_hostile message", 0);
	/* The invalid ones, the odd name, the message, the count, the ok and main()'s return. */
	ck_assert_uint_eq(json_u64(guest, "ucalls"), NR_HOSTILE + 5);
	ck_assert_uint_eq(json_u64(guest, "dropped"), 0);
	results = json_get(guest, "results");
	ck_assert_uint_eq(json_object_array_length(results), NR_HOSTILE + 5);
	for (i = 0; i < NR_HOSTILE; i++) {
		res = json_object_array_get_idx(results, i);
		ck_assert_str_eq(json_object_get_string(json_get(res, "kind")), "invalid");
		ck_assert_int_eq(json_object_get_int(json_get(res, "vcpu")), 0);
		ck_assert_msg(strstr(json_object_get_string(json_get(res, "reason")),
				     hostile[i].reason), "result %zu: %s", i,
			      json_object_get_string(res));
		/* null when there was no message, a bad port access */
		ck_assert_msg(json_object_object_get_ex(res, "gpa", &gpa), "result %zu", i);
		if (hostile[i].where == GPA_NONE)
			ck_assert_ptr_null(gpa);
		else
			ck_assert_uint_eq(json_hex(res, "gpa"),
					  hostile[i].where == GPA_MSG ? msg : hostile[i].gpa);
	}
	ck_assert_ptr_nonnull(guest_results_find(r.report, "value", "evil??[2Jname"));
	expect_guest_ok(&r, "ucall_hostile");
	/* A run with invalid ucalls is no pass, even though main() returned 0. */
	ck_assert_uint_eq(json_u64(json_object_array_get_idx(results, NR_HOSTILE + 4), "status"), 0);
	ck_assert_ptr_nonnull(guest_results_why_not(r.report, why, sizeof(why)));
	ck_assert_msg(strstr(why, "invalid ucall: invalid: the 368-byte message"), "%s", why);

	/* Warned one line each up to 8, one line for the rest; nothing else on stderr. */
	ck_assert_uint_eq(count(r.err, "pmuvm: warning: guest: invalid ucall from vCPU 0: "), 8);
	ck_assert_uint_eq(count(r.err, "pmuvm: warning: guest: more invalid ucalls; further ones "
				"are only counted (report: guest.invalid)\n"), 1);
	ck_assert_uint_eq(count(r.err, "\n"), 9);
	for (line = r.err; line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		ck_assert_msg(!*line || !strncmp(line, "pmuvm: warning: guest: ", 23), "stderr: %s",
			      r.err);
	}
	ck_assert_msg(!strstr(r.err, "Sanitizer") && !strstr(r.err, "runtime error"), "%s", r.err);
	pmuvm_result_free(&r);
}
END_TEST

static const struct {
	const char *args[6];
	int status;		/* pmuvm's */
	int vcpu;		/* of the failure */
	const char *fail;	/* the decoded line after "FAIL tests/guests/ucall_fail.c:LINE: " */
} fail_cases[] = {
	{ { "--append", "mode=0" }, (1 << 1) | 1, 0, "seen == 0x2a + 1 (0x2a, 0x2b)" },
	{ { "--append", "mode=1" }, (1 << 1) | 1, 0, "formatted 7" },
	{ { "--append", "mode=2" }, (1 << 1) | 1, 0, "unexpected exception 6 (#UD) on cpu 0 (0x6, 0x0, " },
	{ { "--append", "mode=3", "--cpus", "2" }, (1 << 1) | 1, 1, "rt_cpu_id() == 0" },
	{ { "--append", "mode=4" }, (1 << 1) | 1, 0, NULL },
};

START_TEST(test_ucall_guest_failures)
{
	const char *argv[12];
	char want[256], why[1024];
	struct pmuvm_result r;
	json_object *fail;
	unsigned int n = 0, i;
	uint64_t line = 0;

	REQUIRE_KVM();
	argv[n++] = "-v";
	argv[n++] = "--timeout";
	argv[n++] = "60";
	for (i = 0; i < 6 && fail_cases[_i].args[i]; i++)
		argv[n++] = fail_cases[_i].args[i];
	argv[n++] = guest_path("ucall_fail");
	argv[n] = NULL;
	ck_assert_int_eq(pmuvm_run_env(&r, NULL, 120, argv), 0);
	ck_assert_msg(r.status == fail_cases[_i].status, "status %d\nstdout:\n%s\nstderr:\n%s",
		      r.status, r.out, r.err);
	expect_guest_ok(&r, "ucall_fail started");
	ck_assert_msg(strstr(r.err, "pmuvm: guest: ok - ucall_fail started\n"), "-v: %s", r.err);
	ck_assert_ptr_nonnull(guest_results_why_not(r.report, why, sizeof(why)));
	fail = guest_results_find(r.report, "fail", NULL);
	if (!fail_cases[_i].fail) {
		/* main() returned 5: no failure, a "done" that says so. */
		ck_assert_ptr_null(fail);
		ck_assert_str_eq(why, "done: main() returned 5 on vCPU 0");
		ck_assert_msg(strstr(r.err, "pmuvm: guest: done, main returned 5\n"), "%s", r.err);
		pmuvm_result_free(&r);
		return;
	}
	ck_assert_ptr_nonnull(fail);
	ck_assert_ptr_null(guest_results_find(r.report, "done", NULL));
	ck_assert_int_eq(json_object_get_int(json_get(fail, "vcpu")), fail_cases[_i].vcpu);
	if (strncmp(fail_cases[_i].fail, "unexpected", 10)) {
		line = expect_guest_value(&r, "fail line", 0);
		ck_assert_str_eq(json_object_get_string(json_get(fail, "file")),
				 "tests/guests/ucall_fail.c");
		ck_assert_uint_eq(json_u64(fail, "line"), line);
		snprintf(want, sizeof(want), "FAIL tests/guests/ucall_fail.c:%llu: %s",
			 (unsigned long long)line, fail_cases[_i].fail);
	} else {
		snprintf(want, sizeof(want), ": %s", fail_cases[_i].fail);
	}
	/* What pmuvm prints (without -v too) and what a Check failure message shows. */
	ck_assert_msg(strstr(r.err, want), "stderr lacks '%s':\n%s", want, r.err);
	ck_assert_msg(strstr(why, want) && !strncmp(why, "guest assertion failed: FAIL ", 29),
		      "'%s' lacks '%s'", why, want);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *ucall_system_suite(void)
{
	Suite *s = suite_create("ucall_guest");
	TCase *tc = tcase_create("guest");

	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, test_ucall_hostile);
	tcase_add_loop_test(tc, test_ucall_guest_failures, 0,
			    sizeof(fail_cases) / sizeof(fail_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ucall_system_suite)
