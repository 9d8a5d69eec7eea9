#ifndef PMUVM_CPUID_H
#define PMUVM_CPUID_H

struct vm;
struct vcpu;

/* Reads KVM_GET_SUPPORTED_CPUID once for the VM. */
int cpuid_load_supported(struct vm *vm);

/* Host-supported leaves with per-vCPU topology and pmuvm's PMU leaves; KVM_SET_CPUID2. */
int cpuid_setup_vcpu(struct vcpu *vcpu);

#endif
