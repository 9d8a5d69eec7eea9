/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The vCPU's listeners (listen.h): added by features at vcpu_init, in
 * board order, and told of PMU MSR accesses and steps in that order.
 */
#include <errno.h>

#include "machine/vm.h"
#include "pmu/listen.h"
#include "pmu/vcpu_pmu.h"

int pmu_listen(struct vcpu *vcpu, const struct pmu_listener *l)
{
	struct vcpu_pmu *p = vcpu->pmu;

	if (p->nr_listeners == PMU_MAX_LISTENERS)
		return -ENOSPC;
	p->listeners[p->nr_listeners++] = l;
	return 0;
}

void pmu_stepped(struct vcpu *vcpu, struct pmu_step *st)
{
	const struct vcpu_pmu *p = vcpu->pmu;

	for (unsigned int i = 0; i < p->nr_listeners; i++)
		if (p->listeners[i]->stepped)
			p->listeners[i]->stepped(vcpu, st);
}

void pmu_msr_accessed(struct vcpu *vcpu, bool counting)
{
	const struct vcpu_pmu *p = vcpu->pmu;

	for (unsigned int i = 0; i < p->nr_listeners; i++)
		if (p->listeners[i]->msr_access)
			p->listeners[i]->msr_access(vcpu, counting);
}
