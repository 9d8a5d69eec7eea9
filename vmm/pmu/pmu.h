/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PMU layer: each vCPU's PMU model (vmm/model) connected to KVM: MSR
 * exits, CPUID, PMI delivery through the LAPIC, the counting sources that
 * feed it (source.h), and the features that listen to it (listen.h; RDPMC
 * is one, vmm/rdpmc). State: vcpu_pmu.h.
 */
#ifndef PMUVM_PMU_H
#define PMUVM_PMU_H

#include <stdint.h>

struct pmuvm_config;
struct vcpu_feature;

/* Events the board's counting sources can produce (CPUID.0AH:EBX). */
uint32_t pmu_available_events(const struct pmuvm_config *cfg);

/* The PMU itself: model, MSRs, CPUID, PMIs (pmu.c). First in the board's list. */
struct vcpu;
struct kvm_cpuid2;
/* The guest's CPU identity and PMU leaves (cpuid.c): the PMU feature's cpuid hook. */
void pmu_cpuid(struct vcpu *vcpu, struct kvm_cpuid2 *c);

extern const struct vcpu_feature pmu_feature;

struct vm;
struct kvm_msr_span;
/*
 * KVM's MSR filter: the model's MSRs to pmuvm, and the `nr_extra` spans
 * `extra` besides (rdpmc/trap.c): 0, or -errno.
 */
int pmu_msr_filter_install(struct vm *vm, const struct kvm_msr_span *extra, unsigned int nr_extra);

#endif
