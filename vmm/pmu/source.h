/*
 * Counting sources: where event counts come from.  Each source produces some
 * architectural events and hooks into the run loop.  The clock source counts
 * cycles from the CPU time a vCPU spends in guest mode; the exact source
 * (single-stepping, vmm/exact) counts retired instructions and branches.
 */
#ifndef PMUVM_SOURCE_H
#define PMUVM_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;
struct pmuvm_config;

struct pmu_source_ops {
	const char *name;
	/* Events produced under this configuration (bits of enum pmu_arch_event); 0: inactive. */
	uint32_t (*events)(const struct pmuvm_config *cfg);
	int (*thread_start)(struct vcpu *vcpu);
	void (*thread_stop)(struct vcpu *vcpu);
	void (*before_run)(struct vcpu *vcpu);	/* schedule the next overflow */
	void (*after_run)(struct vcpu *vcpu, unsigned int cpl);	/* count what ran */
};

extern const struct pmu_source_ops pmu_clock_source;
extern const struct pmu_source_ops pmu_exact_source;

/* Per-vCPU state of the clock source. */
struct pmu_clock {
	uint64_t core_khz, ref_khz;
	uint64_t run_start_ns;		/* thread CPU time when KVM_RUN was entered */
	uint64_t cpl_sample_due;	/* thread CPU time of the next CPL sample (clock.c) */
	uint64_t core_rem, ref_rem;	/* sub-cycle remainders (ns x kHz units) */
	bool timer_created, timer_armed;
	void *timer;			/* timer_t */
	bool timing;			/* a cycle event counts: this KVM_RUN is timed */
	uint64_t guest_ns;		/* CPU time in KVM_RUN while cycles counted (report) */
};

#endif
