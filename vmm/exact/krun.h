/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest kernel run unstepped while only user mode is counted (krun.c).
 */
#ifndef PMUVM_EXACT_KRUN_H
#define PMUVM_EXACT_KRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "machine/guest_debug.h"

struct vcpu;

/* Return sites kept: as many as there are debug registers (DR0-DR3). */
#define KRUN_SITES_MAX	(GUEST_DEBUG_WATCH_MAX + 1)

struct krun_state {
	bool on;			/* this host steps CPL3 and fires breakpoints */
	bool running;			/* the kernel runs unstepped, the sites watched */
	bool at_site;			/* a site's breakpoint hit: step that instruction */
	bool relearn;			/* a return came another way: step until a new site */
	bool full;			/* more sites than KRUN_SITES_MAX: never run */
	unsigned int nr_site;
	uint64_t site[KRUN_SITES_MAX];	/* CPL0 instructions seen going to CPL3 */
	uint64_t sysret;		/* the SYSCALL entry's SYSRET, found by decoding it */
	uint64_t iret;			/* ...and the IRET it reaches (krun_scan.c) */
	uint64_t scan_lstar;		/* the IA32_LSTAR they were looked for from */
	unsigned int scan_wait;		/* steps until LSTAR is looked at again, no site known */
	uint64_t resume_rip;		/* where the user code entering the kernel goes on */
	uint64_t trap_from, trap_to;	/* a missed return trapped: what ran in between */
	const char *why;		/* the last reason not to run, for -vv */
	/* Report. */
	uint64_t runs;			/* kernel stretches run unstepped */
	uint64_t site_hits;		/* ...that ended at a watched site */
	uint64_t missed;		/* returns to CPL3 found elsewhere */
	uint64_t missed_uncounted;	/* ...of them, found only at a later exit */
};

void krun_init(struct vcpu *vcpu, struct krun_state *k);

/* A stepped instruction at CPL0 at `rip` retired into CPL3. */
void krun_learn(struct krun_state *k, uint64_t rip);

/*
 * Whether the kernel may run unstepped (whatever the vCPU's CPL): the
 * enabled counters count `events` at CPL3 only, sites are known and fit.
 */
bool krun_allowed(const struct vcpu *vcpu, const struct krun_state *k, uint32_t events);

/*
 * Before a KVM_RUN, where the exact source counts if `want`: true if the
 * kernel runs unstepped instead (the vCPU is at CPL0 and krun_allowed());
 * `resume_rip` is where the user code that entered it goes on, if known.
 * Stops running it otherwise; found at CPL3 while running, a return was
 * missed.
 */
bool krun_prepare(struct vcpu *vcpu, struct krun_state *k, uint32_t events, bool want,
		  uint64_t resume_rip);

/*
 * A KVM_EXIT_DEBUG: true if it was a watched site or a missed return; for
 * a return whose saved TF trapped, trap_from..trap_to is the user code it
 * ran before the trap (trap_from 0: not known), for the caller to count.
 */
bool krun_debug_exit(struct vcpu *vcpu, struct krun_state *k);

#endif
