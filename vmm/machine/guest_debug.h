/*
 * KVM_SET_GUEST_DEBUG is shared by two users: the exact source single-steps
 * and RDPMC emulation keeps an instruction breakpoint on the guest's #GP
 * handler.  Each sets its wish in vcpu->dbg; the ioctl runs only on change.
 */
#ifndef PMUVM_GUEST_DEBUG_H
#define PMUVM_GUEST_DEBUG_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

struct vcpu_debug {
	uint64_t tf_cleared;	/* stray single-step traps: pmuvm's TF left in RFLAGS */
	uint64_t db_passed_on;	/* other #DB exits pmuvm did not cause: injected */
	bool step;		/* wanted by the exact source: KVM_GUESTDBG_SINGLESTEP */
	bool step_once;		/* wanted for one KVM_RUN (RDPMC emulation) */
	bool bp;		/* wanted: execution breakpoint DR0 = bp_addr */
	uint64_t bp_addr;
	bool applied_step, applied_bp;
	uint64_t applied_addr;
};

/* 0, or -errno from KVM_SET_GUEST_DEBUG (the old setting stays). */
int guest_debug_apply(struct vcpu *vcpu);
/* The same setting again: KVM then sets RFLAGS.TF again at the current RIP. */
int guest_debug_reapply(struct vcpu *vcpu);

/*
 * A KVM_EXIT_DEBUG neither single-stepping nor the RDPMC breakpoint claimed:
 * handled here so that no guest can end pmuvm with one. 0, or -errno.
 */
int guest_debug_stray_exit(struct vcpu *vcpu);

#endif
