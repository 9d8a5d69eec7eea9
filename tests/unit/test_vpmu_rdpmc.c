/* SPDX-License-Identifier: GPL-2.0-only */
/* RDPMC ECX decoding (docs/intel-pmu.md 2.1, docs/kvm-vpmu.md 1.2). */
#include "suite.h"
#include "model/vpmu.h"

static void make_pmu(struct vpmu *pmu, unsigned int version, unsigned int nr_gp,
		     unsigned int nr_fixed)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, version);
	if (version) {
		cfg.nr_gp = nr_gp;
		cfg.nr_fixed = nr_fixed;
	}
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(pmu, &cfg);
}

static int rdpmc(struct vpmu *pmu, uint32_t ecx, uint64_t *v)
{
	*v = 0xdead;
	return vpmu_rdpmc(pmu, ecx, v);
}

/* Every GP and fixed index per version and count, both sides of the limit. */
START_TEST(test_rdpmc_indexes)
{
	unsigned int version = _i, nr_gp, nr_fixed, idx;
	struct vpmu pmu;
	uint64_t v;

	for (nr_gp = 1; nr_gp <= 8; nr_gp++) {
		for (nr_fixed = 0; nr_fixed <= 4; nr_fixed++) {
			make_pmu(&pmu, version, nr_gp, nr_fixed);
			for (idx = 0; idx < 8; idx++) {
				pmu.gp[idx].value = 0x100 + idx;
				if (idx < 4)
					pmu.fixed[idx].value = 0x200 + idx;
			}
			for (idx = 0; idx < 10; idx++) {
				if (version && idx < nr_gp) {
					ck_assert_int_eq(rdpmc(&pmu, idx, &v), VPMU_OK);
					ck_assert_uint_eq(v, 0x100 + idx);
				} else {
					ck_assert_int_eq(rdpmc(&pmu, idx, &v), VPMU_GP);
					ck_assert_uint_eq(v, 0xdead);
				}
				if (version >= 2 && idx < nr_fixed) {
					ck_assert_int_eq(rdpmc(&pmu, RDPMC_FIXED | idx, &v), VPMU_OK);
					ck_assert_uint_eq(v, 0x200 + idx);
				} else {
					ck_assert_int_eq(rdpmc(&pmu, RDPMC_FIXED | idx, &v), VPMU_GP);
				}
			}
		}
	}
}
END_TEST

/* Any type other than 0 and 0x4000 #GPs, the legacy fast bit included. */
static const uint32_t bad_ecx[] = {
	0x80000000,		/* fast read of PMC0 */
	0xc0000000,		/* fast read of fixed 0 */
	0x20000000,
	0x60000000,		/* PERF_METRICS type: not advertised */
	0x00010000,
	0x40010000,
	0x0000ffff,
	0x4000ffff,
	0x00000008,
	0x40000004,
	0xffffffff,
};

START_TEST(test_rdpmc_bad_ecx)
{
	struct vpmu pmu;
	uint64_t v;

	make_pmu(&pmu, 5, 8, 4);
	ck_assert_int_eq(rdpmc(&pmu, bad_ecx[_i], &v), VPMU_GP);
	ck_assert_uint_eq(v, 0xdead);
}
END_TEST

/* RDPMC of ECX #GPs and leaves *v alone (not ck_assert per ECX: Check marks each one). */
static void expect_rdpmc_gp(struct vpmu *pmu, uint32_t ecx)
{
	uint64_t v;
	int r = rdpmc(pmu, ecx, &v);

	if (r != VPMU_GP || v != 0xdead)
		ck_abort_msg("rdpmc %#x: %d, value %#llx; want #GP", ecx, r, (unsigned long long)v);
}

/*
 * A CPU without a PMU (version 0): every ECX #GPs, for either vendor (SDM
 * vol. 2B RDPMC; AMD64 APM vol. 3 RDPMC), even with counters asked for
 * (validation drops them) and values left in the model's counters; the
 * 16-bit type and the index are swept whole, the fast bit included.
 */
START_TEST(test_rdpmc_no_pmu)
{
	struct vpmu_config cfg;
	struct vpmu pmu;
	uint32_t hi, lo;

	if (_i)
		vpmu_config_default_amd(&cfg, 0);
	else
		vpmu_config_default(&cfg, 0);
	cfg.nr_gp = _i ? 6 : 8;
	cfg.nr_fixed = _i ? 0 : 3;
	cfg.gp_width = 48;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert_uint_eq(cfg.version, 0);
	ck_assert_uint_eq(cfg.nr_gp, 0);
	ck_assert_uint_eq(cfg.nr_fixed, 0);
	vpmu_init(&pmu, &cfg);
	for (lo = 0; lo < VPMU_MAX_GP; lo++)
		pmu.gp[lo].value = 0x100 + lo;
	for (lo = 0; lo < VPMU_MAX_FIXED; lo++)
		pmu.fixed[lo].value = 0x200 + lo;
	for (hi = 0; hi <= 0xffff; hi++)
		for (lo = 0; lo < 10; lo++)
			expect_rdpmc_gp(&pmu, hi << 16 | lo);
	for (lo = 0; lo <= 0xffff; lo++) {
		expect_rdpmc_gp(&pmu, lo);
		expect_rdpmc_gp(&pmu, (uint32_t)RDPMC_FIXED | lo);
	}
	expect_rdpmc_gp(&pmu, 0xffffffff);
}
END_TEST

/* Values are masked to the counter width. */
START_TEST(test_rdpmc_width)
{
	struct vpmu_config cfg;
	struct vpmu pmu;
	uint64_t v;

	vpmu_config_default(&cfg, 5);
	cfg.gp_width = 40;
	cfg.fixed_width = 36;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&pmu, &cfg);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PMC0 + 1, 0xffffffff), VPMU_OK);
	ck_assert_int_eq(rdpmc(&pmu, 1, &v), VPMU_OK);
	ck_assert_uint_eq(v, 0xffffffffffULL);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_FIXED_CTR0 + 2, ~0ULL), VPMU_OK);
	ck_assert_int_eq(rdpmc(&pmu, RDPMC_FIXED | 2, &v), VPMU_OK);
	ck_assert_uint_eq(v, 0xfffffffffULL);
}
END_TEST

/* Which counters a guest has set: what tells pmuvm to catch their RDPMC's #GP. */
START_TEST(test_counters_set_from)
{
	struct vpmu pmu;

	make_pmu(&pmu, 5, 8, 3);
	ck_assert(!vpmu_counters_set_from(&pmu, 0, 0));
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PMC0 + 3, 5), VPMU_OK);
	ck_assert(vpmu_counters_set_from(&pmu, 3, 3));
	ck_assert(!vpmu_counters_set_from(&pmu, 4, 3));
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERFEVTSEL0 + 6, 0xc0), VPMU_OK);
	ck_assert(vpmu_counters_set_from(&pmu, 6, 3));
	ck_assert(!vpmu_counters_set_from(&pmu, 7, 3));
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERFEVTSEL0 + 6, 0), VPMU_OK);
	ck_assert(!vpmu_counters_set_from(&pmu, 4, 3));
	ck_assert(!vpmu_counters_set_from(&pmu, 8, 2));
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0x200), VPMU_OK);
	ck_assert(vpmu_counters_set_from(&pmu, 8, 2));
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_FIXED_CTR0 + 2, 1), VPMU_OK);
	ck_assert(vpmu_counters_set_from(&pmu, 8, 2));
	ck_assert(!vpmu_counters_set_from(&pmu, 8, 3));
}
END_TEST

static Suite *vpmu_rdpmc_suite(void)
{
	Suite *s = suite_create("vpmu_rdpmc");
	TCase *tc = tcase_create("rdpmc");

	tcase_add_loop_test(tc, test_rdpmc_indexes, 0, 6);
	tcase_add_loop_test(tc, test_rdpmc_bad_ecx, 0, sizeof(bad_ecx) / sizeof(bad_ecx[0]));
	tcase_add_loop_test(tc, test_rdpmc_no_pmu, 0, 2);
	tcase_add_test(tc, test_rdpmc_width);
	tcase_add_test(tc, test_counters_set_from);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_rdpmc_suite)
