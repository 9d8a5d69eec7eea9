/* SPDX-License-Identifier: GPL-2.0-only */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "exact/exact.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"
#include "progress.h"

#define PROGRESS_AFTER_S	2.0	/* stepping this long before the first line */
#define PROGRESS_TTY_S		1.0	/* on a terminal: rewritten this often */
#define PROGRESS_LOG_S		10.0	/* elsewhere: a line this often */

static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t progress_shown;		/* the steps of the last periodic line */

/*
 * The vCPU threads count steps as they go; a relaxed read of a 64-bit word
 * may be a step behind, which a progress line does not mind.
 */
static uint64_t progress_steps(const struct vm *vm)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < vm->nr_vcpus; i++) {
		const struct vcpu_pmu *p = vm->vcpus[i].pmu;

		if (p && p->exact)
			n += __atomic_load_n(&p->exact->steps, __ATOMIC_RELAXED);
	}
	return n;
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

static void progress_line(uint64_t steps, double elapsed)
{
	log_status("stepped %llu instructions in %.1f s (%.0f/s)", (unsigned long long)steps,
		   elapsed, elapsed > 0 ? (double)steps / elapsed : 0.0);
}

static void progress_tick(struct vm *vm)
{
	uint64_t steps = progress_steps(vm);
	double elapsed = progress_elapsed(vm);

	pthread_mutex_lock(&progress_lock);
	if (steps > progress_shown && elapsed >= PROGRESS_AFTER_S) {
		progress_line(steps, elapsed);
		progress_shown = steps;
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
	progress_line(progress_steps(vm), progress_elapsed(vm));
	pthread_mutex_unlock(&progress_lock);
}

void progress_end(void)
{
	log_status_end();
}
