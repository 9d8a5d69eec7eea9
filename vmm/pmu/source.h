/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting sources: where event counts come from. Each source produces some
 * architectural events and is a vCPU feature of its own (its run-loop
 * hooks); the PMU layer asks it only what is listed here. The clock source
 * (vmm/clock) counts cycles from the CPU time a vCPU spends in guest mode;
 * the exact source (vmm/exact) single-steps and counts retired instructions
 * and branches. The board (vmm/board.c) lists them.
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
	/*
	 * Optional. A WRMSR of a PMU MSR passed its checks and is about to be
	 * committed: hardware counts it with the counters as they were before.
	 */
	void (*wrmsr_retires)(struct vcpu *vcpu);
	/* Optional. pmuvm completed the instruction at `rip` itself (RDPMC) at `cpl`. */
	void (*emulated_retire)(struct vcpu *vcpu, uint64_t rip, unsigned int cpl);
	/* Optional. A PMI was injected: its handler is about to run. */
	void (*pmi_delivered)(struct vcpu *vcpu);
};

/* The board's sources, in order (vmm/board.c). */
extern const struct pmu_source_ops *const pmu_sources[];
extern const unsigned int pmu_nr_sources;

/* Iterates over the sources active on `vcpu`. */
#define for_each_pmu_source(vcpu, i)					\
	for ((i) = 0; (i) < pmu_nr_sources; (i)++)			\
		if ((vcpu)->pmu->sources & (1u << (i)))

#endif
