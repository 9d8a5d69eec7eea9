/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The discovery windows of rdpmc/watch.c as bookkeeping alone: when
 * one opens, how long it lasts, and when discovery ends. Pure, so the
 * rules are unit-tested without a vCPU (tests/unit/test_rdpmc_window.c).
 */
#include "rdpmc/rdpmc.h"

void rdpmc_window_open(struct rdpmc_watch *w, bool counting)
{
	uint32_t len = counting ? RDPMC_WATCH_WINDOW_COUNTING : RDPMC_WATCH_WINDOW;

	if (w->settled || (!counting && w->idle_done))
		return;
	if (!w->window) {
		w->windows++;
		w->window_counting = false;
	}
	/*
	 * An access while nothing counts never shortens a window a counting
	 * access opened, nor charges its steps to the idle budget. Linux stops
	 * all counters first (GLOBAL_CTRL, or every EVNTSEL on AMD), then
	 * writes the stopped event's EVNTSEL and reads its counter with RDPMC
	 * (x86_pmu_stop(), x86_perf_event_update()): that RDPMC belongs to the
	 * counting window. Once the boot's probing had nearly spent the idle
	 * budget, the second access closed the window before the RDPMC, and
	 * perf read KVM's 0.
	 */
	if (len > w->window)
		w->window = len;
	w->window_counting |= counting;
}

bool rdpmc_window_step(struct rdpmc_watch *w, unsigned int nr_watch)
{
	if (!w->window)
		return false;
	w->window_steps++;
	w->idle_window_steps += !w->window_counting;
	w->window--;
	if (nr_watch) {
		if (++w->quiet < RDPMC_WATCH_QUIET)
			return true;
		w->settled = true;
	} else if (!w->window_counting) {
		if (w->idle_window_steps < RDPMC_WATCH_BUDGET)
			return true;
		w->idle_done = true;
	} else {
		if (w->window_steps - w->idle_window_steps < RDPMC_WATCH_BUDGET)
			return true;
		w->settled = true;
	}
	w->window = 0;
	return true;
}
