/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RDPMC discovery windows' rules (vmm/rdpmc/window.c): how long a
 * window lasts after a PMU MSR access, and when discovery ends.
 */
#include "rdpmc/rdpmc.h"
#include "suite.h"

/* Steps until the window closes; at most `max`. */
static unsigned int steps_until_closed(struct rdpmc_watch *w, unsigned int nr_watch,
				       unsigned int max)
{
	unsigned int n = 0;

	while (n < max && rdpmc_window_step(w, nr_watch) && w->window)
		n++;
	return n + 1;
}

START_TEST(test_window_lengths)
{
	struct rdpmc_watch w = { 0 };

	ck_assert(!rdpmc_window_step(&w, 0));
	rdpmc_window_open(&w, false);
	ck_assert_uint_eq(w.window, RDPMC_WATCH_WINDOW);
	ck_assert_uint_eq(steps_until_closed(&w, 0, 100000), RDPMC_WATCH_WINDOW);
	rdpmc_window_open(&w, true);
	ck_assert_uint_eq(w.window, RDPMC_WATCH_WINDOW_COUNTING);
	ck_assert_uint_eq(steps_until_closed(&w, 0, 100000), RDPMC_WATCH_WINDOW_COUNTING);
	ck_assert_uint_eq(w.windows, 2);
	ck_assert_uint_eq(w.window_steps, RDPMC_WATCH_WINDOW + RDPMC_WATCH_WINDOW_COUNTING);
	ck_assert_uint_eq(w.idle_window_steps, RDPMC_WATCH_WINDOW);
}
END_TEST

/*
 * Linux stops every counter, then writes the stopped event's EVNTSEL while
 * nothing counts, then reads it with RDPMC: the second access neither
 * shortens the counting window nor charges the idle budget, even where
 * that budget is about spent.
 */
START_TEST(test_idle_access_keeps_counting_window)
{
	struct rdpmc_watch w = { .window_steps = RDPMC_WATCH_BUDGET - 10,
				   .idle_window_steps = RDPMC_WATCH_BUDGET - 10 };

	rdpmc_window_open(&w, true);
	rdpmc_window_step(&w, 0);
	rdpmc_window_open(&w, false);
	ck_assert(w.window_counting);
	ck_assert_uint_eq(w.window, RDPMC_WATCH_WINDOW_COUNTING - 1);
	ck_assert_uint_eq(steps_until_closed(&w, 0, 100000), RDPMC_WATCH_WINDOW_COUNTING - 1);
	ck_assert(!w.idle_done);
	ck_assert(!w.settled);
	ck_assert_uint_eq(w.idle_window_steps, RDPMC_WATCH_BUDGET - 10);
	ck_assert_uint_eq(w.windows, 1);

	/* Near its end, an idle access still gives the RDPMC its 256 steps. */
	rdpmc_window_open(&w, true);
	while (w.window > 5)
		rdpmc_window_step(&w, 0);
	rdpmc_window_open(&w, false);
	ck_assert_uint_eq(w.window, RDPMC_WATCH_WINDOW);
	ck_assert(w.window_counting);
}
END_TEST

/* An idle window becomes a counting one when a counter starts counting. */
START_TEST(test_counting_access_lengthens_idle_window)
{
	struct rdpmc_watch w = { 0 };

	rdpmc_window_open(&w, false);
	rdpmc_window_step(&w, 0);
	rdpmc_window_open(&w, true);
	ck_assert(w.window_counting);
	ck_assert_uint_eq(w.window, RDPMC_WATCH_WINDOW_COUNTING);
	ck_assert_uint_eq(w.windows, 1);
}
END_TEST

/*
 * Window steps, with a window opened (`counting` or not) whenever none is
 * open, until *done; at most 1 << 20.
 */
static uint64_t steps_until(struct rdpmc_watch *w, bool counting, unsigned int nr_watch,
			    const bool *done)
{
	uint64_t steps = 0;

	while (!*done && steps < 1u << 20) {
		if (!w->window)
			rdpmc_window_open(w, counting);
		ck_assert(rdpmc_window_step(w, nr_watch));
		steps++;
	}
	return steps;
}

/* The idle budget ends idle windows only; counting ones still open. */
START_TEST(test_idle_budget)
{
	struct rdpmc_watch w = { 0 };

	ck_assert_uint_eq(steps_until(&w, false, 0, &w.idle_done), RDPMC_WATCH_BUDGET);
	ck_assert_uint_eq(w.window, 0);
	ck_assert(!w.settled);
	rdpmc_window_open(&w, false);
	ck_assert_uint_eq(w.window, 0);
	rdpmc_window_open(&w, true);
	ck_assert_uint_eq(w.window, RDPMC_WATCH_WINDOW_COUNTING);
}
END_TEST

/* Counting windows that find nothing end discovery after the budget. */
START_TEST(test_counting_budget_settles)
{
	struct rdpmc_watch w = { 0 };

	ck_assert_uint_eq(steps_until(&w, true, 0, &w.settled), RDPMC_WATCH_BUDGET);
	ck_assert_uint_eq(w.window, 0);
	rdpmc_window_open(&w, true);
	ck_assert_uint_eq(w.window, 0);
}
END_TEST

/* With an RDPMC known, QUIET steps that find nothing new settle discovery. */
START_TEST(test_quiet_settles)
{
	struct rdpmc_watch w = { 0 };

	ck_assert_uint_eq(steps_until(&w, true, 1, &w.settled), RDPMC_WATCH_QUIET);
	ck_assert_uint_eq(w.window, 0);
}
END_TEST

static Suite *rdpmc_window_suite(void)
{
	Suite *s = suite_create("rdpmc_window");
	TCase *tc = tcase_create("window");

	tcase_add_test(tc, test_window_lengths);
	tcase_add_test(tc, test_idle_access_keeps_counting_window);
	tcase_add_test(tc, test_counting_access_lengthens_idle_window);
	tcase_add_test(tc, test_idle_budget);
	tcase_add_test(tc, test_counting_budget_settles);
	tcase_add_test(tc, test_quiet_settles);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(rdpmc_window_suite)
