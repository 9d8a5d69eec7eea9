/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trap flag, which stepping owns (docs/counting.md, "Single-stepping on
 * VMX and SVM"): KVM single-steps by RFLAGS.TF, and every instruction that
 * reloads RFLAGS, every event delivered on VMX/SVM and every instruction
 * KVM's emulator completes can drop it, while what the guest saves of
 * RFLAGS must never keep it. Here: TF set again (re-armed), SYSRET's R11,
 * TF cleared from what the guest saved, and the exits that show stepping
 * was lost.
 */
#include "exact/icache.h"
#include "exact/internal.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"

/*
 * KVM sets RFLAGS.TF for single-stepping only when guest debug is set
 * (kvm_arch_vcpu_ioctl_set_guest_debug: at that RIP), and the instruction
 * just stepped reloaded RFLAGS (an IRETQ into CPL3 code, a POPF, SYSRET)
 * or KVM's emulator completed it (exact_kvm_dropped_tf()), which on
 * VMX/SVM leaves the guest running unstepped from here on. Set it again at
 * the new RIP.
 */
void exact_rearm(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!x->stepping || !x->rearm)
		return;
	x->rearm = false;
	if (guest_debug_reapply(vcpu) == 0)
		x->rearms++;
}

/*
 * SYSRET loads RFLAGS from R11, and whether a single-step trap follows it
 * depends on the TF it loads (QEMU's SVM, rechecking TF after SYSCALL and
 * SYSRET; hardware traps after the next instruction where an instruction
 * sets TF, SDM vol. 3B 17.3.1.4). A kernel entered unstepped (no TF saved
 * in R11: counting enabled inside it) returns with TF clear, and its user
 * code would run unstepped. So R11 gets TF for that one step, and loses it
 * again after: the user code sees the R11 it had. KVM adds its stepping TF
 * to the RFLAGS userspace sets only at the RIP single-stepping was set up
 * at (__kvm_set_rflags()), so the change goes in with the guest debug state
 * again: else SYSRET would start with TF clear, set it from R11, and trap
 * only after the next instruction, as VMX does (SDM vol. 3B 17.3.1.4).
 */
void exact_sysret_tf(struct vcpu *vcpu, struct kvm_regs *r, bool set)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (set) {
		if (!(x->insn.flags & INSN_SYSRET) || x->cpl != 0 ||
		    !vcpu->vm->pmu->caps.user_step || (r->r11 & X86_RFLAGS_TF))
			return;
		r->r11 |= X86_RFLAGS_TF;
		x->sysret_tf = true;
		x->sysret_tf_set++;
	} else {
		if (!x->sysret_tf)
			return;
		r->r11 &= ~X86_RFLAGS_TF;
		x->sysret_tf = false;
	}
	vcpu_state_changed_stepping(vcpu);
}

/* Clears TF in the RFLAGS image the guest keeps at `la`; true if it was set. */
static bool exact_untrace_slot(struct vcpu *vcpu, const struct paging_state *ps, uint64_t la)
{
	uint64_t v;

	if (guest_linear_read(&vcpu->vm->mem, ps, la, &v, sizeof(v)) || !(v & X86_RFLAGS_TF))
		return false;
	v &= ~X86_RFLAGS_TF;
	return !guest_linear_write(&vcpu->vm->mem, ps, la, &v, sizeof(v));
}

/*
 * pmuvm's trap flag must never reach what the guest saves. While stepping,
 * KVM keeps RFLAGS.TF set, so a stepped PUSHF or SYSCALL (R11), and the
 * frame of an event delivered in a step, carry it; the POPF, SYSRET or IRET
 * that restores it after stepping has ended would trap into the guest (on
 * kvm_pvm the emulator queues that #DB to the guest directly, where no exit
 * can catch it: guest_debug.h's catch_db works only on VMX/SVM). Cleared
 * where the step left it; while stepping goes on, the instruction that
 * restores it is followed by a re-arm (exact_rearm()). A guest's own
 * TF under stepping is not told apart: pmuvm's stepping owns TF.
 */
void exact_untrace(struct vcpu *vcpu, struct kvm_regs *r, const struct kvm_sregs *s,
			  const struct step_result *res, enum retire how)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps;
	bool cleared = false;

	if (insn_mode_of(s) != INSN_MODE_64)
		return;
	ps = sregs_paging(s);
	if (res->event && res->frame_valid) {
		/* [push,] [err,] RIP, CS, RFLAGS: retire_decide() matched the CS slot. */
		for (unsigned int i = 1; i < sizeof(res->frame) / sizeof(res->frame[0]); i++) {
			if ((uint16_t)res->frame[i] == x->cs) {
				cleared = exact_untrace_slot(vcpu, &ps, r->rsp + 8 * (i + 1));
				break;
			}
		}
	} else if (how != RETIRE_NO && (x->insn.flags & INSN_SAVES_RFLAGS)) {
		if (x->insn.flags & INSN_FAR) {		/* SYSCALL: RFLAGS in R11 */
			/*
			 * Stopped at its target (follow.c), stepping goes on to
			 * the SYSRET, whose R11 must keep TF to trap after it.
			 */
			if ((r->r11 & X86_RFLAGS_TF) && !x->rearm) {
				r->r11 &= ~X86_RFLAGS_TF;
				cleared = !vcpu_state_changed_stepping(vcpu);
			}
		} else {
			cleared = exact_untrace_slot(vcpu, &ps, r->rsp);
		}
	}
	x->tf_untraced += cleared;
}

/*
 * An exit other than a debug exit, while stepping, at another instruction
 * than the one the step was to run: the trap flag was lost on the way and
 * the guest ran unstepped from there, uncounted and with its RDPMCs
 * reading KVM's value. Said and counted as a handler run uncounted; the
 * exit's instruction is decoded (an MSR exit's WRMSR counts there) and TF
 * set again before the guest goes on.
 */
bool exact_step_lost(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (vcpu->run_result != 0 || vcpu->run->exit_reason == KVM_EXIT_DEBUG ||
	    vcpu_state(vcpu, &r, &s) || (r->rip == x->rip && s->cs.selector == x->cs))
		return false;
	x->stepping_lost++;
	exact_handler_unstepped(vcpu);
	icache_flush_tlb(x->icache);	/* the guest ran unobserved */
	if (sregs_cpl(s) != 3 || vcpu->vm->pmu->caps.user_step)
		exact_decode_next(vcpu, r, s);
	else
		x->pending = false;
	x->rearm = true;
	return true;
}

/*
 * A step exit whose trap KVM raised itself after completing the
 * instruction in its emulator (machine/guest_debug.h): where that drops
 * the trap flag (the probe's debug.host.step_survives_emulation), it is
 * set again before the next step, or the guest would run on unstepped and
 * uncounted up to the next exit (after an xAPIC EOI, a store to the LAPIC
 * page, the rest of a PMI handler and the code it returns to).
 */
bool exact_kvm_dropped_tf(struct vcpu *vcpu)
{
	if (!guest_debug_trap_by_kvm(vcpu))
		return false;
	vcpu->pmu->exact->kvm_traps++;
	return !vcpu->vm->pmu->caps.step_after_emulation;
}

/*
 * An MMIO write exit of the stepped instruction: KVM's emulator completed
 * it before exiting (RIP is past it), and no single-step trap follows the
 * write's completion (x86.c complete_emulated_mmio). It retired here, and
 * stepping is set again at the next instruction.
 */
bool exact_mmio_write_done(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (vcpu->run_result != 0 || vcpu->run->exit_reason != KVM_EXIT_MMIO ||
	    !vcpu->run->mmio.is_write || (x->insn.flags & INSN_BRANCH) ||
	    vcpu_state(vcpu, &r, &s) || r->rip != x->rip + x->insn.len ||
	    s->cs.selector != x->cs)
		return false;
	if (!x->counted)
		exact_retire(vcpu, RETIRE_YES);
	exact_tell_step(vcpu, true, true);
	x->pending = false;
	x->rearm = true;
	return true;
}
