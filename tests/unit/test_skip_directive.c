/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TEST_SKIP and test_skip() (tests/lib/skip.c): a skipped test passes for
 * Check, its TAP line carries the SKIP directive with its reason on one
 * line, and test_result_skipped() tells it from a pass and a failure. The
 * tests run in a runner of their own (Check allows one nested runner),
 * silent, with their TAP in a file.
 */
#include <stdlib.h>

#include "pmuvm_run.h"
#include "suite.h"

START_TEST(inner_skipped)
{
	ck_assert_int_eq(1, 1);
	TEST_SKIP("no %s here,\nsecond line \n", "widget");
}
END_TEST

START_TEST(inner_passed)
{
	ck_assert_int_eq(1, 1);
}
END_TEST

START_TEST(inner_failed)
{
	ck_assert_msg(0, "as meant");
}
END_TEST

static bool helper_decides(void)
{
	test_skip("decided by a helper");
	return false;
}

START_TEST(inner_helper)
{
	if (!helper_decides())
		return;
	ck_abort_msg("not reached");
}
END_TEST

START_TEST(test_skip_tap_line)
{
	static const bool skipped[] = { true, false, false, true };
	const char *tap = tmp_path("inner.tap");
	Suite *s = suite_create("inner");
	TCase *tc = tcase_create("tc");
	TestResult **results;
	SRunner *sr;
	char *text;
	int i;

	tcase_add_test(tc, inner_skipped);
	tcase_add_test(tc, inner_passed);
	tcase_add_test(tc, inner_failed);
	tcase_add_test(tc, inner_helper);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, tap);
	srunner_set_log(sr, "/dev/null");
	srunner_set_xml(sr, "/dev/null");
	srunner_run(sr, "inner", "tc", CK_SILENT);

	ck_assert_int_eq(srunner_ntests_run(sr), 4);
	ck_assert_int_eq(srunner_ntests_failed(sr), 1);
	results = srunner_results(sr);
	for (i = 0; i < 4; i++)
		ck_assert_msg(test_result_skipped(results[i]) == skipped[i], "result %d", i);
	free(results);
	srunner_free(sr);

	text = read_file_str(tap);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text,
			 "ok 1 - " __FILE__ " # SKIP no widget here, second line:tc:inner_skipped: Passed\n"
			 "ok 2 - " __FILE__ ":tc:inner_passed: Passed\n"
			 "not ok 3 - " __FILE__ ":tc:inner_failed: as meant\n"
			 "ok 4 - " __FILE__ " # SKIP decided by a helper:tc:inner_helper: Passed\n"
			 "1..4\n");
	free(text);
}
END_TEST

static Suite *skip_directive_suite(void)
{
	Suite *s = suite_create("skip_directive");
	TCase *tc = tcase_create("skip");

	tcase_add_test(tc, test_skip_tap_line);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(skip_directive_suite)
