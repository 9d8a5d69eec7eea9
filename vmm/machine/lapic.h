/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The local APIC as KVM_GET_LAPIC hands it over: its register page, read
 * without the guest's view of side effects. Offsets and fields are the
 * SDM's (vol. 3A table 10-1, figures 10-8 and 10-18).
 */
#ifndef PMUVM_LAPIC_H
#define PMUVM_LAPIC_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "x86-pmu/msr.h"

#define APIC_TPR	0x080
#define APIC_ISR	0x100
#define APIC_IRR	0x200
#define APIC_LVTT	0x320
#define APIC_LVT0	0x350
#define APIC_TMICT	0x380
#define APIC_TMCCT	0x390
#define APIC_TDCR	0x3e0


uint32_t lapic_reg(const struct kvm_lapic_state *l, unsigned int off);
void lapic_set_reg(struct kvm_lapic_state *l, unsigned int off, uint32_t v);
/* The highest vector set in the 256-bit register at `off` (IRR, ISR, TMR), or -1. */
int lapic_highest(const struct kvm_lapic_state *l, unsigned int off);
/* The vector the LAPIC would deliver now with IF set, or -1 (SDM vol. 3A 10.8.3.1). */
int lapic_deliverable(const struct kvm_lapic_state *l);

/* What can raise an interrupt later that KVM_GET_LAPIC's IRR does not show yet. */
enum lapic_timer_kind {
	LAPIC_TIMER_NONE,	/* masked, or a one-shot/periodic timer with no count */
	LAPIC_TIMER_DEADLINE,	/* TSC-deadline mode: IA32_TSC_DEADLINE says when */
	LAPIC_TIMER_ONE_SHOT,	/* counting down: TMCCT says how far */
	LAPIC_TIMER_PERIODIC,
};

enum lapic_timer_kind lapic_timer(const struct kvm_lapic_state *l);
/*
 * The current count's worth in bus cycles (TMCCT x the divide of TDCR,
 * 10.5.4): KVM's APIC bus runs at 1 GHz, so nanoseconds.
 */
uint64_t lapic_timer_left(const struct kvm_lapic_state *l);
/* LINT0 delivers ExtINT: the 8259's interrupts, which never show in IRR. */
bool lapic_extint(const struct kvm_lapic_state *l);

#endif
