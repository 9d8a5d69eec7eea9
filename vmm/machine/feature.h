/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vCPU features: what the machine runs around KVM_RUN without knowing what
 * it is. The run loop knows only KVM exits and, per vCPU, a list of features
 * with optional hooks, called in list order (vmm/board.c composes the list:
 * the PMU, its counting sources, RDPMC emulation, PEBS, the profile). A
 * feature keeps its per-vCPU state behind its own pointer; the machine
 * never looks inside.
 */
#ifndef PMUVM_FEATURE_H
#define PMUVM_FEATURE_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

struct vm;
struct vcpu;

/* vcpu_init's "not needed on this vCPU": the feature's hooks are skipped there. */
#define VCPU_FEATURE_OFF	(-1)

/* msr's "not one of mine": the next feature is asked, and without one the guest gets #GP. */
#define VCPU_MSR_NOT_MINE	(-1)

struct vcpu_feature {
	const char *name;
	/* VM-wide, once the VM and its memory exist and before any vCPU: 0 or PMUVM_EXIT_*. */
	int (*vm_init)(struct vm *vm);
	void (*vm_exit)(struct vm *vm);
	/* After KVM_CREATE_VCPU: 0, VCPU_FEATURE_OFF, or a PMUVM_EXIT_* code. */
	int (*vcpu_init)(struct vcpu *vcpu);
	void (*vcpu_exit)(struct vcpu *vcpu);
	/* Adjusts the vCPU's CPUID before KVM_SET_CPUID2 (room for 8 more entries). */
	void (*cpuid)(struct vcpu *vcpu, struct kvm_cpuid2 *c);
	/* On the vCPU's own thread, before the first and after the last KVM_RUN. */
	int (*thread_start)(struct vcpu *vcpu);
	void (*thread_stop)(struct vcpu *vcpu);
	/* Around every KVM_RUN (after_run in list order too, also after a failed one). */
	void (*before_run)(struct vcpu *vcpu);
	void (*after_run)(struct vcpu *vcpu);
	/* KVM_EXIT_X86_RDMSR/WRMSR: 0 done, 1 #GP, VCPU_MSR_NOT_MINE. */
	int (*msr)(struct vcpu *vcpu, uint32_t index, bool is_write, uint64_t *data);
	/* KVM_EXIT_DEBUG: true if the feature caused it and has handled it. */
	bool (*debug_exit)(struct vcpu *vcpu);
};

/* Up to this many features per VM (vmm/board.c asserts its list fits). */
#define VM_MAX_FEATURES		12

#endif
