/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDPMC where KVM answers it itself and the image has more RDPMCs than
 * there are breakpoints to watch them (rdpmc/watch.c): kvm-unit-tests'
 * x86/pmu has four, and reads its counters long after programming them,
 * where no discovery window finds them, so they read KVM's 0. Each RDPMC
 * the image's symbol table shows (rdpmc/sites.c) is turned into an RDMSR
 * (0F 33 into 0F 32, mem/patch.c) before the guest runs, and KVM's MSR
 * filter sends reads of the MSRs an RDPMC's ECX can name to pmuvm: GP
 * counter i is MSR i, fixed counter i MSR 0x40000000 + i, and the same
 * with bit 31 set (fast reads; docs/intel-pmu.md 2.1), for this PMU's
 * counters and for those KVM's own vPMU answers (kvm/probe.c: with no PMU,
 * version 0, those must all #GP). At CPL0 such an RDMSR exits here, and
 * the RDPMC is completed from pmuvm's counters as a CPU with this PMU
 * would: EDX:EAX, retired for the counting sources, or
 * #GP(0) where that CPU faults (no such counter, a fast read: SDM vol. 2B
 * RDPMC), which KVM raises for a failed read. At CPL3 an RDMSR faults
 * before it could exit: the #GP is completed at the guest's #GP handler
 * (rdpmc/gp.c, which decodes the site as the RDPMC it was), so traps need
 * breakpoints that fire; with no PMU that #GP is the RDPMC's own, and goes
 * to the guest. Why not INT3 (KVM_GUESTDBG_USE_SW_BP): the lab's
 * nested SVM never intercepts a nested guest's INT3 (tests/lab/README.md,
 * "What the lab does not model").
 *
 * pmuvm's decoders see the RDPMC (exact counting steps and counts it as
 * one); the guest sees an RDMSR if it reads its own code. A guest RDMSR of
 * one of those MSRs anywhere else is answered as KVM would, from
 * KVM_GET_MSRS, or #GP where KVM has no such MSR (KVM_GET_MSRS reads some
 * the guest itself may not: Hyper-V's 0x40000000 on, without Hyper-V in
 * CPUID, then read 0 instead of #GP); one at a site whose bytes the guest
 * has since overwritten likewise.
 */
#include <errno.h>
#include <string.h>

#include "kvm/msr_filter.h"
#include "log.h"
#include "machine/vm.h"
#include "mem/pagewalk.h"
#include "pmu/pmu.h"
#include "pmu/vcpu_pmu.h"
#include "rdpmc/rdpmc.h"

#define RDPMC_ECX_FAST	0x80000000u

static const uint8_t rdpmc_bytes[MEM_PATCH_LEN] = { 0x0f, 0x33 };
static const uint8_t rdmsr_bytes[MEM_PATCH_LEN] = { 0x0f, 0x32 };

/*
 * MSRs 0 and 1 are IA32_P5_MC_ADDR and IA32_P5_MC_TYPE, which KVM reads as
 * 0: an RDPMC of GP 0 or 1 turned into an RDMSR must reach pmuvm even where
 * this PMU has no such counter, to #GP as the RDPMC would.
 */
#define RDPMC_TRAP_MIN_GP	2

/*
 * The RDPMC indices from 0 to route, GP and fixed: this PMU's counters,
 * the ones KVM answers itself (none more than those with a PMU; with none,
 * KVM's own: they must #GP), and GP 0 and 1 always.
 */
static unsigned int rdpmc_trap_nr_gp(const struct vpmu_config *cfg, unsigned int kvm_gp)
{
	unsigned int n = cfg->nr_gp > kvm_gp ? cfg->nr_gp : kvm_gp;

	return n < RDPMC_TRAP_MIN_GP ? RDPMC_TRAP_MIN_GP : n;
}

static unsigned int rdpmc_trap_nr_fixed(const struct vpmu_config *cfg, unsigned int kvm_fixed)
{
	unsigned int own = vpmu_fixed_span(cfg);

	return own > kvm_fixed ? own : kvm_fixed;
}

unsigned int rdpmc_trap_spans(const struct vpmu_config *cfg, unsigned int kvm_gp,
			      unsigned int kvm_fixed, struct kvm_msr_span *s)
{
	unsigned int n = 0, ngp = rdpmc_trap_nr_gp(cfg, kvm_gp);
	unsigned int nfixed = rdpmc_trap_nr_fixed(cfg, kvm_fixed);

	s[n++] = (struct kvm_msr_span){ 0, ngp - 1, true };
	s[n++] = (struct kvm_msr_span){ RDPMC_ECX_FAST, RDPMC_ECX_FAST + ngp - 1, true };
	/* Up to the highest fixed counter: the model #GPs a hole (version 5). */
	if (nfixed) {
		s[n++] = (struct kvm_msr_span){ (uint32_t)RDPMC_FIXED,
						(uint32_t)RDPMC_FIXED + nfixed - 1, true };
		s[n++] = (struct kvm_msr_span){ RDPMC_ECX_FAST | (uint32_t)RDPMC_FIXED,
						(RDPMC_ECX_FAST | (uint32_t)RDPMC_FIXED) +
						nfixed - 1, true };
	}
	return n;
}

static bool rdpmc_trap_msr_routed(const struct vm *vm, uint32_t msr)
{
	const struct pmu_host_caps *caps = &vm->pmu->caps;
	uint32_t idx = msr & ~(RDPMC_ECX_FAST | (uint32_t)RDPMC_FIXED);

	if (msr & (uint32_t)RDPMC_FIXED)
		return idx < rdpmc_trap_nr_fixed(&vm->cfg->pmu, caps->rdpmc_kvm_fixed);
	return idx < rdpmc_trap_nr_gp(&vm->cfg->pmu, caps->rdpmc_kvm_gp);
}

int rdpmc_trap_image(struct vm *vm, const uint64_t *sites, unsigned int n)
{
	struct kvm_msr_span spans[RDPMC_TRAP_MAX_SPANS];
	unsigned int first = vm->mem.nr_patches, i;
	const uint8_t *b;
	int r = 0;

	for (i = 0; i < n && !r; i++) {
		b = guest_mem_ptr(&vm->mem, sites[i], MEM_PATCH_LEN);
		if (!b || memcmp(b, rdpmc_bytes, MEM_PATCH_LEN))
			r = -EADDRNOTAVAIL;	/* not loaded where it is linked */
		else
			r = guest_mem_patch(&vm->mem, sites[i], rdmsr_bytes);
	}
	if (!r)
		r = pmu_msr_filter_install(vm, spans,
					   rdpmc_trap_spans(&vm->cfg->pmu, vm->pmu->caps.rdpmc_kvm_gp,
							    vm->pmu->caps.rdpmc_kvm_fixed, spans));
	if (r) {
		guest_mem_patch_undo(&vm->mem, first);
		return r;
	}
	vm->pmu->rdpmc->nr_traps = n;
	return 0;
}

bool rdpmc_trap_at(struct vcpu *vcpu, uint64_t rip)
{
	struct paging_state ps;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	uint64_t gpa;

	if (!vcpu->vm->mem.nr_patches || vcpu_state(vcpu, &r, &s) ||
	    !(s->efer & X86_EFER_LMA) || !s->cs.l)
		return false;
	ps = sregs_paging(s);
	return !pagewalk(&vcpu->vm->mem, &ps, rip, 0, &gpa) &&
	       guest_mem_patch_at(&vcpu->vm->mem, gpa) != NULL;
}

static int rdpmc_trap_msr(struct vcpu *vcpu, uint32_t index, bool is_write, uint64_t *data)
{
	struct rdpmc_trap *t = &vcpu->pmu->rdpmc->trap;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	uint64_t rip;

	if (is_write || !vcpu->vm->pmu->rdpmc->nr_traps ||
	    !rdpmc_trap_msr_routed(vcpu->vm, index))
		return VCPU_MSR_NOT_MINE;
	/* An RDMSR of the guest's own: what KVM would read, or a #GP. */
	if (vcpu_state(vcpu, &r, &s) || !rdpmc_trap_at(vcpu, rip = r->rip))
		return vcpu_read_msr(vcpu, index, data) ? 1 : 0;
	t->hits++;
	/* ECX is the RDPMC's; a read that fails is KVM's #GP(0) at the instruction. */
	if (vpmu_rdpmc(&vcpu->pmu->model, index, data)) {
		t->faulted++;
		return 1;
	}
	if (log_verbosity > 1)
		pr_debug("vCPU %d: RDPMC %#x at %llx (as RDMSR): %#llx", vcpu->id, index,
			 (unsigned long long)rip, (unsigned long long)*data);
	/*
	 * A step retires it when KVM completes the RDMSR, and counts it as the
	 * RDPMC its decode shows (exact/); else it retires here.
	 */
	if (!vcpu->dbg.applied_step)
		rdpmc_retired(vcpu, rip, 0);
	t->answered++;
	return 0;
}

static int rdpmc_trap_vcpu_init(struct vcpu *vcpu)
{
	return vcpu->vm->pmu && vcpu->vm->pmu->rdpmc && vcpu->vm->pmu->rdpmc->nr_traps ?
	       0 : VCPU_FEATURE_OFF;
}

const struct vcpu_feature rdpmc_trap_feature = {
	.name = "rdpmc-trap",
	.vcpu_init = rdpmc_trap_vcpu_init,
	.msr = rdpmc_trap_msr,
};
