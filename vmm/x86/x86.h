/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure x86 helpers over KVM's register structures: privilege level, IDT
 * gates, paging state. No state, no system calls.
 */
#ifndef PMUVM_X86_H
#define PMUVM_X86_H

#include <linux/kvm.h>
#include <stdint.h>

#include "mem/pagewalk.h"

#define X86_CR0_PE		(1ULL << 0)
#define X86_CR0_EM		(1ULL << 2)
#define X86_CR0_TS		(1ULL << 3)
#define X86_CR4_TSD		(1ULL << 2)
#define X86_CR4_PCE		(1ULL << 8)
#define X86_CR4_OSFXSR		(1ULL << 9)
/* The XSAVE header's XSTATE_BV and its x87 and SSE bits (SDM vol. 1 13.4.2). */
#define X86_XSAVE_XSTATE_BV	512
#define X86_XFEATURE_FP		(1ULL << 0)
#define X86_XFEATURE_SSE	(1ULL << 1)
#define X86_EFER_LMA		(1ULL << 10)
#define X86_RFLAGS_TF		(1ULL << 8)
#define X86_RFLAGS_IF		(1ULL << 9)
#define X86_CPUID_1_ECX_TSC_DEADLINE	(1u << 24)	/* SDM vol. 3A 10.5.4.1 */
#define X86_CPUID_1_ECX_HYPERVISOR	(1u << 31)	/* SDM vol. 2A CPUID: reserved, 1 under hypervisors */
#define X86_DR6_BS		(1ULL << 14)	/* SDM vol. 3B 18.2.3: single step */
/* Exception vectors (SDM vol. 3A 6.3.1, table 6-1). */
#define X86_VEC_DE		0
#define X86_VEC_NMI		2
#define X86_VEC_BP		3
#define X86_VEC_OF		4
#define X86_VEC_UD		6
#define X86_VEC_GP		13
#define X86_VEC_PF		14
#define MSR_LSTAR		0xc0000082	/* SYSCALL's 64-bit target (SDM vol. 2B SYSCALL) */

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

#endif
