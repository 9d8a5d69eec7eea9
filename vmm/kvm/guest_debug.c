#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm/guest_debug.h"
#include "kvm/vcpu.h"
#include "kvm/vm.h"

#define DR6_BS			(1ULL << 14)	/* SDM vol. 3B 18.2.3: single step */
#define X86_RFLAGS_TF		(1ULL << 8)
#define DR7_L0			(1ULL << 0)
#define DR7_GE			(1ULL << 9)	/* SDM vol. 3B 18.2.4: exact match */
/* R/W0 = 00 (execution), LEN0 = 00 (1 byte): bits 16-19 stay 0. */

static int guest_debug_set(struct vcpu *vcpu)
{
	struct vcpu_debug *d = &vcpu->dbg;
	bool step = d->step || d->step_once;
	struct kvm_guest_debug g;

	memset(&g, 0, sizeof(g));
	if (step || d->bp)
		g.control = KVM_GUESTDBG_ENABLE;
	if (step)
		g.control |= KVM_GUESTDBG_SINGLESTEP;
	if (d->bp) {
		g.control |= KVM_GUESTDBG_USE_HW_BP;
		g.arch.debugreg[0] = d->bp_addr;
		g.arch.debugreg[7] = DR7_L0 | DR7_GE;
	}
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &g) < 0)
		return -errno;
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
	struct kvm_guest_debug g;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (a->exception == 1 && (a->dr6 & DR6_BS) && !d->applied_step) {
		if (vcpu_state(vcpu, &r, &s))
			return -EIO;
		r->rflags &= ~X86_RFLAGS_TF;
		d->tf_cleared++;
		return vcpu_state_changed(vcpu);
	}
	memset(&g, 0, sizeof(g));
	g.control = KVM_GUESTDBG_ENABLE |
		    (a->exception == 3 ? KVM_GUESTDBG_INJECT_BP : KVM_GUESTDBG_INJECT_DB);
	if (d->applied_step)
		g.control |= KVM_GUESTDBG_SINGLESTEP;
	if (d->applied_bp) {
		g.control |= KVM_GUESTDBG_USE_HW_BP;
		g.arch.debugreg[0] = d->applied_addr;
		g.arch.debugreg[7] = DR7_L0 | DR7_GE;
	}
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &g) < 0)
		return -errno;
	d->db_passed_on++;
	return 0;
}
