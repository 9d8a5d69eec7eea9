/* SPDX-License-Identifier: MIT */
/*
 * Local APIC, xAPIC (MMIO at 0xfee00000) or x2APIC (MSRs 0x800-0x8ff).
 * Both are reached through apic_read()/apic_write() with the xAPIC offset;
 * the mode lives in struct rt_cpu because it is a per-CPU property.
 */
#include <stdbool.h>
#include <stdint.h>
#include <x86-pmu/cpuid.h>
#include <rt/apic.h>
#include <rt/layout.h>
#include <rt/smp.h>
#include <rt/x86.h>

static bool prefer_xapic;

static inline volatile uint32_t *xapic_reg(uint32_t reg)
{
	return (volatile uint32_t *)(APIC_DEFAULT_BASE + reg);
}

/* SDM 10.12.1.2: MSR address = 0x800 + (MMIO offset >> 4). */
static inline uint32_t x2apic_msr(uint32_t reg)
{
	return MSR_X2APIC_BASE + (reg >> 4);
}

bool apic_has_x2apic(void)
{
	return cpuid(1).ecx & CPUID_1_ECX_X2APIC;
}

void apic_prefer_xapic(bool xapic)
{
	prefer_xapic = xapic;
}

bool apic_is_x2apic(void)
{
	return rt_this_cpu()->x2apic;
}

uint32_t apic_read(uint32_t reg)
{
	if (apic_is_x2apic())
		return (uint32_t)rdmsr(x2apic_msr(reg));
	return *xapic_reg(reg);
}

void apic_write(uint32_t reg, uint32_t val)
{
	if (apic_is_x2apic())
		wrmsr(x2apic_msr(reg), val);
	else
		*xapic_reg(reg) = val;
}

/* xAPIC keeps the 8-bit ID in bits 31:24; x2APIC uses all 32 bits. */
uint32_t apic_id(void)
{
	uint32_t id = apic_read(APIC_ID);

	return apic_is_x2apic() ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

/*
 * xAPIC: destination goes in ICR2 first, the write to the low half sends;
 * wait for delivery status to clear so a second IPI is not lost.  x2APIC:
 * one 64-bit MSR write with the destination in bits 63:32 and no delivery
 * status bit to poll (SDM 10.12.9).
 */
void apic_send_ipi(uint32_t dest_apic_id, uint32_t icr_lo)
{
	if (apic_is_x2apic()) {
		wrmsr(x2apic_msr(APIC_ICR), (uint64_t)dest_apic_id << 32 | icr_lo);
		return;
	}
	*xapic_reg(APIC_ICR2) = dest_apic_id << 24;
	*xapic_reg(APIC_ICR) = icr_lo;
	while (*xapic_reg(APIC_ICR) & APIC_ICR_BUSY)
		cpu_relax();
}

void apic_init(void)
{
	struct rt_cpu *c = rt_this_cpu();
	uint64_t base = rdmsr(MSR_IA32_APICBASE);

	c->x2apic = !prefer_xapic && apic_has_x2apic();
	if (c->x2apic) {
		/* xAPIC -> x2APIC is a single write with EN and EXTD set. */
		wrmsr(MSR_IA32_APICBASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
	} else if (base & APIC_BASE_EXTD) {
		apic_force_xapic();
		return;
	} else if (!(base & APIC_BASE_EN)) {
		wrmsr(MSR_IA32_APICBASE, base | APIC_BASE_EN);
	}
	apic_write(APIC_SVR, APIC_SVR_ENABLE | RT_VEC_SPURIOUS);
	c->apic_id = apic_id();
}

/*
 * x2APIC -> xAPIC directly is an illegal transition that #GPs; go through
 * the disabled state, which resets the APIC (SDM 10.12.5, figure 10-27).
 */
void apic_force_xapic(void)
{
	struct rt_cpu *c = rt_this_cpu();
	uint64_t base = rdmsr(MSR_IA32_APICBASE);

	if (base & APIC_BASE_EXTD) {
		base &= ~(uint64_t)(APIC_BASE_EN | APIC_BASE_EXTD);
		wrmsr(MSR_IA32_APICBASE, base);
	}
	wrmsr(MSR_IA32_APICBASE, base | APIC_BASE_EN);
	c->x2apic = false;
	apic_write(APIC_SVR, APIC_SVR_ENABLE | RT_VEC_SPURIOUS);
	c->apic_id = apic_id();
}
