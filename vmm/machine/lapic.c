/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading KVM_GET_LAPIC's register page (lapic.h): each register is a
 * 32-bit word at its offset, and the 256-bit IRR, ISR and TMR are eight
 * such words 16 bytes apart (SDM vol. 3A 10.8.4).
 */
#include <string.h>

#include "machine/lapic.h"

uint32_t lapic_reg(const struct kvm_lapic_state *l, unsigned int off)
{
	uint32_t v;

	memcpy(&v, &l->regs[off], sizeof(v));
	return v;
}

void lapic_set_reg(struct kvm_lapic_state *l, unsigned int off, uint32_t v)
{
	memcpy(&l->regs[off], &v, sizeof(v));
}

int lapic_highest(const struct kvm_lapic_state *l, unsigned int off)
{
	for (int i = 7; i >= 0; i--) {
		uint32_t w = lapic_reg(l, off + 0x10 * (unsigned int)i);

		if (w)
			return i * 32 + 31 - __builtin_clz(w);
	}
	return -1;
}

/* The processor priority: the higher class of TPR and the highest in service (10.8.3.1). */
int lapic_deliverable(const struct kvm_lapic_state *l)
{
	int irr = lapic_highest(l, APIC_IRR), isr;
	unsigned int ppr;

	if (irr < 0)
		return -1;
	isr = lapic_highest(l, APIC_ISR);
	ppr = lapic_reg(l, APIC_TPR) & 0xf0;
	if (isr >= 0 && ((unsigned int)isr & 0xf0) > ppr)
		ppr = (unsigned int)isr & 0xf0;
	return ((unsigned int)irr & 0xf0) > ppr ? irr : -1;
}

enum lapic_timer_kind lapic_timer(const struct kvm_lapic_state *l)
{
	uint32_t lvtt = lapic_reg(l, APIC_LVTT);

	if (lvtt & APIC_LVT_MASKED)
		return LAPIC_TIMER_NONE;
	if ((lvtt & APIC_LVTT_TIMER_MODE) == APIC_LVTT_TSC_DEADLINE)
		return LAPIC_TIMER_DEADLINE;
	/* 10.5.4: a zero initial count stops a one-shot or periodic timer. */
	if (!lapic_reg(l, APIC_TMICT))
		return LAPIC_TIMER_NONE;
	return (lvtt & APIC_LVTT_TIMER_MODE) ? LAPIC_TIMER_PERIODIC : LAPIC_TIMER_ONE_SHOT;
}

/* TDCR bits 3, 1:0 (figure 10-10): divide by 2^(value + 1), 0b111 by 1. */
uint64_t lapic_timer_left(const struct kvm_lapic_state *l)
{
	uint32_t tdcr = lapic_reg(l, APIC_TDCR);
	unsigned int shift = (((tdcr & 3) | ((tdcr & 8) >> 1)) + 1) & 7;

	return (uint64_t)lapic_reg(l, APIC_TMCCT) << shift;
}

bool lapic_extint(const struct kvm_lapic_state *l)
{
	uint32_t lvt0 = lapic_reg(l, APIC_LVT0);

	return !(lvt0 & APIC_LVT_MASKED) && (lvt0 & APIC_LVT_DM) == APIC_LVT_DM_EXTINT;
}
