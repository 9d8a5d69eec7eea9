/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PEBS feature: after every exit, performs the assist (ds.c, record.c)
 * for counters an overflow armed, with the vCPU's state gathered here.
 *
 * With the exact source the assist runs at the exit right after the
 * instruction whose retirement wrapped the counter: the registers are
 * exactly those after it (the trap-like record of docs/intel-pmu.md 4.5) and the
 * eventing IP is that instruction (vcpu_pmu.eventing_ip).  That is zero skid, as
 * for the source's PMIs; hardware without PDIST records the next event
 * (docs/intel-pmu.md 8 item 11).  Counters armed by the clock source get a record at the
 * exit where the overflow was seen, with the RIP of that exit as the
 * eventing IP: cycles are not a precise event (docs/intel-pmu.md 4.6).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <stdlib.h>

#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "pebs/pebs.h"
#include "pmu/vcpu_pmu.h"

#define FXSAVE_XMM0		160	/* XMM0 in the legacy XSAVE region (SDM vol. 1 10.5.1) */

static int guest_xmm(struct vcpu *vcpu, struct pebs_state *st)
{
	struct kvm_xsave xs;

	if (ioctl(vcpu->fd, KVM_GET_XSAVE, &xs) < 0)
		return -errno;
	memcpy(st->xmm, (const uint8_t *)xs.region + FXSAVE_XMM0, sizeof(st->xmm));
	return 0;
}

static void fill_state(struct vcpu *vcpu, const struct kvm_regs *r,
		       const struct kvm_sregs *s, struct pebs_state *st)
{
	bool long64 = (s->efer & X86_EFER_LMA) && s->cs.l;

	memset(st, 0, sizeof(*st));
	st->rflags = r->rflags;
	st->rip = r->rip;
	st->eventing_ip = vcpu->pmu->eventing_ip_valid ? vcpu->pmu->eventing_ip : r->rip;
	st->gpr[PEBS_RAX] = r->rax;
	st->gpr[PEBS_RCX] = r->rcx;
	st->gpr[PEBS_RDX] = r->rdx;
	st->gpr[PEBS_RBX] = r->rbx;
	st->gpr[PEBS_RSP] = r->rsp;
	st->gpr[PEBS_RBP] = r->rbp;
	st->gpr[PEBS_RSI] = r->rsi;
	st->gpr[PEBS_RDI] = r->rdi;
	if (long64) {
		st->gpr[PEBS_R8] = r->r8;
		st->gpr[PEBS_R9] = r->r9;
		st->gpr[PEBS_R10] = r->r10;
		st->gpr[PEBS_R11] = r->r11;
		st->gpr[PEBS_R12] = r->r12;
		st->gpr[PEBS_R13] = r->r13;
		st->gpr[PEBS_R14] = r->r14;
		st->gpr[PEBS_R15] = r->r15;
	} else {
		/* docs/intel-pmu.md 4.4: outside 64-bit code, zero-extended; R8-R15 are 0. */
		for (unsigned int i = 0; i < PEBS_R8; i++)
			st->gpr[i] &= 0xffffffffULL;
		st->rip &= 0xffffffffULL;
		st->eventing_ip &= 0xffffffffULL;
	}
	st->tsc = vcpu_get_msr(vcpu, MSR_IA32_TSC);
}

static void pebs_after_run(struct vcpu *vcpu)
{
	struct vpmu *pmu = &vcpu->pmu->model;
	struct pebs_state st;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	struct paging_state ps;
	int err;

	if (!pmu->pebs_armed)
		return;
	/*
	 * A stepped WRMSR counted at its MSR exit has not completed yet: its
	 * registers come with the step exit, where the armed set still waits.
	 */
	if (vcpu->pmu->retire_pending)
		return;
	if (vcpu_state(vcpu, &r, &s))
		return;
	fill_state(vcpu, r, s, &st);
	if (pebs_wants_xmm(pmu)) {
		err = guest_xmm(vcpu, &st);
		if (err && vcpu_warn_once(vcpu, LOG_ONCE_PEBS_XSAVE))
			pr_warn("vCPU %d: KVM_GET_XSAVE: %s; PEBS XMM groups are written as zeros",
				vcpu->id, strerror(-err));
	}
	ps = sregs_paging(s);
	if (pebs_assist(pmu, &vcpu->vm->mem, &ps, &st, vcpu->pmu->pebs) == PEBS_DROPPED &&
	    vcpu_warn_once(vcpu, LOG_ONCE_PEBS_DROPPED))
		pr_warn("vCPU %d: PEBS record dropped: the DS area or buffer at DS_AREA %#llx is not writable guest RAM (see the report's pebs counts)",
			vcpu->id, (unsigned long long)pmu->ds_area);
}

static int pebs_vcpu_init(struct vcpu *vcpu)
{
	if (!vcpu->vm->cfg->pmu.pebs)
		return VCPU_FEATURE_OFF;
	vcpu->pmu->pebs = calloc(1, sizeof(*vcpu->pmu->pebs));
	if (!vcpu->pmu->pebs) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

static void pebs_vcpu_exit(struct vcpu *vcpu)
{
	free(vcpu->pmu->pebs);
	vcpu->pmu->pebs = NULL;
}

const struct vcpu_feature pebs_feature = {
	.name = "pebs",
	.vcpu_init = pebs_vcpu_init,
	.vcpu_exit = pebs_vcpu_exit,
	.after_run = pebs_after_run,
};
