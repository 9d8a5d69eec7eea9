/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * HLT while stepping is done here: on kvm_pvm, KVM's own HLT under
 * single-step leaves the vCPU halted after the interrupt that woke it
 * returns, and a vCPU put in KVM_MP_STATE_HALTED with the interrupt
 * already pending in IRR is not woken by it either.  HLT retires (SDM
 * vol. 2 HLT: the saved RIP points after it); the vCPU then halts in KVM
 * only if no interrupt is pending (IRR empty), else the interrupt is taken
 * right after it, as on hardware.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "exact/internal.h"
#include "log.h"
#include "machine/lapic.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"

/* An interrupt waits in the LAPIC's IRR (SDM vol. 3A 10.8.4). */
static bool lapic_irr_pending(struct vcpu *vcpu)
{
	struct kvm_lapic_state lapic;

	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &lapic) < 0)
		return true;		/* do not risk sleeping forever */
	return lapic_highest(&lapic, APIC_IRR) >= 0;
}

/* True if it did: RIP moved past the HLT. */
bool exact_emulate_hlt(struct vcpu *vcpu, struct kvm_regs *r)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_HALTED };
	struct kvm_vcpu_events ev;

	/* The STI shadow HLT may sit in ends with it. */
	if (ioctl(vcpu->fd, KVM_GET_VCPU_EVENTS, &ev) == 0 && ev.interrupt.shadow) {
		ev.interrupt.shadow = 0;
		ev.flags = KVM_VCPUEVENT_VALID_SHADOW;
		/* Kept, the shadow would outlive the HLT: let KVM run it instead. */
		if (ioctl(vcpu->fd, KVM_SET_VCPU_EVENTS, &ev) < 0)
			return false;
	}
	r->rip += vcpu->pmu->exact->insn.len;
	if (vcpu_state_changed_stepping(vcpu)) {
		r->rip -= vcpu->pmu->exact->insn.len;
		return false;
	}
	exact_retire(vcpu, RETIRE_YES);
	vcpu->pmu->exact->pending = false;
	vcpu->pmu->exact->hlts++;
	if (!lapic_irr_pending(vcpu) && ioctl(vcpu->fd, KVM_SET_MP_STATE, &mp) < 0 &&
	    vcpu_warn_once(vcpu, LOG_ONCE_HALT_STATE))
		pr_warn("vCPU %d: KVM_SET_MP_STATE(HALTED): %s", vcpu->id, strerror(errno));
	return true;
}
