/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The let-in gap of vmm/exact/follow.c (docs/counting.md, "Following
 * events into handlers"): after an interrupt's handler returns, the code it
 * interrupted runs four times as long as the handler took, and at least
 * 1 ms of host time, before the next is let in; a handler whose return is
 * never seen holds the next for 1 s; a PMI pmuvm delivered waits for none.
 */
#include <string.h>

#include "exact/follow.h"
#include "suite.h"

#define MS 1000000ULL

static struct follow_state f;

static void setup(void)
{
	memset(&f, 0, sizeof(f));
	f.on = true;
	f.let_in = -1;
}

START_TEST(test_follow_gap_none_before_a_let_in)
{
	ck_assert_uint_eq(follow_gap_end(&f), 0);
	f.returned_ns = 5 * MS;		/* stepping started: still nothing let in */
	ck_assert_uint_eq(follow_gap_end(&f), 0);
}
END_TEST

START_TEST(test_follow_gap_short_handler)
{
	/* A 10 us handler: the interrupted code runs on for the 1 ms floor. */
	f.let_in_ns = 100 * MS;
	f.returned_ns = 100 * MS + 10000;
	f.handler_ns = 10000;
	ck_assert_uint_eq(follow_gap_end(&f), 101 * MS + 10000);
}
END_TEST

START_TEST(test_follow_gap_long_handler)
{
	/* A 30 ms (stepped) handler: 120 ms for the code it interrupted. */
	f.let_in_ns = 100 * MS;
	f.returned_ns = 130 * MS;
	f.handler_ns = 30 * MS;
	ck_assert_uint_eq(follow_gap_end(&f), 250 * MS);
}
END_TEST

START_TEST(test_follow_gap_no_return)
{
	/* Its handler has not come back to the frame it was entered with. */
	f.let_in_ns = 100 * MS;
	f.await_rip = 0x401000;
	f.await_rsp = 0x7ff000;
	ck_assert_uint_eq(follow_gap_end(&f), 1100 * MS);
}
END_TEST

START_TEST(test_follow_gap_pmi_and_off)
{
	f.let_in_ns = 100 * MS;
	f.returned_ns = 130 * MS;
	f.handler_ns = 30 * MS;
	f.pmi_due = true;		/* zero skid: let in at once */
	ck_assert_uint_eq(follow_gap_end(&f), 0);
	f.pmi_due = false;
	f.nmi = true;
	ck_assert_uint_eq(follow_gap_end(&f), 0);
	f.nmi = false;
	f.on = false;			/* a host whose steps follow events themselves */
	ck_assert_uint_eq(follow_gap_end(&f), 0);
}
END_TEST

static Suite *follow_gap_suite(void)
{
	Suite *s = suite_create("follow_gap");
	TCase *tc = tcase_create("gap");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_follow_gap_none_before_a_let_in);
	tcase_add_test(tc, test_follow_gap_short_handler);
	tcase_add_test(tc, test_follow_gap_long_handler);
	tcase_add_test(tc, test_follow_gap_no_return);
	tcase_add_test(tc, test_follow_gap_pmi_and_off);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(follow_gap_suite)
