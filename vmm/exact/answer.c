/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDTSC and RDPMC where a stretch of the emulation engine stops at them,
 * answered here rather than stepped in KVM (docs/counting.md, "The
 * emulation engine"): RDTSC from KVM's guest TSC (IA32_TIME_STAMP_COUNTER
 * through KVM_GET_MSRS, the value RDTSC reads in the guest), RDPMC from
 * pmuvm's counters, as a stepped RDPMC is corrected (rdpmc/stepped.c).
 * Where either would fault (SDM vol. 2B, RDTSC: CR4.TSD set at CPL > 0;
 * RDPMC: CR4.PCE clear at CPL > 0, or an ECX that names no counter), KVM
 * runs it, and the guest takes its #GP there.
 */
#include "exact/internal.h"
#include "machine/vcpu.h"
#include "pmu/vcpu_pmu.h"
#include "x86-pmu/msr.h"
#include "x86/x86.h"

bool exact_answer(struct vcpu *vcpu, const struct insn *in, struct kvm_regs *r,
		  const struct kvm_sregs *s)
{
	unsigned int cpl = sregs_cpl(s);
	uint64_t v;

	if (in->flags & INSN_RDTSC) {
		if ((cpl && (s->cr4 & X86_CR4_TSD)) || vcpu_read_msr(vcpu, MSR_IA32_TSC, &v))
			return false;
	} else if (in->flags & INSN_RDPMC) {
		if ((cpl && !(s->cr4 & X86_CR4_PCE)) ||
		    vpmu_rdpmc(&vcpu->pmu->model, (uint32_t)r->rcx, &v))
			return false;
	} else {
		return false;
	}
	/* EDX:EAX, the upper halves of RAX and RDX cleared (64-bit mode). */
	r->rax = (uint32_t)v;
	r->rdx = v >> 32;
	r->rip += in->len;
	return true;
}
