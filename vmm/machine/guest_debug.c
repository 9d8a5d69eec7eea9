#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "machine/guest_debug.h"
#include "machine/vcpu.h"

#define DR7_L0			(1ULL << 0)
#define DR7_GE			(1ULL << 9)	/* SDM vol. 3B 18.2.4: exact match */
/* R/W0 = 00 (execution), LEN0 = 00 (1 byte): bits 16-19 stay 0. */

/* KVM_SET_GUEST_DEBUG with these wishes, plus `inject` (KVM_GUESTDBG_INJECT_*). */
static int guest_debug_ioctl(struct vcpu *vcpu, bool step, bool bp, uint64_t bp_addr,
			     uint32_t inject)
{
	struct kvm_guest_debug g;

	memset(&g, 0, sizeof(g));
	if (step || bp || inject)
		g.control = KVM_GUESTDBG_ENABLE | inject;
	if (step)
		g.control |= KVM_GUESTDBG_SINGLESTEP;
	if (bp) {
		g.control |= KVM_GUESTDBG_USE_HW_BP;
		g.arch.debugreg[0] = bp_addr;
		g.arch.debugreg[7] = DR7_L0 | DR7_GE;
	}
	return ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &g) < 0 ? -errno : 0;
}

static int guest_debug_set(struct vcpu *vcpu)
{
	struct vcpu_debug *d = &vcpu->dbg;
	bool step = d->step || d->step_once;
	int r = guest_debug_ioctl(vcpu, step, d->bp, d->bp_addr, 0);

	if (r)
		return r;
	d->applied_step = step;
	d->applied_bp = d->bp;
	d->applied_addr = d->bp_addr;
	return 0;
}

int guest_debug_apply(struct vcpu *vcpu)
{
	struct vcpu_debug *d = &vcpu->dbg;
	bool step = d->step || d->step_once;

	if (step == d->applied_step && d->bp == d->applied_bp &&
	    (!d->bp || d->bp_addr == d->applied_addr))
		return 0;
	return guest_debug_set(vcpu);
}

int guest_debug_reapply(struct vcpu *vcpu)
{
	return guest_debug_set(vcpu);
}

/*
 * While pmuvm single-steps, RFLAGS.TF is set in the guest's real RFLAGS, so
 * an event delivered during a step pushes it into the guest's frame, and the
 * handler's IRET brings it back after stepping has ended: a single-step
 * trap nobody asked for (seen on SVM after a PMI flood). That TF is pmuvm's,
 * not the guest's: clear it and go on. Any other #DB (the guest's own
 * breakpoints or ICEBP, which KVM reports while guest debugging is on) is
 * the guest's: inject it, as a CPU without a debugger attached would.
 */
int guest_debug_stray_exit(struct vcpu *vcpu)
{
	const struct kvm_debug_exit_arch *a = &vcpu->run->debug.arch;
	struct vcpu_debug *d = &vcpu->dbg;
	struct kvm_sregs *sregs;
	struct kvm_regs *regs;
	int r;

	if (a->exception == 1 && (a->dr6 & X86_DR6_BS) && !d->applied_step) {
		if (vcpu_state(vcpu, &regs, &sregs))
			return -EIO;
		regs->rflags &= ~X86_RFLAGS_TF;
		d->tf_cleared++;
		return vcpu_state_changed(vcpu);
	}
	r = guest_debug_ioctl(vcpu, d->applied_step, d->applied_bp, d->applied_addr,
			      a->exception == 3 ? KVM_GUESTDBG_INJECT_BP : KVM_GUESTDBG_INJECT_DB);
	if (r)
		return r;
	d->db_passed_on++;
	return 0;
}
