#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "exitcode.h"
#include "kvm/kvm.h"
#include "kvm/vcpu.h"
#include "log.h"
#include "pmu/pebs.h"
#include "pmu/pmi.h"
#include "pmu/pmu.h"
#include "pmu/profile.h"
#include "pmu/rdpmc.h"

/* The active counting sources, in the order they are run. */
static const struct pmu_source_ops *const pmu_sources[] = {
	&pmu_clock_source,
	&pmu_exact_source,
};

#define NR_SOURCES (sizeof(pmu_sources) / sizeof(pmu_sources[0]))

/* Iterates over the sources active on `vcpu`. */
#define for_each_source(vcpu, i)					\
	for ((i) = 0; (i) < NR_SOURCES; (i)++)				\
		if ((vcpu)->sources & (1u << (i)))

uint32_t pmu_available_events(const struct pmuvm_config *cfg)
{
	uint32_t ev = 0;
	size_t i;

	for (i = 0; i < NR_SOURCES; i++)
		ev |= pmu_sources[i]->events(cfg);
	return ev;
}

int pmu_vm_init(struct vm *vm)
{
	int r;

	if (vm->cfg->pmu.version) {
		r = exact_probe_rdpmc(vm->kvm_fd, &vm->rdpmc_by_kvm);
		if (r)
			pr_info("RDPMC probe failed (%s): assuming guest RDPMC reaches pmuvm",
				strerror(-r));
		pr_info("RDPMC: %s", vm->rdpmc_by_kvm ?
			"this host's KVM answers it from its own vPMU (0): pmuvm's counters reach the guest's RDPMC only while it single-steps" :
			"a guest RDPMC reaches pmuvm (as a #GP it completes)");
	}
	if (!(pmu_available_events(vm->cfg) & ((1u << PMU_EV_INSTRUCTIONS) | (1u << PMU_EV_BRANCHES))))
		return 0;
	r = exact_probe_user_step(vm->kvm_fd, &vm->user_step_ok);
	if (r)
		pr_info("user-mode single-step probe failed (%s): assuming CPL3 cannot be stepped",
			strerror(-r));
	pr_info("exact counting: this host %s single-step user mode (CPL3)",
		vm->user_step_ok ? "can" : "cannot");
	r = exact_probe_handler_step(vm->kvm_fd, &vm->handler_step_ok);
	if (r)
		pr_info("handler single-step probe failed (%s): assuming it does not step into handlers",
			strerror(-r));
	pr_info("exact counting: single-stepping %s events into their handlers%s",
		vm->handler_step_ok ? "follows" : "does not follow",
		vm->handler_step_ok ? "" : " (handlers entered while stepping are not counted)");
	return 0;
}

int pmu_vcpu_init(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	long khz;

	vpmu_init(&vcpu->pmu, &vm->cfg->pmu);
	for (size_t i = 0; i < NR_SOURCES; i++)
		if (pmu_sources[i]->events(vm->cfg))
			vcpu->sources |= 1u << i;
	if (vm->cfg->event_filter_path)
		vpmu_set_filter(&vcpu->pmu, &vm->cfg->event_filter);

	khz = ioctl(vcpu->fd, KVM_GET_TSC_KHZ, 0);
	if (khz <= 0) {
		pr_err("KVM_GET_TSC_KHZ: %s", khz < 0 ? strerror(errno) : "returned 0");
		return PMUVM_EXIT_NO_KVM;
	}
	vm->tsc_khz = (uint64_t)khz;
	vcpu->clock.ref_khz = (uint64_t)khz;
	vcpu->clock.core_khz = vm->cfg->cpu_khz ? vm->cfg->cpu_khz : (uint64_t)khz;

	/* The CPL of every exit comes with kvm_run instead of a KVM_GET_SREGS. */
	if (kvm_cap(vm->vm_fd, KVM_CAP_SYNC_REGS) & KVM_SYNC_X86_SREGS) {
		vcpu->run->kvm_valid_regs = KVM_SYNC_X86_SREGS | KVM_SYNC_X86_REGS;
		vcpu->sync_sregs = true;
	}
	return 0;
}

void pmu_vcpu_exit(struct vcpu *vcpu)
{
	profile_free(vcpu);
	exact_vcpu_free(vcpu);
}

int pmu_vcpu_thread_start(struct vcpu *vcpu)
{
	size_t i;
	int r;

	for_each_source(vcpu, i) {
		if (!pmu_sources[i]->thread_start)
			continue;
		r = pmu_sources[i]->thread_start(vcpu);
		if (r)
			return r;
	}
	return 0;
}

void pmu_vcpu_thread_stop(struct vcpu *vcpu)
{
	size_t i;

	for (i = NR_SOURCES; i-- > 0;)
		if ((vcpu->sources & (1u << i)) && pmu_sources[i]->thread_stop)
			pmu_sources[i]->thread_stop(vcpu);
}

void pmu_before_run(struct vcpu *vcpu)
{
	size_t i;

	if (vpmu_take_pmi(&vcpu->pmu))
		pmi_deliver(vcpu);
	rdpmc_before_run(vcpu);
	for_each_source(vcpu, i)
		pmu_sources[i]->before_run(vcpu);
}


void pmu_after_run(struct vcpu *vcpu)
{
	unsigned int cpl = 0;
	uint64_t ovf;
	size_t i;

	/* The CPL only matters while something counts. */
	if (vpmu_counted_events(&vcpu->pmu))
		cpl = vcpu_cpl(vcpu);
	for_each_source(vcpu, i)
		pmu_sources[i]->after_run(vcpu, cpl);
	pmu_pebs_after_run(vcpu);
	ovf = vpmu_take_overflows(&vcpu->pmu);
	if (ovf)
		profile_record(vcpu, ovf);
}

int pmu_rdmsr(struct vcpu *vcpu, uint32_t msr, uint64_t *data)
{
	return vpmu_rdmsr(&vcpu->pmu, msr, data);
}

int pmu_wrmsr(struct vcpu *vcpu, uint32_t msr, uint64_t data)
{
	return exact_wrmsr(vcpu, msr, data);
}

int pmu_debug_exit(struct vcpu *vcpu)
{
	int r;

	if (rdpmc_debug_exit(vcpu) || exact_debug_exit(vcpu))
		return 0;
	r = guest_debug_stray_exit(vcpu);
	if (r == 0)
		return 0;
	pr_err("vCPU %d: debug exit pmuvm could not pass on (%s; exception %u, pc %#llx, dr6 %#llx, dr7 %#llx)",
	       vcpu->id, strerror(-r), vcpu->run->debug.arch.exception,
	       (unsigned long long)vcpu->run->debug.arch.pc,
	       (unsigned long long)vcpu->run->debug.arch.dr6,
	       (unsigned long long)vcpu->run->debug.arch.dr7);
	vcpu_dump_regs(vcpu);
	vm_stop(vcpu->vm, VM_STOP_KVM_ERROR, PMUVM_EXIT_KVM_ERROR);
	return 0;
}
