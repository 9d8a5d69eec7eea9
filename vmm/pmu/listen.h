/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the PMU layer tells the features that listen (PMU MSR accesses,
 * single steps), and single-stepping as a service between features. The
 * exact source (exact/) steps the vCPU; RDPMC (rdpmc/) looks for the
 * guest's RDPMCs in the instructions after each PMU MSR access, which it
 * asks the source to step, and corrects each RDPMC a step shows KVM
 * answered (docs/counting.md, "RDPMC that KVM answers"). Neither includes
 * the other's headers: the source says here that it steps and what each
 * step was; RDPMC listens, and asks for steps.
 */
#ifndef PMUVM_PMU_LISTEN_H
#define PMUVM_PMU_LISTEN_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

#define PMU_MAX_LISTENERS	4

/* One stepped instruction, as the source that stepped it saw it. */
struct pmu_step {
	uint64_t rip;		/* where it was; 0: not known */
	uint8_t len;
	bool rdpmc;		/* it is an RDPMC (as decoded: one pmuvm made an RDMSR too) */
	bool retired;		/* it retired; a listener that undoes it clears this */
	uint64_t rax, rdx;	/* RAX and RDX before it */
};

struct pmu_listener {
	/* Optional. A PMU MSR access exited to pmuvm; `counting`: a counter counted before or after it. */
	void (*msr_access)(struct vcpu *vcpu, bool counting);
	/*
	 * Optional. A source stepped an instruction and has not counted it
	 * yet: a listener may correct what it did, or undo it and raise its
	 * fault instead (then st->retired is false and it is not counted).
	 */
	void (*stepped)(struct vcpu *vcpu, struct pmu_step *st);
};

/* Single-stepping on one vCPU: offered by a source, asked for by listeners. */
struct pmu_stepping {
	bool on;		/* a source steps this vCPU when asked (exact/) */
	uint32_t events;	/* ...and counts these events by stepping (bits of enum pmu_arch_event) */
	bool wanted;		/* a listener wants the coming instructions stepped */
	bool kernel_wanted;	/* ...and the kernel stepped, not run unstepped (exact/krun.c) */
};

/* Adds `l` to the vCPU's listeners, called in the order added: 0, or -ENOSPC. */
int pmu_listen(struct vcpu *vcpu, const struct pmu_listener *l);

/* Tells the listeners of one step (the source that steps, before it counts it). */
void pmu_stepped(struct vcpu *vcpu, struct pmu_step *st);

/* Tells the listeners of a PMU MSR access (pmu.c). */
void pmu_msr_accessed(struct vcpu *vcpu, bool counting);

#endif
