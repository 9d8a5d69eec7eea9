/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Following events into their handlers while single-stepping, on hosts
 * whose single-step does not (kvm/probe.c): VMX and SVM KVM.
 */
#ifndef PMUVM_EXACT_FOLLOW_H
#define PMUVM_EXACT_FOLLOW_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "mem/pagewalk.h"

struct vcpu;

struct follow_state {
	bool on;			/* this host needs it and can do it */
	bool nmi;			/* a PMI delivered as NMI waits for its handler */
	bool poll_now;			/* look at the LAPIC before the next step */
	bool pmi_due;			/* ...for a PMI pmuvm delivered: no gap */
	int let_in;			/* the vector let into the coming step, or -1 */
	uint64_t let_in_entry;		/* ...its handler's entry */
	uint64_t last_poll_ns;
	uint64_t prepares, last_let_in;	/* steps prepared: in all, at the last let-in */
	/* Where the last interrupt let in returns to (0: it has returned), and then. */
	uint64_t await_rip, await_rsp;
	uint64_t returned_at, handler_steps;
	/* The IDT's (up to two) pages in host memory, as walked with these registers. */
	uint64_t idt_base;
	struct paging_state idt_ps;
	uint8_t *idt_page[2];
	/* Report. */
	uint64_t entries;		/* handler entries caught by a breakpoint */
	uint64_t let_in_count;		/* interrupts and NMIs let into a step */
};

/* Whether this vCPU follows events with breakpoints; sets f->on. */
void follow_init(struct vcpu *vcpu, struct follow_state *f);

struct insn;

/*
 * Before a step from the instruction `in` at r->rip (NULL: it could not be
 * decoded; `woke`: a HLT before it just retired with an interrupt
 * pending): arms the breakpoints and the interrupt block.
 */
void follow_prepare(struct vcpu *vcpu, struct follow_state *f, const struct kvm_regs *r,
		    const struct kvm_sregs *s, const struct insn *in, bool woke);

/* Whether `in` is SYSCALL. */
bool follow_is_syscall(const struct insn *in);

/* After a step exit: true if it stopped at a followed handler's entry. */
bool follow_entered(struct vcpu *vcpu, struct follow_state *f);

/* Stepping starts (again): what ran unstepped is not waited for. */
void follow_stepping_starts(struct follow_state *f);

/* pmuvm delivered a PMI into this stepped vCPU (as an NMI or not). */
void follow_pmi(struct follow_state *f, bool nmi);

#endif
