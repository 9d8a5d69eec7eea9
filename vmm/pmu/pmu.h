/*
 * The VMM side of the virtual PMU: connects each vCPU's vpmu model to KVM
 * (MSR exits, PMI delivery through the LAPIC) and to the counting sources.
 */
#ifndef PMUVM_PMU_H
#define PMUVM_PMU_H

#include <stdint.h>

struct vcpu;
struct vm;
struct pmuvm_config;

/* Events the active counting sources can produce (CPUID.0AH:EBX). */
uint32_t pmu_available_events(const struct pmuvm_config *cfg);

/* Per VM, before the vCPUs: probes what the counting sources can do here. */
int pmu_vm_init(struct vm *vm);
int pmu_vcpu_init(struct vcpu *vcpu);
void pmu_vcpu_exit(struct vcpu *vcpu);

/* On the vCPU's own thread, before the first and after the last KVM_RUN. */
int pmu_vcpu_thread_start(struct vcpu *vcpu);
void pmu_vcpu_thread_stop(struct vcpu *vcpu);

/* Around every KVM_RUN: deliver PMIs, arm the sources; account what ran. */
void pmu_before_run(struct vcpu *vcpu);
void pmu_after_run(struct vcpu *vcpu);

/* msr_handler callbacks: 0, or 1 for #GP. */
int pmu_rdmsr(struct vcpu *vcpu, uint32_t msr, uint64_t *data);
int pmu_wrmsr(struct vcpu *vcpu, uint32_t msr, uint64_t data);

/* KVM_EXIT_DEBUG (single-step and the RDPMC breakpoint). */
int pmu_debug_exit(struct vcpu *vcpu);

#endif
