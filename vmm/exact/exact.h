/*
 * The exact counting source: while an enabled counter counts a
 * retirement event, the vCPU is single-stepped and each retired instruction
 * is classified (decode.h) and counted at the CPL it ran at.
 */
#ifndef PMUVM_EXACT_H
#define PMUVM_EXACT_H

#include <stdbool.h>
#include <stdint.h>

#include "exact/decode.h"

struct vcpu;
struct icache;

/* Per-vCPU state of the exact source. */
struct exact_state {
	bool stepping;			/* KVM_GUESTDBG_SINGLESTEP is on */
	bool pending;			/* `insn` is the instruction at `rip` about to step */
	bool counted;			/* ...and was counted early (its WRMSR exit) */
	struct insn insn;
	uint64_t rip;
	uint16_t cs;
	unsigned int cpl;
	uint64_t iret_frame[2];		/* INSN_IRET: the RIP and CS it returns to (0: unknown) */
	struct icache *icache;
	uint8_t *idt_copy;		/* scratch for exact_catch_up_event() */
	uint64_t cycle_rem;		/* --cycles=model: cycles x 1000 not yet counted */
	uint64_t ref_rem;		/* ...and reference cycles x core kHz */
	uint64_t last_rip;		/* the last instruction counted retired (eventing IP) */
	bool rearm;			/* an INSN_LOADS_RFLAGS instruction retired: set TF again */

	/* Report. */
	uint64_t steps, retired, not_retired, decode_errors;
	uint64_t caught_up, lost, hlts;	/* instructions a step ran past; unaccounted steps */
	uint64_t user_runs_uncounted;	/* KVM_RUNs at CPL3 this host cannot step */
	uint64_t rearms;		/* single-step re-armed after RFLAGS was reloaded */
	uint64_t rdpmc_fixed;		/* stepped RDPMCs KVM answered, corrected */
	uint64_t handler_runs_uncounted;	/* handlers that ran unstepped while counting */
};

/* Start-up: whether this host's KVM single-steps CPL3 code (probe.c). */
int exact_probe_user_step(int kvm_fd, bool *can_step);
/* ...and whether it answers a guest's RDPMC itself instead of a #GP. */
int exact_probe_rdpmc(int kvm_fd, bool *answered_by_kvm);
/* ...and whether single-stepping follows an exception into its handler. */
int exact_probe_handler_step(int kvm_fd, bool *steps_into);

/* The WRMSR that is being stepped (MSR exit): count it with the state before the write. */
int exact_wrmsr(struct vcpu *vcpu, uint32_t msr, uint64_t data);

/* An instruction pmuvm completed itself (RDPMC at `rip`) retired at `cpl`. */
void exact_emulated_retire(struct vcpu *vcpu, uint64_t rip, unsigned int cpl);

/* A handler runs unstepped on this stepped vCPU (pmuvm delivered an event). */
void exact_handler_unstepped(struct vcpu *vcpu);

/* KVM_EXIT_DEBUG from a single step: true if it was one (already counted). */
bool exact_debug_exit(struct vcpu *vcpu);

void exact_vcpu_free(struct vcpu *vcpu);

#endif
