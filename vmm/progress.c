/* SPDX-License-Identifier: GPL-2.0-only */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "exact/exact.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"
#include "progress.h"

#define PROGRESS_AFTER_S	2.0	/* counting this long before the first line */
#define PROGRESS_TTY_S		1.0	/* on a terminal: rewritten this often */
#define PROGRESS_LOG_S		10.0	/* elsewhere: a line this often */

static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t progress_shown;		/* the instructions of the last periodic line */

/* Instructions the exact source ran so far: stepped in KVM, and run in the emulator. */
struct progress_count {
	uint64_t stepped, emulated;
};

/*
 * The vCPU threads count as they go; a relaxed read of a 64-bit word may be
 * a step or a stretch behind, which a progress line does not mind.
 */
static struct progress_count progress_count(const struct vm *vm)
{
	struct progress_count c = { 0, 0 };
	unsigned int i;

	for (i = 0; i < vm->nr_vcpus; i++) {
		const struct vcpu_pmu *p = vm->vcpus[i].pmu;

		if (!p || !p->exact)
			continue;
		c.stepped += __atomic_load_n(&p->exact->steps, __ATOMIC_RELAXED);
		c.emulated += __atomic_load_n(&p->exact->emu_stats.insns, __ATOMIC_RELAXED);
	}
	return c;
}

static double progress_elapsed(const struct vm *vm)
{
	struct timespec now;

	if (!vm->start_time.tv_sec && !vm->start_time.tv_nsec)
		return 0;	/* not started yet */
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - vm->start_time.tv_sec) +
	       (double)(now.tv_nsec - vm->start_time.tv_nsec) / 1e9;
}

/* Under the emulation engine the line counts what both engines ran, and says how much was emulated. */
static void progress_line(const struct vm *vm, struct progress_count c, double elapsed)
{
	uint64_t n = c.stepped + c.emulated;
	double rate = elapsed > 0 ? (double)n / elapsed : 0.0;

	if (vm->cfg->exact_emulate)
		log_status("ran %llu instructions (%llu emulated) in %.1f s (%.0f/s)",
			   (unsigned long long)n, (unsigned long long)c.emulated, elapsed, rate);
	else
		log_status("stepped %llu instructions in %.1f s (%.0f/s)", (unsigned long long)n,
			   elapsed, rate);
}

static void progress_tick(struct vm *vm)
{
	struct progress_count c = progress_count(vm);
	double elapsed = progress_elapsed(vm);

	pthread_mutex_lock(&progress_lock);
	if (c.stepped + c.emulated > progress_shown && elapsed >= PROGRESS_AFTER_S) {
		progress_line(vm, c, elapsed);
		progress_shown = c.stepped + c.emulated;
	}
	pthread_mutex_unlock(&progress_lock);
}

void progress_attach(struct vm *vm, bool quiet)
{
	if (quiet)
		return;
	vm->tick = progress_tick;
	vm->tick_period_s = isatty(STDERR_FILENO) ? PROGRESS_TTY_S : PROGRESS_LOG_S;
}

void progress_print(struct vm *vm)
{
	pthread_mutex_lock(&progress_lock);
	progress_line(vm, progress_count(vm), progress_elapsed(vm));
	pthread_mutex_unlock(&progress_lock);
}

void progress_end(void)
{
	log_status_end();
}
