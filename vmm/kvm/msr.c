#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "exitcode.h"
#include "kvm/msr.h"
#include "kvm/vm.h"
#include "log.h"
#include "pmu/pmu.h"

/*
 * Every PMU-related MSR and who answers it.  DEBUGCTL and MISC_ENABLE are
 * here for their freeze and perfmon-available bits; KVM must not answer them
 * with its own (PMU-less) view.
 */
static const struct msr_handler msr_handlers[] = {
	{ MSR_IA32_PMC0, MSR_IA32_PMC0 + 7, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_PERFEVTSEL0, MSR_IA32_PERFEVTSEL0 + 7, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_MISC_ENABLE, MSR_IA32_MISC_ENABLE, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_DEBUGCTL, MSR_IA32_DEBUGCTL, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_FIXED_CTR0, MSR_IA32_FIXED_CTR0 + 3, pmu_rdmsr, pmu_wrmsr },
	{ MSR_PERF_METRICS, MSR_PERF_METRICS, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_PERF_CAPABILITIES, MSR_IA32_PERF_CAPABILITIES, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_FIXED_CTR_CTRL, MSR_IA32_PERF_GLOBAL_INUSE, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_PEBS_ENABLE, MSR_PEBS_DATA_CFG, pmu_rdmsr, pmu_wrmsr },
	{ MSR_PEBS_LD_LAT_THRESHOLD, MSR_PEBS_FRONTEND, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_A_PMC0, MSR_IA32_A_PMC0 + 7, pmu_rdmsr, pmu_wrmsr },
	{ MSR_IA32_DS_AREA, MSR_IA32_DS_AREA, pmu_rdmsr, pmu_wrmsr },
};

#define NR_MSR_HANDLERS (sizeof(msr_handlers) / sizeof(msr_handlers[0]))

/* One filter range covers all of the above: 0xC1 .. 0x600. */
#define FILTER_BASE	MSR_IA32_PMC0
#define FILTER_NMSRS	(MSR_IA32_DS_AREA - MSR_IA32_PMC0 + 1)

static const struct msr_handler *msr_lookup(uint32_t msr)
{
	size_t i;

	for (i = 0; i < NR_MSR_HANDLERS; i++)
		if (msr >= msr_handlers[i].first && msr <= msr_handlers[i].last)
			return &msr_handlers[i];
	return NULL;
}

int msr_filter_install(struct vm *vm)
{
	static uint8_t bitmap[(FILTER_NMSRS + 7) / 8];
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	struct kvm_msr_filter filter = { .flags = KVM_MSR_FILTER_DEFAULT_ALLOW };
	size_t i;
	uint32_t m;

	if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap) < 0) {
		pr_err("KVM_ENABLE_CAP(KVM_CAP_X86_USER_SPACE_MSR): %s", strerror(errno));
		return PMUVM_EXIT_NO_KVM;
	}
	/* A set bit lets KVM handle the MSR; a clear bit sends it to us. */
	memset(bitmap, 0xff, sizeof(bitmap));
	for (i = 0; i < NR_MSR_HANDLERS; i++)
		for (m = msr_handlers[i].first; m <= msr_handlers[i].last; m++)
			bitmap[(m - FILTER_BASE) / 8] &= (uint8_t)~(1u << ((m - FILTER_BASE) % 8));
	filter.ranges[0] = (struct kvm_msr_filter_range){
		.flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE,
		.nmsrs = FILTER_NMSRS,
		.base = FILTER_BASE,
		.bitmap = bitmap,
	};
	if (ioctl(vm->vm_fd, KVM_X86_SET_MSR_FILTER, &filter) < 0) {
		pr_err("KVM_X86_SET_MSR_FILTER: %s", strerror(errno));
		return PMUVM_EXIT_NO_KVM;
	}
	return 0;
}

int msr_exit(struct vcpu *vcpu, bool is_write)
{
	struct kvm_run *run = vcpu->run;
	const struct msr_handler *h = msr_lookup(run->msr.index);
	uint64_t data = 0;
	int gp;

	if (!h) {
		/* Not ours (KVM_MSR_EXIT_REASON_FILTER only covers the table): #GP. */
		run->msr.error = 1;
		return 0;
	}
	if (is_write)
		gp = h->wrmsr(vcpu, run->msr.index, run->msr.data);
	else if (!(gp = h->rdmsr(vcpu, run->msr.index, &data)))
		run->msr.data = data;
	run->msr.error = gp ? 1 : 0;
	return 0;
}
