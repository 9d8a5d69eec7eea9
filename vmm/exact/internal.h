/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the exact source's files share, and nobody else: counting a retired
 * instruction (count.c), the stepping engine (step.c) and its parts: the
 * trap flag (tf.c), catching up with what a step ran past (catchup.c),
 * HLT (hlt.c). Other folders see exact.h.
 */
#ifndef PMUVM_EXACT_INTERNAL_H
#define PMUVM_EXACT_INTERNAL_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "exact/exact.h"
#include "exact/retire.h"
#include "model/vpmu.h"

struct vcpu;

/* The events this source counts one instruction at a time (model cycles aside). */
#define EXACT_EVENTS	((1u << PMU_EV_INSTRUCTIONS) | (1u << PMU_EV_BRANCHES) |	\
			 (1u << PMU_EV_BR_COND) | (1u << PMU_EV_BR_COND_TAKEN) |	\
			 (1u << PMU_EV_BR_COND_NTAKEN) | (1u << PMU_EV_BR_NEAR_CALL) |	\
			 (1u << PMU_EV_BR_NEAR_RETURN) | (1u << PMU_EV_BR_NEAR_TAKEN) |	\
			 (1u << PMU_EV_BR_FAR) | (1u << PMU_EV_BR_TAKEN))

/* count.c: the instruction at x->rip retired at x->cpl (`how`: RETIRE_TAKEN for a taken branch). */
void exact_retire(struct vcpu *vcpu, enum retire how);
/*
 * Instructions retired at x->cpl, counted together: how many raised each
 * event (retire_events()), the last one's RIP. Whoever fills it ends the
 * batch where a counter would wrap (vpmu_events_to_overflow()), so that
 * its PMI comes after the right instruction (emulate.c).
 */
struct exact_batch {
	uint64_t insns, last_rip;
	uint32_t events;		/* those with a count */
	uint64_t count[PMU_EV_NR];
};

/* count.c: a batch counted (not with --cycles model, which counts each instruction). */
void exact_retire_batch(struct vcpu *vcpu, const struct exact_batch *b);
/*
 * count.c: the core and reference cycles `insns` instructions take at
 * --cpi, at x->cpl (--cycles=model; and emulated instructions, whose host
 * time is no guest time: emulate.c).
 */
void exact_count_model_cycles(struct vcpu *vcpu, uint64_t insns);
/* count.c: user mode is counted where it cannot be stepped; said once. */
bool exact_user_lost(struct vcpu *vcpu);
/* count.c: a handler ran unstepped while counting; said once. */
void exact_handler_unstepped(struct vcpu *vcpu);

/* step.c: decodes the instruction at r->rip, the next to run (x->pending if it decoded). */
void exact_decode_next(struct vcpu *vcpu, const struct kvm_regs *r, const struct kvm_sregs *s);
/*
 * step.c: tells the listeners (pmu/listen.h) of the step of the instruction
 * at x->rip (`known`; else of a step of an instruction not decoded): false
 * if one undid it (rdpmc/stepped.c: an RDPMC that faults).
 */
bool exact_tell_step(struct vcpu *vcpu, bool known, bool retired);

/* tf.c: the trap flag, which stepping owns. */
void exact_sysret_tf(struct vcpu *vcpu, struct kvm_regs *r, bool set);
void exact_rearm(struct vcpu *vcpu);
void exact_untrace(struct vcpu *vcpu, struct kvm_regs *r, const struct kvm_sregs *s,
		   const struct step_result *res, enum retire how);
bool exact_kvm_dropped_tf(struct vcpu *vcpu);
bool exact_step_lost(struct vcpu *vcpu);
bool exact_mmio_write_done(struct vcpu *vcpu);

/* catchup.c: instructions a step ran past, counted. */
void exact_catch_up(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t from, uint64_t to,
		    uint64_t rsp);
bool exact_ran_past(struct vcpu *vcpu, const struct kvm_sregs *s, const struct kvm_regs *r,
		    const struct step_result *res);
void exact_catch_up_event(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t to,
			  uint64_t rsp);
void exact_catch_up_return(struct vcpu *vcpu, const struct kvm_sregs *s, const struct kvm_regs *r);

/* emulate.c: a PMI was delivered (KVM takes it before the emulator runs on); the engine's state freed. */
void exact_emulate_pmi_delivered(struct vcpu *vcpu);
void exact_emulate_free(struct exact_state *x);

/*
 * answer.c: RDTSC or RDPMC `in`, at r->rip, answered in place (RAX, RDX,
 * RIP past it); false where it faults or is neither: KVM runs it.
 */
bool exact_answer(struct vcpu *vcpu, const struct insn *in, struct kvm_regs *r,
		  const struct kvm_sregs *s);
/*
 * slice.c: at a slice's end (`now`, CLOCK_MONOTONIC ns), whether a stretch
 * of the emulation engine ends for an interrupt KVM could deliver now, or
 * for pmuvm's kick; with `irq_on` clear (RFLAGS.IF) only the kick counts.
 * Else *wait_ns is lowered to when the LAPIC timer is due, if sooner.
 * *timer_at: a one-shot timer's expiry foreseen, 0 at a stretch's start.
 */
bool exact_slice_due(struct vcpu *vcpu, bool irq_on, uint64_t now, uint64_t *wait_ns,
		     uint64_t *timer_at);
/* hlt.c: a stepped HLT at CPL0 done here; true if it retired (RIP past it). */
bool exact_emulate_hlt(struct vcpu *vcpu, struct kvm_regs *r);

#endif
