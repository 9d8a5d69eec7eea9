/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Catching up: instructions that ran within one step without a trap of
 * their own, found by walking the straight-line code from where the step
 * began (or returned, or entered a handler) to where it ended, and each
 * counted as it retired. Where the walk cannot get there, what ran is not
 * counted (debug.exact.steps_not_caught_up) and said once.
 */
#include <stdlib.h>
#include <string.h>

#include "exact/icache.h"
#include "exact/internal.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"

/*
 * A step that ran past the instruction after an IRET: KVM's emulator
 * reloads RFLAGS from the frame, dropping the trap flag it stepped with,
 * so the first instruction at the return address runs in the same step
 * (seen on kvm_pvm).  Walk the straight-line code from `from` to `to`,
 * counting what is in between; give up after a few instructions.
 */
#define CATCH_UP_MAX	4

/*
 * The first instruction caught up is a near RET or an indirect near CALL
 * that went to `to`: the stack shows it (the return address just popped
 * sits below RSP, the one just pushed at RSP). Only where it is the one
 * instruction of the step: nothing else could have moved RIP there.
 */
static bool exact_indirect_went_to(struct vcpu *vcpu, const struct paging_state *ps,
				   const struct insn *in, uint64_t from, uint64_t to, uint64_t rsp)
{
	uint64_t slot;

	if (in->flags & INSN_FAR)
		return false;
	if (in->flags & INSN_NEAR_RET)
		return !guest_linear_read(&vcpu->vm->mem, ps, rsp - 8, &slot, sizeof(slot)) &&
		       slot == to;
	if (in->flags & INSN_NEAR_CALL)
		return !guest_linear_read(&vcpu->vm->mem, ps, rsp, &slot, sizeof(slot)) &&
		       slot == from + in->len;
	return false;
}

/*
 * Walks the code from `from` towards `to` as exact_catch_up() says, and
 * retires each instruction on the way if `retire`. True if it got there.
 */
static bool exact_walk(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t from, uint64_t to,
		       uint64_t rsp, bool retire)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps = sregs_paging(s);
	struct insn in;
	unsigned int n;

	for (n = 0; n < CATCH_UP_MAX && from != to; n++) {
		bool taken, indirect = false;

		if (icache_fetch(x->icache, &vcpu->vm->mem, &ps, from, sregs_cpl(s) == 3,
				 insn_mode_of(s), &in))
			break;
		if (in.flags & INSN_BRANCH && !(in.flags & INSN_RELATIVE)) {
			indirect = n == 0 && insn_mode_of(s) == INSN_MODE_64 &&
				   exact_indirect_went_to(vcpu, &ps, &in, from, to, rsp);
			if (!indirect)
				break;
		}
		taken = indirect || ((in.flags & INSN_RELATIVE) && insn_rel_target(&in, from) == to);
		if (retire) {
			x->insn = in;
			x->rip = from;
			x->cpl = sregs_cpl(s);
			exact_retire(vcpu, taken || (in.flags & INSN_NEAR_UNCOND) ?
				     RETIRE_TAKEN : RETIRE_YES);
			x->caught_up++;
		}
		from = taken ? to : from + in.len;
	}
	return from == to;
}

void exact_catch_up(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t from,
			   uint64_t to, uint64_t rsp)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!exact_walk(vcpu, s, from, to, rsp, true)) {
		x->steps_not_caught_up++;
		if (vcpu_warn_once(vcpu, LOG_ONCE_STEP_LOST))
			pr_warn("vCPU %d: a single step from %#llx ran to %#llx; the instructions in between are not counted",
				vcpu->id, (unsigned long long)from, (unsigned long long)to);
	}
}

/*
 * A step of an instruction that is no branch ended further down the same
 * straight-line code, at the same CPL, with no event frame: the host ran
 * the next instruction(s) in the same step. kvm_pvm's emulator raises no
 * single-step trap after MFENCE, LFENCE or SFENCE, so each fence and the
 * instruction after it came back as one step that went "somewhere
 * unexpected", and neither was counted. The instruction retired; the rest
 * is caught up (debug.exact.ran_past in the report).
 */
bool exact_ran_past(struct vcpu *vcpu, const struct kvm_sregs *s,
			   const struct kvm_regs *r, const struct step_result *res)
{
	struct exact_state *x = vcpu->pmu->exact;
	uint64_t next = x->rip + x->insn.len;

	return !res->event &&
	       !(x->insn.flags & (INSN_BRANCH | INSN_REP | INSN_HLT | INSN_WRMSR)) &&
	       x->cpl == sregs_cpl(s) && r->rip != x->rip && r->rip != next &&
	       exact_walk(vcpu, s, next, r->rip, r->rsp, false);
}

/*
 * An exception or interrupt was delivered during the step.  Delivery clears
 * TF like IRET reloads it, so on kvm_pvm the handler's first instruction
 * runs in the same step.  Find the gate whose handler is one instruction
 * before where the step ended and count that instruction.
 */
static uint64_t gate_target(const uint8_t *idt, unsigned int i)
{
	uint64_t g[2];

	memcpy(g, idt + i * IDT_GATE64_SIZE, sizeof(g));
	return idt_gate64_target(g);
}

void exact_catch_up_event(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t to,
				 uint64_t rsp)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps = sregs_paging(s);
	unsigned int n = (s->idt.limit + 1u) / IDT_GATE64_SIZE, i;
	struct insn in;
	uint64_t t;

	if (insn_mode_of(s) != INSN_MODE_64)
		return;
	if (n > 256)
		n = 256;
	if (!x->idt_copy)
		x->idt_copy = malloc(256 * IDT_GATE64_SIZE);
	if (!x->idt_copy ||
	    guest_linear_read(&vcpu->vm->mem, &ps, s->idt.base, x->idt_copy, n * IDT_GATE64_SIZE))
		return;
	for (i = 0; i < n; i++)
		if (gate_target(x->idt_copy, i) == to)
			return;		/* stopped at the handler's entry: nothing ran */
	for (i = 0; i < n; i++) {
		t = gate_target(x->idt_copy, i);
		if (t && t < to && to - t <= INSN_MAX_LEN &&
		    !icache_fetch(x->icache, &vcpu->vm->mem, &ps, t, false, INSN_MODE_64, &in) &&
		    !(in.flags & INSN_BRANCH) && t + in.len == to) {
			exact_catch_up(vcpu, s, t, to, rsp);
			return;
		}
	}
}

/*
 * After a stepped IRET or SYSRET: where it was to return to (x->iret_frame),
 * and the instructions that ran there within the step, at the CPL returned
 * to (one that set TF from the frame or R11 traps only after the next
 * instruction, SDM vol. 3B 17.3.1.4). Where the host cannot step CPL3
 * (kvm_pvm), user code returned to runs free until it comes back, uncounted.
 */
void exact_catch_up_return(struct vcpu *vcpu, const struct kvm_sregs *s, const struct kvm_regs *r)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!x->iret_frame[0])
		return;
	if ((x->iret_frame[1] & 3) == 3 && !vcpu->vm->pmu->caps.user_step) {
		/* It runs free until it comes back. */
		x->user_runs_uncounted += exact_user_lost(vcpu);
	} else if (r->rip != x->iret_frame[0] && (x->iret_frame[1] & 3) == sregs_cpl(s))
		exact_catch_up(vcpu, s, x->iret_frame[0], r->rip, r->rsp);
}
