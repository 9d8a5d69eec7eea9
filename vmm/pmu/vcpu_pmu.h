/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PMU layer's state: one struct vm_pmu per VM and one struct vcpu_pmu
 * per vCPU, reached through vm->pmu and vcpu->pmu. It holds the vCPU's PMU
 * model (vmm/model) and what connects it to KVM: MSR exits, PMI delivery,
 * the listeners (listen.h). The counting sources and the other PMU
 * features (clock, exact, RDPMC, PEBS, profile) keep their state behind
 * their own pointers here, so this layer needs none of their headers.
 */
#ifndef PMUVM_VCPU_PMU_H
#define PMUVM_VCPU_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "model/vpmu.h"
#include "pmu/listen.h"

#define PMU_MAX_SOURCES	4

struct vcpu;
struct clock_state;
struct exact_state;
struct pebs_stats;
struct profile_buf;
struct rdpmc_vm;
struct rdpmc_vcpu;

/* What this host's KVM does, probed once at start-up (probe.c; the report's debug.host). */
struct pmu_host_caps {
	bool user_step;		/* single-steps CPL3 code */
	bool handler_step;	/* single-stepping follows events into their handlers */
	bool step_after_emulation;	/* ...and goes on after an instruction KVM emulated */
	bool rdpmc_by_kvm;	/* KVM answers a guest's RDPMC itself instead of a #GP */
	bool rdpmc_partly_by_kvm;	/* ...but raises #GP for some of this PMU's counters */
	/*
	 * It answers GP 0 .. this - 1 and fixed 0 .. this - 1, of this PMU's
	 * counters, or with no PMU (version 0) of VPMU_MAX_GP and VPMU_MAX_FIXED.
	 */
	unsigned int rdpmc_kvm_gp;
	unsigned int rdpmc_kvm_fixed;
	bool hw_breakpoints;	/* execution breakpoints fire (probed where RDPMC or stepping needs them) */
	bool block_irq;		/* KVM_GUESTDBG_BLOCKIRQ: KVM can hold interrupts out of a step */
	bool kvm_vpmu_disabled;	/* KVM_PMU_CAP_DISABLE took */
};

struct vm_pmu {
	struct pmu_host_caps caps;
	bool user_uncounted_warned;	/* said once per VM (exact/) */
	bool handler_uncounted_warned;
	bool krun_missed_warned;
	uint32_t unavailable_said;	/* events said to count nothing (pmu.c) */
	struct rdpmc_vm *rdpmc;		/* rdpmc/rdpmc.h: the image's RDPMCs */
};

struct vcpu_pmu {
	struct vpmu model;
	uint32_t sources;		/* bit i: pmu_sources[i] is active on this vCPU */
	/* The active sources' wrmsr_retires hooks (source.h), gathered once. */
	void (*wrmsr_retires[PMU_MAX_SOURCES])(struct vcpu *vcpu);
	unsigned int nr_wrmsr_retires;

	/*
	 * Kept by a source that counts retirements one by one (exact/), for
	 * PEBS: the eventing IP, and a WRMSR counted at its MSR exit that has
	 * not completed yet.
	 */
	bool eventing_ip_valid;
	uint64_t eventing_ip;
	bool retire_pending;
	/*
	 * The coming KVM_RUN single-steps (exact/): its CPU time is the
	 * stepping's, not the guest's, so the clock source does not count it
	 * and what it retires counts --cpi cycles (docs/counting.md, "Cycles
	 * while stepping").
	 */
	bool step_run;

	/* Features told of PMU MSR accesses and steps, and the stepping they share (listen.h). */
	const struct pmu_listener *listeners[PMU_MAX_LISTENERS];
	unsigned int nr_listeners;
	struct pmu_stepping step;

	uint64_t pmis_delivered;
	uint64_t pmis_masked;		/* requested while LVTPC was masked: dropped */
	uint64_t pmis_nmi;
	bool pmi_nmi;			/* the PMI just delivered went as an NMI (for pmi_delivered) */

	struct clock_state *clock;	/* clock/clock.h */
	struct exact_state *exact;	/* exact/exact.h */
	struct rdpmc_vcpu *rdpmc;	/* rdpmc/rdpmc.h */
	struct pebs_stats *pebs;	/* pebs/pebs.h */
	struct profile_buf *profile;	/* profile/profile.h */
};

#endif
