/*
 * The VMM side of PEBS: gathers the vCPU's state for vmm/pebs's assist.
 *
 * With the exact source the assist runs at the exit right after the
 * instruction whose retirement wrapped the counter: the registers are
 * exactly those after it (the trap-like record of spec 4.5) and the
 * eventing IP is that instruction (exact.last_rip).  That is zero skid, as
 * for the source's PMIs; hardware without PDIST records the next event
 * (spec 8 item 11).  Counters armed by the clock source get a record at the
 * exit where the overflow was seen, with the RIP of that exit as the
 * eventing IP: cycles are not a precise event (spec 4.6).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm/vcpu.h"
#include "log.h"
#include "pebs/pebs.h"
#include "pmu/pebs.h"

#define EFER_LMA		(1ULL << 10)
#define FXSAVE_XMM0		160	/* XMM0 in the legacy XSAVE region (SDM vol. 1 10.5.1) */

static uint64_t guest_tsc(struct vcpu *vcpu)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} m = { .hdr.nmsrs = 1, .e.index = MSR_IA32_TSC };

	if (ioctl(vcpu->fd, KVM_GET_MSRS, &m) != 1)
		return 0;
	return m.e.data;
}

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
	const struct exact_state *x = &vcpu->exact;
	bool long64 = (s->efer & EFER_LMA) && s->cs.l;

	memset(st, 0, sizeof(*st));
	st->rflags = r->rflags;
	st->rip = r->rip;
	st->eventing_ip = x->stepping && x->retired ? x->last_rip : r->rip;
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
		/* Spec 4.4: outside 64-bit code, zero-extended; R8-R15 are 0. */
		for (unsigned int i = 0; i < PEBS_R8; i++)
			st->gpr[i] &= 0xffffffffULL;
		st->rip &= 0xffffffffULL;
		st->eventing_ip &= 0xffffffffULL;
	}
	st->tsc = guest_tsc(vcpu);
}

void pmu_pebs_after_run(struct vcpu *vcpu)
{
	const struct exact_state *x = &vcpu->exact;
	struct pebs_state st;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	struct paging_state ps;
	int err;

	if (!vcpu->pmu.pebs_armed)
		return;
	/*
	 * A stepped WRMSR counted at its MSR exit has not completed yet: its
	 * registers come with the step exit, where the armed set still waits.
	 */
	if (x->stepping && x->pending && x->counted)
		return;
	if (vcpu_state(vcpu, &r, &s))
		return;
	fill_state(vcpu, r, s, &st);
	if (pebs_wants_xmm(&vcpu->pmu)) {
		err = guest_xmm(vcpu, &st);
		if (err && log_first_time(LOG_ONCE_PEBS_XSAVE, vcpu->id))
			pr_warn("vCPU %d: KVM_GET_XSAVE: %s; PEBS XMM groups are written as zeros",
				vcpu->id, strerror(-err));
	}
	ps = (struct paging_state){ s->cr0, s->cr3, s->cr4, s->efer };
	if (pebs_assist(&vcpu->pmu, &vcpu->vm->mem, &ps, &st, &vcpu->pebs) == PEBS_DROPPED &&
	    log_first_time(LOG_ONCE_PEBS_DROPPED, vcpu->id))
		pr_warn("vCPU %d: PEBS record dropped: the DS area or buffer at DS_AREA %#llx is not writable guest RAM (see the report's pebs counts)",
			vcpu->id, (unsigned long long)vcpu->pmu.ds_area);
}
