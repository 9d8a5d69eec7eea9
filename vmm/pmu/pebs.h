#ifndef PMUVM_PMU_PEBS_H
#define PMUVM_PMU_PEBS_H

struct vcpu;

/*
 * After the counting sources have run (pmu_after_run): performs the PEBS
 * assist for counters armed by an overflow, with the vCPU's state now.
 */
void pmu_pebs_after_run(struct vcpu *vcpu);

#endif
