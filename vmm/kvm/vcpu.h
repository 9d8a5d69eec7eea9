#ifndef PMUVM_VCPU_H
#define PMUVM_VCPU_H

#include <signal.h>

#include "kvm/vm.h"
#include "mem/pagewalk.h"

/* Interrupts KVM_RUN: stop requests and the per-vCPU PMU timer. */
#define VCPU_KICK_SIGNAL	SIGUSR1

int vcpu_create(struct vm *vm, struct vcpu *vcpu, int id);
void vcpu_destroy(struct vcpu *vcpu);
void *vcpu_thread(void *arg);
void vcpu_kick(struct vcpu *vcpu);

/* Prints the vCPU's registers to stderr (triple fault, internal error). */
void vcpu_dump_regs(struct vcpu *vcpu);

/* Current privilege level (CS.DPL, or 0 outside protected mode). */
unsigned int vcpu_cpl(struct vcpu *vcpu);

/*
 * The registers as of the last exit: the kvm_run sync area when KVM has
 * one, else fetched copies.  After changing *regs, call vcpu_state_changed()
 * so the next KVM_RUN uses them.
 */
int vcpu_state(struct vcpu *vcpu, struct kvm_regs **regs, struct kvm_sregs **sregs);

#define X86_CR0_PE	(1ULL << 0)
#define X86_CR4_PCE	(1ULL << 8)
#define X86_EFER_LMA	(1ULL << 10)

/* CS.DPL in protected mode, else 0. */
static inline unsigned int sregs_cpl(const struct kvm_sregs *s)
{
	return (s->cr0 & X86_CR0_PE) ? s->cs.dpl : 0;
}

/* A 64-bit IDT gate (SDM vol. 3A 6.14.1): its handler address, 0 if not present. */
#define IDT_GATE64_SIZE	16

static inline uint64_t idt_gate64_target(const uint64_t g[2])
{
	if (!(g[0] & (1ULL << 47)))
		return 0;
	return (g[0] & 0xffff) | ((g[0] >> 32) & 0xffff0000ULL) | ((g[1] & 0xffffffffULL) << 32);
}

/* What the page-table walker needs to translate the vCPU's linear addresses. */
static inline struct paging_state sregs_paging(const struct kvm_sregs *s)
{
	return (struct paging_state){ s->cr0, s->cr3, s->cr4, s->efer };
}
int vcpu_state_changed(struct vcpu *vcpu);

#endif
