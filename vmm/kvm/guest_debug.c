#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm/guest_debug.h"
#include "kvm/vm.h"

#define DR7_L0			(1ULL << 0)
#define DR7_GE			(1ULL << 9)	/* SDM vol. 3B 18.2.4: exact match */
/* R/W0 = 00 (execution), LEN0 = 00 (1 byte): bits 16-19 stay 0. */

int guest_debug_apply(struct vcpu *vcpu)
{
	struct vcpu_debug *d = &vcpu->dbg;
	bool step = d->step || d->step_once;
	struct kvm_guest_debug g;

	if (step == d->applied_step && d->bp == d->applied_bp &&
	    (!d->bp || d->bp_addr == d->applied_addr))
		return 0;
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
