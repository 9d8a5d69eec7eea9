/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PMU feature: gives every vCPU a PMU model, routes the model's MSRs to
 * it (the KVM MSR filter is built from the model's own MSR list), sets the
 * PMU's CPUID leaves, and delivers the PMIs the model requests before the
 * next KVM_RUN. At start-up it also keeps KVM's own vPMU out of the way and
 * probes what this host's KVM does (the counting sources choose their paths
 * from that: docs/counting.md, "Per host kind").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "kvm/kvm.h"
#include "kvm/msr_filter.h"
#include "kvm/probe.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/listen.h"
#include "pmu/pmi.h"
#include "pmu/pmu.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"

uint32_t pmu_available_events(const struct pmuvm_config *cfg)
{
	uint32_t ev = 0;
	unsigned int i;

	for (i = 0; i < pmu_nr_sources; i++)
		ev |= pmu_sources[i]->events(cfg);
	return ev;
}

/*
 * KVM's own vPMU must stay out of the way: where the host has a PMU it would
 * answer the guest's RDPMC (SVM and VMX intercept RDPMC and emulate it from
 * KVM's counters, which pmuvm never programs: 0). KVM_PMU_CAP_DISABLE
 * (Documentation/virt/kvm/api.rst, KVM_CAP_PMU_CAPABILITY) turns it off for
 * this VM, so RDPMC takes the #GP that pmuvm completes (rdpmc/gp.c). It must
 * come before the first vCPU. Without it pmuvm still runs: the RDPMC probe
 * then tells what the guest's RDPMC gets.
 */
static bool pmu_disable_kvm_vpmu(struct vm *vm)
{
	int r = kvm_disable_vpmu(vm->vm_fd);

	if (r == -EOPNOTSUPP)
		return false;
	if (r) {
		pr_warn("cannot disable KVM's own vPMU (KVM_CAP_PMU_CAPABILITY): %s",
			strerror(-r));
		return false;
	}
	pr_info("KVM's own vPMU disabled for this VM (KVM_PMU_CAP_DISABLE)");
	return true;
}

static void pmu_probe_hw_breakpoints(struct vm *vm)
{
	int r = kvm_probe_hw_breakpoint(&vm->probes, &vm->pmu->caps.hw_breakpoints);

	if (r)
		pr_info("breakpoint probe failed (%s): assuming breakpoints do not fire",
			strerror(-r));
}

/*
 * KVM answers RDPMC only for its own counters (kvm_amd 6.1: 4, or 6 with
 * PERFCTR_CORE; ECX bits 31:30 ignored) and raises #GP for higher indices,
 * which pmuvm's PMU may have (8 GP counters by default). Counters are
 * numbered from 0: how many of `nr` from ECX = `type` | 0 on KVM answers,
 * asking the highest first (docs/intel-pmu.md 2.1: fixed counters are
 * ECX bit 30 | index).
 */
static unsigned int pmu_rdpmc_kvm_answers(struct vm *vm, uint32_t type, unsigned int nr)
{
	bool answered;

	while (nr > 0 && (kvm_probe_rdpmc(&vm->probes, type | (nr - 1), &answered) || !answered))
		nr--;
	return nr;
}

/*
 * Does this host's KVM answer a guest's RDPMC, and for which counters
 * (docs/counting.md, "RDPMC that KVM answers")? With a PMU, of its
 * counters; with none (version 0), where every RDPMC must #GP (SDM vol. 2B
 * RDPMC), of as many as any PMU here could have: those are the RDPMCs
 * pmuvm must make #GP (rdpmc/stepped.c, rdpmc/trap.c).
 */
static void pmu_probe_rdpmc(struct vm *vm)
{
	struct pmu_host_caps *caps = &vm->pmu->caps;
	const struct vpmu_config *pmu = &vm->cfg->pmu;
	unsigned int nr_gp = pmu->version ? pmu->nr_gp : VPMU_MAX_GP;
	unsigned int nr_fixed = pmu->version ? vpmu_fixed_span(pmu) : VPMU_MAX_FIXED;
	int r = kvm_probe_rdpmc(&vm->probes, 0, &caps->rdpmc_by_kvm);

	if (r)
		pr_info("RDPMC probe failed (%s): assuming guest RDPMC reaches pmuvm",
			strerror(-r));
	if (!pmu->version)
		pr_info("RDPMC: %s", caps->rdpmc_by_kvm ?
			"this host's KVM answers it from its own vPMU although the guest has no PMU: pmuvm raises #GP at those it steps, watches or traps" :
			"a guest RDPMC raises #GP, as it must with no PMU");
	else
		pr_info("RDPMC: %s", caps->rdpmc_by_kvm ?
			"this host's KVM answers it from its own vPMU (0): pmuvm's counters reach the guest's RDPMC only while it single-steps" :
			"a guest RDPMC reaches pmuvm (as a #GP it completes)");
	if (!caps->rdpmc_by_kvm)
		return;
	caps->rdpmc_kvm_gp = pmu_rdpmc_kvm_answers(vm, 0, nr_gp);
	caps->rdpmc_kvm_fixed = pmu_rdpmc_kvm_answers(vm, 1u << 30, nr_fixed);
	if (!pmu->version)
		return;
	caps->rdpmc_partly_by_kvm = caps->rdpmc_kvm_gp < pmu->nr_gp || caps->rdpmc_kvm_fixed < nr_fixed;
	if (caps->rdpmc_partly_by_kvm)
		pr_info("RDPMC: KVM answers %u of this PMU's %u GP counters and %u of its %u fixed ones and raises #GP for the rest: pmuvm completes those once the guest sets one",
			caps->rdpmc_kvm_gp, pmu->nr_gp, caps->rdpmc_kvm_fixed, nr_fixed);
}

static void pmu_probe_host(struct vm *vm)
{
	struct pmu_host_caps *caps = &vm->pmu->caps;
	int r;

	pmu_probe_rdpmc(vm);
	if (caps->rdpmc_by_kvm) {
		pmu_probe_hw_breakpoints(vm);
		pr_info("RDPMC: %s", caps->hw_breakpoints ?
			"instructions found after PMU MSR accesses are watched with breakpoints" :
			"breakpoints do not fire here: RDPMC is corrected only while counting steps");
	}
	if (!(pmu_available_events(vm->cfg) & ((1u << PMU_EV_INSTRUCTIONS) | (1u << PMU_EV_BRANCHES))))
		return;
	r = kvm_probe_user_step(&vm->probes, &caps->user_step);
	if (r)
		pr_info("user-mode single-step probe failed (%s): assuming CPL3 cannot be stepped",
			strerror(-r));
	pr_info("exact counting: this host %s single-step user mode (CPL3)",
		caps->user_step ? "can" : "cannot");
	r = kvm_probe_step_after_emulation(&vm->probes, &caps->step_after_emulation);
	if (r)
		pr_info("single-step after emulation probe failed (%s): assuming stepping stops there",
			strerror(-r));
	if (!caps->step_after_emulation)
		pr_info("exact counting: single-stepping stops after an instruction KVM emulates: pmuvm sets it again");
	r = kvm_probe_handler_step(&vm->probes, &caps->handler_step);
	if (r)
		pr_info("handler single-step probe failed (%s): assuming it does not step into handlers",
			strerror(-r));
	if (caps->handler_step) {
		pr_info("exact counting: single-stepping follows events into their handlers");
		return;
	}
	if (!caps->rdpmc_by_kvm)
		pmu_probe_hw_breakpoints(vm);
	caps->block_irq = (kvm_cap(vm->kvm_fd, KVM_CAP_SET_GUEST_DEBUG2) & KVM_GUESTDBG_BLOCKIRQ) != 0;
	pr_info("exact counting: single-stepping does not follow events into their handlers: %s",
		caps->hw_breakpoints && caps->block_irq ?
		"pmuvm follows them with breakpoints on their entries, interrupts held out of steps (KVM_GUESTDBG_BLOCKIRQ)" :
		caps->hw_breakpoints ? "KVM cannot hold interrupts out of a step (no KVM_GUESTDBG_BLOCKIRQ): handlers entered while stepping are not counted" :
		"breakpoints do not fire here: handlers entered while stepping are not counted");
}

static bool pmu_msr_is_mine(const void *ctx, uint32_t msr)
{
	return vpmu_msr_is_pmu(ctx, msr);
}

int pmu_msr_filter_install(struct vm *vm, const struct kvm_msr_span *extra, unsigned int nr_extra)
{
	struct kvm_msr_span spans[KVM_MSR_FILTER_MAX_RANGES];
	const struct vpmu_msr_span *model_spans;
	unsigned int i, n;

	n = vpmu_msr_spans(&vm->cfg->pmu, &model_spans);
	if (n + nr_extra > KVM_MSR_FILTER_MAX_RANGES)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		spans[i] = (struct kvm_msr_span){ model_spans[i].first, model_spans[i].last, false };
	for (i = 0; i < nr_extra; i++)
		spans[n + i] = extra[i];
	return kvm_msr_filter_install(vm->vm_fd, spans, n + nr_extra, pmu_msr_is_mine,
				      &vm->cfg->pmu);
}

static int pmu_vm_init(struct vm *vm)
{
	vm->pmu = calloc(1, sizeof(*vm->pmu));
	if (!vm->pmu) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	vm->pmu->caps.kvm_vpmu_disabled = pmu_disable_kvm_vpmu(vm);
	if (pmu_msr_filter_install(vm, NULL, 0))
		return PMUVM_EXIT_NO_KVM;
	pmu_probe_host(vm);
	return 0;
}

static void pmu_vm_exit(struct vm *vm)
{
	free(vm->pmu);
	vm->pmu = NULL;
}

static int pmu_vcpu_init(struct vcpu *vcpu)
{
	const struct pmuvm_config *cfg = vcpu->vm->cfg;
	struct vcpu_pmu *p = calloc(1, sizeof(*p));
	unsigned int i;

	if (!p) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	vcpu->pmu = p;
	vpmu_init(&p->model, &cfg->pmu);
	for (i = 0; i < pmu_nr_sources; i++) {
		if (!pmu_sources[i]->events(cfg))
			continue;
		p->sources |= 1u << i;
		/* board.c asserts that wrmsr_retires[] has room for every source. */
		if (pmu_sources[i]->wrmsr_retires)
			p->wrmsr_retires[p->nr_wrmsr_retires++] = pmu_sources[i]->wrmsr_retires;
	}
	if (cfg->event_filter_path)
		vpmu_set_filter(&p->model, &cfg->event_filter);
	return 0;
}

static void pmu_vcpu_exit(struct vcpu *vcpu)
{
	free(vcpu->pmu);
	vcpu->pmu = NULL;
}

static void pmu_before_run(struct vcpu *vcpu)
{
	if (vcpu->pmu->model.pmi_pending && vpmu_take_pmi(&vcpu->pmu->model))
		pmi_deliver(vcpu);
}

/*
 * A guest that enables a counter for an event no source here counts (one
 * CPUID.0AH marks unavailable on Intel; instructions and branches under
 * --exact off) reads 0 from it: said once per event, so a profile of zeros
 * is never silent (an AMD guest has no CPUID bit to tell it).
 */
static __attribute__((noinline)) void pmu_say_unavailable(struct vcpu *vcpu, uint32_t events)
{
	uint32_t said = __atomic_load_n(&vcpu->vm->pmu->unavailable_said, __ATOMIC_RELAXED);

	if (!(events & ~said))
		return;
	said = __atomic_fetch_or(&vcpu->vm->pmu->unavailable_said, events, __ATOMIC_RELAXED);
	for (int ev = 0; ev < PMU_EV_NR; ev++)
		if ((events & ~said) & (1u << ev))
			pr_warn("the guest counts %s, which pmuvm does not count here%s: it stays 0",
				pmu_event_name(ev), vcpu->vm->cfg->exact ? "" :
				" (--exact off leaves out instructions and branches)");
}

/*
 * A write is checked, then the counting sources count the WRMSR itself
 * with the counters as they were (the one that enables counting is not
 * counted, the one that disables it is), then it is committed. Out of
 * line: a read, the commoner exit, then needs no frame.
 */
static __attribute__((noinline)) int pmu_wrmsr(struct vcpu *vcpu, uint32_t index, uint64_t data)
{
	struct vcpu_pmu *p = vcpu->pmu;
	struct vpmu_checked_write w;
	unsigned int i;

	if (vpmu_wrmsr_check(&p->model, index, data, &w))
		return 1;
	/* Only a source that single-steps counts instructions one by one. */
	for (i = 0; vcpu->dbg.applied_step && i < p->nr_wrmsr_retires; i++)
		p->wrmsr_retires[i](vcpu);
	vpmu_wrmsr_commit(&p->model, &w, data);
	if (p->model.unavailable_enabled)
		pmu_say_unavailable(vcpu, p->model.unavailable_enabled);
	return 0;
}

/* Every MSR the filter routes here is the model's. */
static int pmu_msr(struct vcpu *vcpu, uint32_t index, bool is_write, uint64_t *data)
{
	struct vcpu_pmu *p = vcpu->pmu;
	bool counting = vpmu_counted_events(&p->model) != 0;
	int r = is_write ? pmu_wrmsr(vcpu, index, *data) : vpmu_rdmsr(&p->model, index, data);

	if (log_verbosity > 1)
		pr_debug("vCPU %d: %s MSR %#x %s %#llx%s", vcpu->id, is_write ? "WRMSR" : "RDMSR",
			 index, is_write ? "<-" : "->", (unsigned long long)*data, r ? ": #GP" : "");
	if (p->nr_listeners)
		pmu_msr_accessed(vcpu, counting || vpmu_counted_events(&p->model) != 0);
	return r;
}

const struct vcpu_feature pmu_feature = {
	.name = "pmu",
	.vm_init = pmu_vm_init,
	.vm_exit = pmu_vm_exit,
	.vcpu_init = pmu_vcpu_init,
	.vcpu_exit = pmu_vcpu_exit,
	.cpuid = pmu_cpuid,
	.before_run = pmu_before_run,
	.msr = pmu_msr,
};
