/* SPDX-License-Identifier: MIT */
/*
 * Local APIC access that hides xAPIC vs x2APIC (SDM vol. 3A ch. 10/11).
 * Registers are named by their xAPIC MMIO offset; in x2APIC mode the same
 * register is MSR 0x800 + (offset >> 4) (SDM 10.12.1.2).  The mode is per
 * CPU: apic_init() picks x2APIC when CPUID.01H:ECX[21] says it exists,
 * unless apic_prefer_xapic(true) (or "apic=xapic" on the command line) was
 * set before.  APs inherit the BSP's choice when they start.
 */
#ifndef RT_APIC_H
#define RT_APIC_H

#include <stdbool.h>
#include <stdint.h>
#include <x86-pmu/msr.h>

#define APIC_DEFAULT_BASE	0xfee00000ul

#define APIC_ID		0x020	/* xAPIC: ID in bits 31:24 */
#define APIC_VERSION	0x030
#define APIC_TPR	0x080
#define APIC_EOI	0x0b0
#define APIC_LDR	0x0d0
#define APIC_SVR	0x0f0	/* spurious-interrupt vector */
#define  APIC_SVR_ENABLE	(1u << 8)	/* APIC software enable */
#define APIC_ISR	0x100
#define APIC_TMR	0x180
#define APIC_IRR	0x200
#define APIC_ESR	0x280
#define APIC_ICR	0x300	/* low half; x2APIC: one 64-bit MSR */
#define APIC_ICR2	0x310	/* xAPIC destination in bits 31:24 */
#define  APIC_ICR_DM_FIXED	(0u << 8)
#define  APIC_ICR_DM_NMI	(4u << 8)
#define  APIC_ICR_DM_INIT	(5u << 8)
#define  APIC_ICR_DM_STARTUP	(6u << 8)
#define  APIC_ICR_BUSY		(1u << 12)	/* xAPIC delivery status */
#define  APIC_ICR_ASSERT	(1u << 14)
#define  APIC_ICR_LEVEL		(1u << 15)
#define APIC_LVTT	0x320
#define APIC_LVTTHMR	0x330
#define APIC_LVTPC	0x340	/* performance-counter LVT */
#define APIC_LVT0	0x350
#define APIC_LVT1	0x360
#define APIC_LVTERR	0x370
#define APIC_TMICT	0x380
#define APIC_TMCCT	0x390
#define APIC_TDCR	0x3e0

/* LVT fields (SDM figure 10-8); vector/mode/mask bits are in pmu/msr.h */
#define APIC_LVT_PENDING	(1u << 12)	/* delivery status */
/* CPUID.01H:ECX: the timer's TSC-deadline mode (SDM vol. 3A 10.5.4.1) */
#define CPUID_1_ECX_TSC_DEADLINE	(1u << 24)

/* IA32_APIC_BASE (MSR_IA32_APICBASE, SDM 10.4.4 / 10.12.1) */
#define  APIC_BASE_BSP		(1u << 8)
#define  APIC_BASE_EXTD		(1u << 10)	/* x2APIC mode */
#define  APIC_BASE_EN		(1u << 11)

bool apic_has_x2apic(void);
void apic_prefer_xapic(bool xapic);	/* affects later apic_init() calls */
void apic_init(void);			/* this CPU: pick mode, enable */
bool apic_is_x2apic(void);		/* this CPU's mode */
/* Switch this CPU to xAPIC (x2APIC -> disabled -> xAPIC, SDM 10.12.5). */
void apic_force_xapic(void);

uint32_t apic_read(uint32_t reg);
void apic_write(uint32_t reg, uint32_t val);
uint32_t apic_id(void);
void apic_eoi(void);
/* Send an IPI: @icr_lo is vector | delivery mode | flags. */
void apic_send_ipi(uint32_t dest_apic_id, uint32_t icr_lo);

static inline uint32_t apic_read_lvtpc(void)
{
	return apic_read(APIC_LVTPC);
}

static inline void apic_write_lvtpc(uint32_t val)
{
	apic_write(APIC_LVTPC, val);
}

/* Is @vector requested and not yet accepted (IRR, SDM 10.8.4)? */
static inline bool apic_irr_test(uint8_t vector)
{
	return apic_read(APIC_IRR + (vector / 32u) * 0x10u) & (1u << (vector % 32u));
}

#endif
