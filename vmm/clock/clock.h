/* SPDX-License-Identifier: GPL-2.0-only */
/* The clock source (clock.c): cycle events from the CPU time a vCPU runs. */
#ifndef PMUVM_CLOCK_H
#define PMUVM_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kvm/stats.h"

struct vcpu_feature;
struct pmu_source_ops;

/* cpl_held before the first CPL sample: no CPL is 4. */
#define CLOCK_CPL_NONE	4u

/* Per-vCPU state (vcpu->pmu->clock). */
struct clock_state {
	uint64_t core_khz, ref_khz;
	bool cpl_sampling;		/* OS and USR cycles go to different counters */
	uint64_t cpl_sample_left;	/* CPU time to the next CPL sample */
	uint64_t cpl_rand;		/* xorshift64 state for the samples' intervals */
	unsigned int cpl_held;		/* CPL at the last kick (CLOCK_CPL_NONE: none yet) */
	uint64_t cpl_kicks;		/* runs a kick ended while sampling CPL (report) */
	uint64_t cpl_held_runs;		/* runs attributed to the held CPL (report) */
	uint64_t core_rem, ref_rem;	/* sub-cycle remainders (ns x kHz units) */
	bool timer_created, timer_armed;
	void *timer;			/* timer_t */
	bool timing;			/* a cycle event counts: this KVM_RUN is timed */
	uint64_t guest_ns;		/* CPU time in KVM_RUN while cycles counted (report) */
	uint64_t exit_ns;		/* ...of it, exits' own cost, not counted (report) */
	struct kvm_stat exits;		/* the vCPU's "exits" statistic, if KVM has it */
	uint64_t run_start_exits;	/* ...when KVM_RUN was entered */
	struct kvm_stat irq_exits;	/* ...of them, for a host interrupt (a kick in the guest) */
	uint64_t run_start_irq_exits;
	uint64_t core_held, ref_held;	/* cycles held back from an overflow */
	uint64_t held_kick_at;		/* CLOCK_MONOTONIC ns of the kick that delivers them */
	uint64_t held_since;		/* CLOCK_MONOTONIC ns of the first run that held them */
	uint64_t access_rip;		/* RIP of the register access that ended the last run */
	uint64_t overflows_held;	/* runs that held an overflow back (report) */
	bool wrapped;			/* a counter wrapped in the run being counted */
	uint64_t overflows_at_kicks;	/* runs a kick ended with a wrap (report) */
	uint64_t overflows_at_exits;	/* runs the guest's exit ended with a wrap (report) */
};

extern const struct pmu_source_ops clock_source;
extern const struct vcpu_feature clock_feature;

#endif
