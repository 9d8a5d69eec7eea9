/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDPMC's state: per VM, what the image's scan found (sites.c), and per
 * vCPU, what the #GP completion, the watch and the traps keep (rdpmc.h).
 * On every vCPU with a PMU, whichever of RDPMC's features run there; where
 * KVM answers RDPMC itself (kvm/probe.c), this is also where the
 * correction of stepped RDPMCs starts listening (stepped.c).
 */
#include <stdlib.h>

#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/listen.h"
#include "pmu/vcpu_pmu.h"
#include "rdpmc/rdpmc.h"

static int rdpmc_vm_init(struct vm *vm)
{
	vm->pmu->rdpmc = calloc(1, sizeof(*vm->pmu->rdpmc));
	if (!vm->pmu->rdpmc) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	vm->pmu->rdpmc->nr_image = -1;
	return 0;
}

static void rdpmc_vm_exit(struct vm *vm)
{
	if (!vm->pmu)
		return;		/* the PMU's vm_init did not get that far */
	free(vm->pmu->rdpmc);
	vm->pmu->rdpmc = NULL;
}

static void rdpmc_vcpu_exit(struct vcpu *vcpu)
{
	free(vcpu->pmu->rdpmc);
	vcpu->pmu->rdpmc = NULL;
}

static int rdpmc_vcpu_init(struct vcpu *vcpu)
{
	vcpu->pmu->rdpmc = calloc(1, sizeof(*vcpu->pmu->rdpmc));
	if (!vcpu->pmu->rdpmc) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	if (vcpu->vm->pmu->caps.rdpmc_by_kvm && pmu_listen(vcpu, &rdpmc_stepped_listener)) {
		pr_err("vCPU %d: too many PMU listeners", vcpu->id);
		rdpmc_vcpu_exit(vcpu);
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

const struct vcpu_feature rdpmc_feature = {
	.name = "rdpmc",
	.vm_init = rdpmc_vm_init,
	.vm_exit = rdpmc_vm_exit,
	.vcpu_init = rdpmc_vcpu_init,
	.vcpu_exit = rdpmc_vcpu_exit,
};
