/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading KVM_GET_LAPIC's register page (vmm/machine/lapic.c): the
 * interrupt the LAPIC would deliver against the processor priority (SDM
 * vol. 3A 10.8.3.1), the timer's mode and what its count is worth (10.5.4),
 * and LINT0 in ExtINT mode, on pages built by hand.
 */
#include <string.h>

#include "machine/lapic.h"
#include "suite.h"

static struct kvm_lapic_state page;

static void setup(void)
{
	memset(&page, 0, sizeof(page));
}

/* Sets `vector` in the 256-bit register at `off` (eight words, 16 bytes apart). */
static void set_vector(unsigned int off, unsigned int vector)
{
	unsigned int word = off + 0x10 * (vector / 32);

	lapic_set_reg(&page, word, lapic_reg(&page, word) | 1u << (vector % 32));
}

START_TEST(test_lapic_highest)
{
	ck_assert_int_eq(lapic_highest(&page, APIC_IRR), -1);
	set_vector(APIC_IRR, 0x31);
	ck_assert_int_eq(lapic_highest(&page, APIC_IRR), 0x31);
	set_vector(APIC_IRR, 0xec);
	set_vector(APIC_IRR, 0x40);
	ck_assert_int_eq(lapic_highest(&page, APIC_IRR), 0xec);
	ck_assert_int_eq(lapic_highest(&page, APIC_ISR), -1);
}
END_TEST

START_TEST(test_lapic_deliverable)
{
	ck_assert_int_eq(lapic_deliverable(&page), -1);
	set_vector(APIC_IRR, 0x41);
	ck_assert_int_eq(lapic_deliverable(&page), 0x41);
	/* A class (vector[7:4]) at or below PPR's waits: TPR... */
	lapic_set_reg(&page, APIC_TPR, 0x40);
	ck_assert_int_eq(lapic_deliverable(&page), -1);
	lapic_set_reg(&page, APIC_TPR, 0x3f);
	ck_assert_int_eq(lapic_deliverable(&page), 0x41);
	/* ...or the highest in service. */
	lapic_set_reg(&page, APIC_TPR, 0);
	set_vector(APIC_ISR, 0x4f);
	ck_assert_int_eq(lapic_deliverable(&page), -1);
	set_vector(APIC_IRR, 0x50);
	ck_assert_int_eq(lapic_deliverable(&page), 0x50);
}
END_TEST

START_TEST(test_lapic_timer_modes)
{
	/* Reset masks it (10.12.5.1 / figure 10-8's mask bit). */
	lapic_set_reg(&page, APIC_LVTT, APIC_LVT_MASKED | 0x40);
	lapic_set_reg(&page, APIC_TMICT, 1000);
	ck_assert_int_eq(lapic_timer(&page), LAPIC_TIMER_NONE);
	lapic_set_reg(&page, APIC_LVTT, 0x40);
	ck_assert_int_eq(lapic_timer(&page), LAPIC_TIMER_ONE_SHOT);
	lapic_set_reg(&page, APIC_LVTT, 0x40 | 1u << 17);
	ck_assert_int_eq(lapic_timer(&page), LAPIC_TIMER_PERIODIC);
	/* A zero initial count stops either. */
	lapic_set_reg(&page, APIC_TMICT, 0);
	ck_assert_int_eq(lapic_timer(&page), LAPIC_TIMER_NONE);
	/* TSC-deadline mode ignores TMICT. */
	lapic_set_reg(&page, APIC_LVTT, 0x40 | APIC_LVTT_TSC_DEADLINE);
	ck_assert_int_eq(lapic_timer(&page), LAPIC_TIMER_DEADLINE);
}
END_TEST

/* TDCR (figure 10-10): bits 3, 1:0 = 0b000 divide by 2 ... 0b110 by 128, 0b111 by 1. */
START_TEST(test_lapic_timer_left)
{
	static const struct {
		uint32_t tdcr;
		uint64_t divide;
	} divides[] = {
		{ 0x0, 2 }, { 0x1, 4 }, { 0x2, 8 }, { 0x3, 16 },
		{ 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
	};

	lapic_set_reg(&page, APIC_TMCCT, 12345);
	for (unsigned int i = 0; i < sizeof(divides) / sizeof(divides[0]); i++) {
		lapic_set_reg(&page, APIC_TDCR, divides[i].tdcr);
		ck_assert_uint_eq(lapic_timer_left(&page), 12345 * divides[i].divide);
	}
	lapic_set_reg(&page, APIC_TMCCT, 0);
	ck_assert_uint_eq(lapic_timer_left(&page), 0);
}
END_TEST

START_TEST(test_lapic_extint)
{
	ck_assert(!lapic_extint(&page));	/* fixed mode */
	lapic_set_reg(&page, APIC_LVT0, APIC_LVT_DM_EXTINT);
	ck_assert(lapic_extint(&page));		/* KVM's BSP at reset: virtual-wire */
	lapic_set_reg(&page, APIC_LVT0, APIC_LVT_DM_EXTINT | APIC_LVT_MASKED);
	ck_assert(!lapic_extint(&page));
	lapic_set_reg(&page, APIC_LVT0, APIC_LVT_DM_NMI);
	ck_assert(!lapic_extint(&page));
}
END_TEST

static Suite *lapic_suite(void)
{
	Suite *s = suite_create("lapic");
	TCase *tc = tcase_create("page");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_lapic_highest);
	tcase_add_test(tc, test_lapic_deliverable);
	tcase_add_test(tc, test_lapic_timer_modes);
	tcase_add_test(tc, test_lapic_timer_left);
	tcase_add_test(tc, test_lapic_extint);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(lapic_suite)
