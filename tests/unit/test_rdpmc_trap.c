/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MSRs an image's RDPMCs turned into RDMSRs send to pmuvm
 * (vmm/rdpmc/trap.c, docs/counting.md "RDPMC traps"): GP counter i is MSR
 * i, fixed counter i MSR 0x40000000 + i, both also with bit 31 (fast
 * reads), for this PMU's counters, those KVM answers itself, and GP 0 and
 * 1 always (MSRs KVM reads as 0).
 */
#include <string.h>

#include "kvm/msr_filter.h"
#include "model/vpmu.h"
#include "rdpmc/rdpmc.h"
#include "suite.h"

static const struct trap_case {
	unsigned int version, nr_gp, nr_fixed, fixed_bitmap;
	unsigned int kvm_gp, kvm_fixed;
	unsigned int n;			/* spans */
	uint32_t last_gp, last_fixed;	/* the last index of the GP and fixed spans */
} trap_cases[] = {
	/* Intel's default PMU on kvm_amd 6.1 (GP 0-3; ECX bits 31:30 ignored). */
	{ 5, 8, 3, 0, 4, 3, 4, 7, 2 },
	/* No PMU: KVM's own counters, which must #GP. */
	{ 0, 0, 0, 0, 4, 4, 4, 3, 3 },
	{ 0, 0, 0, 0, 6, 4, 4, 5, 3 },
	/* No PMU, KVM answers GP 0 alone: GP 0 and 1 still, no fixed span. */
	{ 0, 0, 0, 0, 1, 0, 2, 1, 0 },
	/* No GP counter or one: GP 0 and 1 all the same. */
	{ 1, 0, 0, 0, 0, 0, 2, 1, 0 },
	{ 5, 0, 3, 0, 0, 3, 4, 1, 2 },
	{ 2, 1, 3, 0, 1, 3, 4, 1, 2 },
	/* Version 5's bitmap: up to its highest fixed counter. */
	{ 5, 2, 0, 0x8, 2, 0, 4, 1, 3 },
};

START_TEST(test_rdpmc_trap_spans)
{
	const struct trap_case *c = &trap_cases[_i];
	struct kvm_msr_span s[RDPMC_TRAP_MAX_SPANS];
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, c->version);
	cfg.nr_gp = c->nr_gp;
	cfg.nr_fixed = c->nr_fixed;
	cfg.fixed_bitmap = c->fixed_bitmap;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	memset(s, 0xff, sizeof(s));
	ck_assert_uint_eq(rdpmc_trap_spans(&cfg, c->kvm_gp, c->kvm_fixed, s), c->n);
	ck_assert_uint_eq(s[0].first, 0);
	ck_assert_uint_eq(s[0].last, c->last_gp);
	ck_assert_uint_eq(s[1].first, 0x80000000u);
	ck_assert_uint_eq(s[1].last, 0x80000000u | c->last_gp);
	ck_assert(s[0].reads_only && s[1].reads_only);
	if (c->n < 4)
		return;
	ck_assert_uint_eq(s[2].first, 0x40000000u);
	ck_assert_uint_eq(s[2].last, 0x40000000u | c->last_fixed);
	ck_assert_uint_eq(s[3].first, 0xc0000000u);
	ck_assert_uint_eq(s[3].last, 0xc0000000u | c->last_fixed);
	ck_assert(s[2].reads_only && s[3].reads_only);
}
END_TEST

static Suite *rdpmc_trap_suite(void)
{
	Suite *s = suite_create("rdpmc_trap");
	TCase *tc = tcase_create("spans");

	tcase_add_loop_test(tc, test_rdpmc_trap_spans, 0,
			    (int)(sizeof(trap_cases) / sizeof(trap_cases[0])));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(rdpmc_trap_suite)
