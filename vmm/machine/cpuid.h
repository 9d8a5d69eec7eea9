/* SPDX-License-Identifier: GPL-2.0-only */
/* The vCPUs' CPUID: KVM's supported leaves, the topology, then each feature's changes. */
#ifndef PMUVM_CPUID_H
#define PMUVM_CPUID_H

#include <linux/kvm.h>
#include <stdint.h>

struct vm;
struct vcpu;

/* Reads KVM_GET_SUPPORTED_CPUID once for the VM. */
int cpuid_load_supported(struct vm *vm);

/* Host-supported leaves, per-vCPU topology, the features' cpuid hooks; KVM_SET_CPUID2. */
int cpuid_setup_vcpu(struct vcpu *vcpu);

/* The entry for leaf `fn` (sub-leaf `idx` where it matters), or NULL. */
struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid2 *c, uint32_t fn, uint32_t idx);
/* ...or a new zeroed one (the array has room: feature.h). */
struct kvm_cpuid_entry2 *cpuid_add(struct kvm_cpuid2 *c, uint32_t fn);

#endif
