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
	bool step;		/* wanted by the exact source: KVM_GUESTDBG_SINGLESTEP */
	bool step_once;		/* wanted for one KVM_RUN (RDPMC emulation) */
	bool bp;		/* wanted: execution breakpoint DR0 = bp_addr */
	uint64_t bp_addr;
	bool applied_step, applied_bp;
	uint64_t applied_addr;
};

/* 0, or -errno from KVM_SET_GUEST_DEBUG (the old setting stays). */
int guest_debug_apply(struct vcpu *vcpu);

#endif
