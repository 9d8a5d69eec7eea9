/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KVM_SET_GUEST_DEBUG is shared by three users: the exact source
 * single-steps (with DR1-DR3 on the handlers it follows events into, where
 * stepping does not), RDPMC emulation keeps an instruction breakpoint on the
 * guest's #GP handler (DR0) where some RDPMC #GPs, and where KVM answers
 * RDPMC itself, the guest's RDPMC instructions are watched (DR1-DR3, while
 * not stepping); the
 * guest kernel's returns to user mode are watched after them, and in DR0
 * where RDPMC emulation leaves it free, while the kernel runs unstepped
 * (exact/krun.c).  Each sets its wish in vcpu->dbg; the ioctl runs
 * only on change.
 */
#ifndef PMUVM_GUEST_DEBUG_H
#define PMUVM_GUEST_DEBUG_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* DR1-DR3: the execution breakpoints vcpu_debug.watch may use. */
#define GUEST_DEBUG_WATCH_MAX	3

struct vcpu_debug {
	uint64_t tf_cleared;	/* stray single-step traps: pmuvm's TF left in RFLAGS */
	uint64_t db_passed_on;	/* other #DB exits pmuvm did not cause: injected */
	bool step;		/* wanted by the exact source: KVM_GUESTDBG_SINGLESTEP */
	bool step_once;		/* wanted for one KVM_RUN (RDPMC emulation) */
	bool bp;		/* wanted: execution breakpoint DR0 = bp_addr */
	uint64_t bp_addr;
	/*
	 * Wanted from the first single step on: every #DB exits to pmuvm. A
	 * trap flag pmuvm set can outlive stepping in a frame an event saved
	 * mid-step, and its trap must not reach the guest (stray_exit clears it).
	 */
	bool catch_db;
	/*
	 * Execution breakpoints DR1.. at these addresses, armed only while
	 * not single-stepping (a step sees every instruction anyway).
	 */
	uint64_t watch[GUEST_DEBUG_WATCH_MAX];
	unsigned int nr_watch;
	/* ...and in the DRs after them (then DR0), these: the kernel's return sites. */
	uint64_t ret_watch[GUEST_DEBUG_WATCH_MAX + 1];
	unsigned int nr_ret_watch;
	/*
	 * While single-stepping, DR1.. hold these instead: the handler entries
	 * the exact source follows events into (exact/follow.c); and
	 * KVM_GUESTDBG_BLOCKIRQ keeps KVM from injecting interrupts and NMIs
	 * into a step unless the source lets one in.
	 */
	uint64_t follow[GUEST_DEBUG_WATCH_MAX];
	unsigned int nr_follow;
	bool block_irq;
	bool applied_step, applied_bp, applied_catch_db, applied_block_irq;
	bool applied_dr0_ret;		/* DR0 = applied_addr is a return site */
	uint64_t applied_addr;
	unsigned int applied_nr_watch;	/* 0 while stepping */
	unsigned int applied_nr_ret_watch;	/* ...after them in applied_watch */
	uint64_t applied_watch[GUEST_DEBUG_WATCH_MAX];
	unsigned int applied_nr_follow;	/* 0 unless stepping */
	uint64_t applied_follow[GUEST_DEBUG_WATCH_MAX];
};

/* 0, or -errno from KVM_SET_GUEST_DEBUG (the old setting stays). */
int guest_debug_apply(struct vcpu *vcpu);
/* The same setting again: KVM then sets RFLAGS.TF again at the current RIP. */
int guest_debug_reapply(struct vcpu *vcpu);

/*
 * Single-step traps KVM makes itself: after it completed the stepped
 * instruction in its own emulator (an MMIO access, an emulated I/O string
 * instruction), KVM raises the step's debug exit without the CPU's #DB
 * (x86.c kvm_vcpu_do_singlestep), and on VMX and SVM its write-back of
 * RFLAGS leaves out the trap flag it steps with (__kvm_set_rflags keeps it
 * only at the RIP stepping was set at): the guest then runs unstepped.
 * The CPU's #DB exits fill debug.arch.dr7 (vmx.c handle_exception_nmi,
 * svm.c db_interception), KVM's own trap does not. So before a KVM_RUN
 * that steps, dr7 gets a value no DR7 can hold (bits 63:32 are reserved),
 * and a step exit that still has it came from KVM's emulator.
 */
void guest_debug_mark_run(struct vcpu *vcpu);
/* After a KVM_EXIT_DEBUG: true if KVM raised it itself (see above). */
bool guest_debug_trap_by_kvm(const struct vcpu *vcpu);

/* The watch slot (vcpu_debug.watch) this debug exit hit, or -1. */
int guest_debug_watch_hit(const struct vcpu *vcpu);
/* The return site (index in vcpu_debug.ret_watch) this debug exit hit, or -1. */
int guest_debug_ret_hit(const struct vcpu *vcpu);
/* How many return sites the debug registers have room for (not stepping). */
unsigned int guest_debug_ret_room(const struct vcpu *vcpu);
/* The follow slot (vcpu_debug.follow) this debug exit hit, or -1. */
int guest_debug_follow_hit(const struct vcpu *vcpu);

/*
 * A KVM_EXIT_DEBUG neither single-stepping nor a breakpoint claimed:
 * handled here so that no guest can end pmuvm with one. 0, or -errno.
 */
int guest_debug_stray_exit(struct vcpu *vcpu);

#endif
