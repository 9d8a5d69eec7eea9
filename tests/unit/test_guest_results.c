/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The system tests' guest verdicts (tests/lib/guest_results.c) on reports
 * written by hand: a pass needs main()'s "done" with 0 and no failure or
 * invalid ucall, and a failure names file:line, expression and values.
 */
#include <stdio.h>
#include <string.h>

#include "guest_results.h"
#include "suite.h"

static json_object *report_of(const char *results)
{
	char text[4096];
	json_object *r;

	snprintf(text, sizeof(text), "{\"guest\": {\"ucalls\": 0, \"results\": [%s]}}", results);
	r = json_tokener_parse(text);
	ck_assert_msg(r, "bad test JSON: %s", text);
	return r;
}

#define OK_A	"{\"kind\": \"ok\", \"vcpu\": 0, \"name\": \"a\"}"
#define DONE_0	"{\"kind\": \"done\", \"vcpu\": 0, \"status\": 0}"
#define FAIL_EQ	"{\"kind\": \"fail\", \"vcpu\": 1, \"file\": \"tests/guests/x.c\", \"line\": 12, " \
		"\"expr\": \"a == b\", \"values\": [2, 18446744073709551615]}"
#define INVALID	"{\"kind\": \"invalid\", \"vcpu\": 0, \"gpa\": \"0xfee00000\", " \
		"\"reason\": \"the 368-byte message is not all in guest RAM\"}"

/* why_not(results) must be NULL (want == NULL) or contain want. */
static void expect_verdict(const char *results, const char *want)
{
	json_object *r = report_of(results);
	char buf[2048];
	const char *why = guest_results_why_not(r, buf, sizeof(buf));

	if (!want)
		ck_assert_msg(!why, "not a pass: %s", why);
	else
		ck_assert_msg(why && strstr(why, want), "'%s' lacks '%s'", why ? why : "(pass)", want);
	json_object_put(r);
}

START_TEST(test_verdicts)
{
	json_object *empty = json_tokener_parse("{}");
	char buf[64];

	expect_verdict(OK_A "," DONE_0, NULL);
	expect_verdict(OK_A "," FAIL_EQ, "guest assertion failed: FAIL tests/guests/x.c:12: "
		       "a == b (0x2, 0xffffffffffffffff) on vCPU 1");
	/* A failure counts even when main() returned 0 afterwards on another vCPU. */
	expect_verdict(FAIL_EQ "," DONE_0, "a == b");
	expect_verdict(OK_A "," INVALID "," DONE_0, "invalid ucall: invalid: the 368-byte message "
		       "is not all in guest RAM (message at 0xfee00000) on vCPU 0");
	expect_verdict(OK_A, "no \"done\" result); its results:\n  ok - a on vCPU 0\n");
	expect_verdict("", "(no results)");
	expect_verdict(OK_A ", {\"kind\": \"done\", \"vcpu\": 0, \"status\": -3}",
		       "done: main() returned -3");
	ck_assert_str_eq(guest_results_why_not(NULL, buf, sizeof(buf)), "pmuvm wrote no report");
	ck_assert_str_eq(guest_results_why_not(empty, buf, sizeof(buf)),
			 "the report has no guest.results");
	json_object_put(empty);
}
END_TEST

START_TEST(test_find_and_count)
{
	json_object *r = report_of(OK_A ", {\"kind\": \"value\", \"vcpu\": 0, \"name\": \"pmis\", "
				   "\"values\": [300]}, " OK_A);

	ck_assert_ptr_nonnull(guest_results_find(r, "ok", "a"));
	ck_assert_ptr_null(guest_results_find(r, "ok", "b"));
	ck_assert_ptr_null(guest_results_find(r, "value", "a"));
	ck_assert_ptr_nonnull(guest_results_find(r, "value", "pmis"));
	ck_assert_uint_eq(guest_results_count(r, "ok"), 2);
	ck_assert_uint_eq(guest_results_count(r, "fail"), 0);
	json_object_put(r);
}
END_TEST

static Suite *guest_results_suite(void)
{
	Suite *s = suite_create("guest_results");
	TCase *tc = tcase_create("verdicts");

	tcase_add_test(tc, test_verdicts);
	tcase_add_test(tc, test_find_and_count);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(guest_results_suite)
