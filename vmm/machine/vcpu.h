/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A vCPU: its KVM handles, its thread, and the list of features that run
 * around its KVM_RUN (feature.h). It knows nothing of the PMU beyond one
 * pointer the PMU layer owns.
 */
#ifndef PMUVM_VCPU_H
#define PMUVM_VCPU_H

#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "machine/feature.h"
#include "machine/guest_debug.h"
#include "x86/x86.h"

struct vm;
struct vcpu_pmu;

/* Interrupts KVM_RUN: stop requests and the per-vCPU PMU timer (SIGUSR1 asks for progress). */
#define VCPU_KICK_SIGNAL	SIGUSR2

/* Exit kinds counted per vCPU for the report. */
/*
 * Where the guest was at its last few exits, from the registers KVM hands
 * back with each (KVM_CAP_SYNC_REGS). Printed at a triple fault: KVM on
 * AMD puts the vCPU through INIT at a shutdown (the VMCB is undefined
 * after it, APM vol. 2 15.9), so its registers are gone by then.
 */
#define VCPU_TRAIL_LEN	8

struct vcpu_trail {
	uint64_t rip, rsp, cr3;
	int run_result;			/* KVM_RUN's return value: -EINTR for a kick */
	uint32_t exit_reason;		/* kvm_run's, when run_result is 0 */
	uint16_t cs;
};

enum vcpu_exit_kind {
	VCPU_EXIT_IO,
	VCPU_EXIT_MMIO,
	VCPU_EXIT_MSR_READ,
	VCPU_EXIT_MSR_WRITE,
	VCPU_EXIT_HLT,
	VCPU_EXIT_INTR,
	VCPU_EXIT_DEBUG,
	VCPU_EXIT_SHUTDOWN,
	VCPU_EXIT_SYSTEM_EVENT,
	VCPU_EXIT_INTERNAL_ERROR,
	VCPU_EXIT_OTHER,
	VCPU_EXIT_NR,
};

extern const char *const vcpu_exit_kind_names[VCPU_EXIT_NR];

struct vcpu {
	struct vm *vm;
	int id;
	int fd;
	struct kvm_run *run;
	size_t run_size;
	pthread_t thread;
	bool thread_started;

	/* The board's features active on this vCPU, in order. */
	const struct vcpu_feature *features[VM_MAX_FEATURES];
	unsigned int nr_features;
	/* Their run hooks, gathered once: the loop around KVM_RUN is hot. */
	void (*before_run[VM_MAX_FEATURES])(struct vcpu *vcpu);
	void (*after_run[VM_MAX_FEATURES])(struct vcpu *vcpu);
	unsigned int nr_before_run, nr_after_run;
	int (*msr[VM_MAX_FEATURES])(struct vcpu *vcpu, uint32_t index, bool is_write,
				    uint64_t *data);
	unsigned int nr_msr;

	int run_result;			/* the last KVM_RUN's return value */
	bool time_run;			/* time the next KVM_RUN in thread CPU time (clock.c) */
	uint64_t run_cpu_ns;		/* ...its CPU time, the ioctl alone */
	bool sync_sregs;		/* kvm_run carries sregs after every exit */
	struct kvm_regs regs_copy;	/* vcpu_state() without sync regs */
	struct kvm_sregs sregs_copy;
	struct vcpu_debug dbg;		/* KVM_SET_GUEST_DEBUG wishes (guest_debug.h) */
	uint32_t warned;		/* bit per enum log_once_vcpu: said once already */

	struct vcpu_pmu *pmu;		/* the PMU layer's per-vCPU state (pmu/vcpu_pmu.h) */

	uint64_t exits[VCPU_EXIT_NR];
	struct vcpu_trail trail[VCPU_TRAIL_LEN];	/* a ring; trail_n exits in all */
	uint64_t trail_n;
	/* PMUVM_BENCH_TIMING=1 (make bench only, run.c): where the thread's time went. */
	uint64_t bench_vmm_ns;		/* between KVM_RUNs: pmuvm's own work */
	uint64_t bench_run_ns;		/* inside KVM_RUN */
};

int vcpu_create(struct vm *vm, struct vcpu *vcpu, int id);
void vcpu_destroy(struct vcpu *vcpu);
void *vcpu_thread(void *arg);
void vcpu_kick(struct vcpu *vcpu);

/* Prints the vCPU's registers to stderr (triple fault, internal error). */
void vcpu_dump_regs(struct vcpu *vcpu);

/* Prints the last exits' places, oldest first, to stderr (triple fault). */
void vcpu_dump_trail(const struct vcpu *vcpu);

/* Current privilege level (CS.DPL, or 0 outside protected mode). */
unsigned int vcpu_cpl(struct vcpu *vcpu);

/*
 * The last KVM_RUN ended in a guest access pmuvm completes (a port, MMIO,
 * an MSR): KVM finishes the instruction on the next KVM_RUN.
 */
bool vcpu_exit_is_access(const struct vcpu *vcpu);

/*
 * The registers as of the last exit: the kvm_run sync area when KVM has
 * one, else fetched copies.  After changing *regs, call vcpu_state_changed()
 * so the next KVM_RUN uses them.
 */
int vcpu_state_fetch(struct vcpu *vcpu, struct kvm_regs **regs, struct kvm_sregs **sregs);
int vcpu_state_changed(struct vcpu *vcpu);
/*
 * The same, for a vCPU that may be single-stepping: the registers go to KVM
 * at once and stepping is set again at their RIP. KVM keeps the trap flag
 * it steps with only while RFLAGS is written at the RIP where stepping was
 * set (x86.c __kvm_set_rflags()), so a write anywhere else, even of RAX
 * alone, would end stepping silently.
 */
int vcpu_state_changed_stepping(struct vcpu *vcpu);

static inline int vcpu_state(struct vcpu *vcpu, struct kvm_regs **regs,
			     struct kvm_sregs **sregs)
{
	if (!vcpu->sync_sregs)
		return vcpu_state_fetch(vcpu, regs, sregs);
	*regs = &vcpu->run->s.regs.regs;
	*sregs = &vcpu->run->s.regs.sregs;
	return 0;
}

/* The guest's MSR `index` as KVM holds it (KVM_GET_MSRS): 0, or -EIO if KVM cannot read it. */
int vcpu_read_msr(struct vcpu *vcpu, uint32_t index, uint64_t *data);
/* The same, 0 if KVM cannot read it. */
uint64_t vcpu_get_msr(struct vcpu *vcpu, uint32_t index);
/* Sets the guest's MSR `index` in KVM (KVM_SET_MSRS): 0, or -EIO if KVM refuses it. */
int vcpu_write_msr(struct vcpu *vcpu, uint32_t index, uint64_t data);

/* True the first time this vCPU warns about `what` (enum log_once_vcpu); thread-safe. */
bool vcpu_warn_once(struct vcpu *vcpu, unsigned int what);

#endif
