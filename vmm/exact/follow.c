/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Following events into their handlers while stepping on VMX/SVM, where
 * event delivery clears RFLAGS.TF (SDM vol. 3A 6.12.1.2) and the handler
 * would run unstepped and uncounted until its IRET. Execution breakpoints,
 * read from the guest's 64-bit IDT, sit on the handlers the next step can
 * enter: DR1 #PF, DR2 the vector the instruction raises by what it is
 * (x86/decode.h; a 64-bit SYSCALL's IA32_LSTAR instead, since IA32_FMASK clears
 * TF: SDM vol. 2B SYSCALL), DR3 an interrupt or NMI let into this step.
 * Interrupts are otherwise held out of steps (KVM_GUESTDBG_BLOCKIRQ) and let
 * in one at a time, spaced so that a periodic tick whose stepped handler
 * outlasts its period cannot starve the code it interrupts. A breakpoint
 * fires before the handler's first instruction, which is then stepped with
 * TF set again. Design: docs/counting.md, "Following events into handlers".
 */
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "exact/exact.h"
#include "exact/follow.h"
#include "machine/lapic.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"
#include "x86/decode.h"
#include "x86/x86.h"

#define X86_RFLAGS_IF	(1ULL << 9)

/* How long an interrupt may wait for a step to let it in. */
#define FOLLOW_POLL_NS	100000ULL
/* Steps the interrupted code runs before the next interrupt: at least... */
#define FOLLOW_LET_IN_GAP	1024
/* ...and from one let in to the next, at most. */
#define FOLLOW_LET_IN_MAX_WAIT	65536

void follow_init(struct vcpu *vcpu, struct follow_state *f)
{
	const struct pmu_host_caps *caps = &vcpu->vm->pmu->caps;

	f->on = !caps->handler_step && caps->hw_breakpoints && caps->block_irq;
	f->let_in = -1;
	f->poll_now = true;
}

void follow_pmi(struct follow_state *f, bool nmi)
{
	if (nmi)
		f->nmi = true;
	else
		f->poll_now = f->pmi_due = true;
}

void follow_stepping_starts(struct follow_state *f)
{
	f->await_rip = 0;
	f->handler_steps = 0;
	f->returned_at = f->prepares;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The interrupt the LAPIC would deliver now, or -1. */
static int follow_pending_irq(struct vcpu *vcpu)
{
	struct kvm_lapic_state l;

	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &l) < 0)
		return -1;
	return lapic_deliverable(&l);
}

/*
 * Where the IDT's bytes at `la` are in host memory, or NULL (walk them).
 * The walk of its pages is kept for as long as the IDT's base and the
 * paging registers stay, as for RDPMC's #GP gate (rdpmc/gp.c): the gates
 * themselves are read afresh for every step.
 */
static const uint8_t *follow_idt_ptr(struct vcpu *vcpu, struct follow_state *f,
				     const struct kvm_sregs *s, uint64_t la)
{
	struct paging_state ps = sregs_paging(s);
	uint64_t page0 = s->idt.base & ~0xfffULL, gpa;
	uint64_t i = (la - page0) >> 12;

	if (f->idt_base != s->idt.base || f->idt_ps.cr0 != ps.cr0 || f->idt_ps.cr3 != ps.cr3 ||
	    f->idt_ps.cr4 != ps.cr4 || f->idt_ps.efer != ps.efer) {
		f->idt_base = s->idt.base;
		f->idt_ps = ps;
		f->idt_page[0] = f->idt_page[1] = NULL;
	}
	if (i > 1 || (la & 0xfff) > 0x1000 - IDT_GATE64_SIZE)
		return NULL;	/* a gate across two pages: walked every time */
	if (!f->idt_page[i]) {
		if (pagewalk(&vcpu->vm->mem, &ps, page0 + (i << 12), 0, &gpa))
			return NULL;
		f->idt_page[i] = guest_mem_ptr(&vcpu->vm->mem, gpa, 0x1000);
		if (!f->idt_page[i])
			return NULL;
	}
	return f->idt_page[i] + (la & 0xfff);
}

/* The entry of vector `vec`'s handler in the guest's IDT, or 0. */
static uint64_t follow_gate(struct vcpu *vcpu, struct follow_state *f, const struct kvm_sregs *s,
			    int vec)
{
	uint64_t la = s->idt.base + (uint64_t)vec * IDT_GATE64_SIZE, g[2];
	struct paging_state ps;
	const uint8_t *p;

	if (vec < 0 || (unsigned int)vec * IDT_GATE64_SIZE + IDT_GATE64_SIZE - 1 > s->idt.limit)
		return 0;
	p = follow_idt_ptr(vcpu, f, s, la);
	if (p) {
		memcpy(g, p, sizeof(g));
	} else {
		ps = sregs_paging(s);
		if (guest_linear_read(&vcpu->vm->mem, &ps, la, g, sizeof(g)))
			return 0;
	}
	return idt_gate64_target(g);
}

static void follow_arm(struct vcpu_debug *d, uint64_t rip, uint64_t entry)
{
	unsigned int i;

	if (!entry || entry == rip || d->nr_follow == GUEST_DEBUG_WATCH_MAX)
		return;
	for (i = 0; i < d->nr_follow; i++)
		if (d->follow[i] == entry)
			return;
	d->follow[d->nr_follow++] = entry;
}

bool follow_is_syscall(const struct insn *in)
{
	return in && (in->flags & (INSN_FAR | INSN_SAVES_RFLAGS)) == (INSN_FAR | INSN_SAVES_RFLAGS);
}

/* Whether the code the last interrupt let in interrupted has yet to run on. */
static bool follow_must_wait(const struct follow_state *f)
{
	uint64_t since = f->prepares - (f->await_rip ? f->last_let_in : f->returned_at);

	if (f->await_rip)
		return since < FOLLOW_LET_IN_MAX_WAIT;
	return since < FOLLOW_LET_IN_GAP || since < f->handler_steps;
}

/* An interrupt or NMI to let into the coming step, or -1. */
static int follow_choose_let_in(struct vcpu *vcpu, struct follow_state *f,
				const struct kvm_regs *r, bool hlt)
{
	uint64_t t;
	int vec;

	if (f->nmi)
		return X86_VEC_NMI;
	if (!(r->rflags & X86_RFLAGS_IF))
		return -1;
	if (!f->pmi_due && !hlt && f->last_let_in && follow_must_wait(f))
		return -1;
	t = now_ns();
	if (!f->poll_now && !hlt && t - f->last_poll_ns < FOLLOW_POLL_NS)
		return -1;
	f->poll_now = false;
	f->last_poll_ns = t;
	vec = follow_pending_irq(vcpu);
	if (vec < 0)
		f->pmi_due = false;
	return vec;
}

/*
 * The breakpoints and the block as wished: KVM_SET_GUEST_DEBUG only when
 * they differ from what KVM has (most steps arm the same handlers).
 */
static void follow_apply(struct vcpu *vcpu)
{
	const struct vcpu_debug *d = &vcpu->dbg;

	if (d->applied_step && d->step && d->nr_follow == d->applied_nr_follow &&
	    d->block_irq == d->applied_block_irq &&
	    !memcmp(d->follow, d->applied_follow, sizeof(d->follow[0]) * d->nr_follow))
		return;
	guest_debug_apply(vcpu);
}

void follow_prepare(struct vcpu *vcpu, struct follow_state *f, const struct kvm_regs *r,
		    const struct kvm_sregs *s, const struct insn *in, bool woke)
{
	struct vcpu_debug *d = &vcpu->dbg;
	bool hlt = woke || (in && (in->flags & INSN_HLT));
	int fault_vec = in ? in->fault_vec : X86_VEC_UD;	/* bytes that do not decode: #UD */
	uint64_t entry;

	if (!f->on)
		return;
	d->nr_follow = 0;
	d->block_irq = true;
	f->let_in = -1;
	f->prepares++;
	if (f->await_rip && r->rip == f->await_rip && r->rsp == f->await_rsp) {
		f->await_rip = 0;
		f->returned_at = f->prepares;
		f->handler_steps = f->prepares - f->last_let_in;
	}
	if (!(s->efer & X86_EFER_LMA)) {
		follow_apply(vcpu);
		return;
	}
	follow_arm(d, r->rip, follow_gate(vcpu, f, s, X86_VEC_PF));
	if (follow_is_syscall(in) && s->cs.l)
		follow_arm(d, r->rip, vcpu_get_msr(vcpu, MSR_LSTAR));	/* its target */
	else
		follow_arm(d, r->rip, follow_gate(vcpu, f, s, fault_vec >= 0 ? fault_vec : X86_VEC_GP));
	f->let_in = follow_choose_let_in(vcpu, f, r, hlt);
	entry = follow_gate(vcpu, f, s, f->let_in);
	if (f->let_in >= 0 && entry && entry != r->rip && d->nr_follow < GUEST_DEBUG_WATCH_MAX) {
		follow_arm(d, r->rip, entry);
		d->block_irq = false;
		f->let_in_count++;
		f->let_in_entry = entry;
	} else if (f->let_in >= 0) {
		f->let_in = -1;
		f->poll_now = true;	/* no room this step: the next one */
	}
	follow_apply(vcpu);
}

/*
 * At the entry of an interrupt's handler: the 64-bit frame (SDM vol. 3A
 * 6.14.2: RIP, CS, RFLAGS, RSP, SS; no error code) says where it returns.
 */
static void follow_await_return(struct vcpu *vcpu, struct follow_state *f)
{
	struct paging_state ps;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	uint64_t frame[4];

	f->await_rip = 0;
	if (vcpu_state(vcpu, &r, &s) || !(s->efer & X86_EFER_LMA))
		return;
	ps = sregs_paging(s);
	if (guest_linear_read(&vcpu->vm->mem, &ps, r->rsp, frame, sizeof(frame)))
		return;
	f->await_rip = frame[0];
	f->await_rsp = frame[3];
}

bool follow_entered(struct vcpu *vcpu, struct follow_state *f)
{
	if (!f->on)
		return false;
	if (f->let_in >= 0 && vcpu->dbg.applied_block_irq == false) {
		/* Let in but not taken (an interrupt shadow, IF cleared): ask again. */
		f->poll_now = true;
	}
	if (guest_debug_follow_hit(vcpu) < 0)
		return false;
	if (f->let_in >= 0 && vcpu->run->debug.arch.pc == f->let_in_entry) {
		if (f->let_in == X86_VEC_NMI)
			f->nmi = false;
		else
			f->pmi_due = false;
		f->last_let_in = f->prepares;
		follow_await_return(vcpu, f);
	}
	f->let_in = -1;
	f->entries++;
	return true;
}
