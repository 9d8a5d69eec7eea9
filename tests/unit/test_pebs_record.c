/* SPDX-License-Identifier: GPL-2.0-only */
/* PEBS record layouts (docs/intel-pmu.md 4.4), field by field, for formats 3, 4 and 5. */
#include <string.h>

#include "pebs/pebs.h"
#include "suite.h"

static struct pebs_state state(void)
{
	struct pebs_state st;
	unsigned int i, j;

	memset(&st, 0, sizeof(st));
	st.rflags = 0x246;
	st.rip = 0xffffffff81000010ULL;
	st.eventing_ip = 0xffffffff8100000cULL;
	for (i = 0; i < PEBS_NR_GPRS; i++)
		st.gpr[i] = 0x1111111100000000ULL * (i + 1) + i;
	st.tsc = 0x123456789abcULL;
	for (i = 0; i < PEBS_NR_XMMS; i++)
		for (j = 0; j < 16; j++)
			st.xmm[i][j] = (uint8_t)(i * 16 + j);
	return st;
}

static uint64_t at(const uint8_t *rec, size_t off)
{
	uint64_t v;

	memcpy(&v, rec + off, 8);
	return v;
}

START_TEST(test_format3_layout)
{
	struct pebs_state st = state();
	uint8_t rec[PEBS_RECORD_MAX + 8];
	/* Legacy order at 0x10..0x48, then R8..R15 (docs/intel-pmu.md 4.4). */
	static const struct { size_t off; enum pebs_gpr r; } regs[] = {
		{ 0x10, PEBS_RAX }, { 0x18, PEBS_RBX }, { 0x20, PEBS_RCX }, { 0x28, PEBS_RDX },
		{ 0x30, PEBS_RSI }, { 0x38, PEBS_RDI }, { 0x40, PEBS_RBP }, { 0x48, PEBS_RSP },
		{ 0x50, PEBS_R8 }, { 0x58, PEBS_R9 }, { 0x60, PEBS_R10 }, { 0x68, PEBS_R11 },
		{ 0x70, PEBS_R12 }, { 0x78, PEBS_R13 }, { 0x80, PEBS_R14 }, { 0x88, PEBS_R15 },
	};

	memset(rec, 0xaa, sizeof(rec));
	ck_assert_uint_eq(pebs_record_build(3, 0, &st, 0x5, rec), 0xc8);
	ck_assert_uint_eq(at(rec, 0x00), st.rflags);
	ck_assert_uint_eq(at(rec, 0x08), st.rip);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		ck_assert_uint_eq(at(rec, regs[i].off), st.gpr[regs[i].r]);
	ck_assert_uint_eq(at(rec, 0x90), 0x5);
	ck_assert_uint_eq(at(rec, 0x98), 0);
	ck_assert_uint_eq(at(rec, 0xa0), 0);
	ck_assert_uint_eq(at(rec, 0xa8), 0);
	ck_assert_uint_eq(at(rec, 0xb0), st.eventing_ip);
	ck_assert_uint_eq(at(rec, 0xb8), 0);
	ck_assert_uint_eq(at(rec, 0xc0), st.tsc);
	ck_assert_uint_eq(rec[0xc8], 0xaa);	/* nothing past the record */
}
END_TEST

static void check_basic(const uint8_t *rec, const struct pebs_state *st, uint64_t groups,
			size_t size, uint64_t applicable)
{
	ck_assert_uint_eq(at(rec, 0x00), groups | (uint64_t)size << 48);
	ck_assert_uint_eq(at(rec, 0x08), st->eventing_ip);
	ck_assert_uint_eq(at(rec, 0x10), applicable);
	ck_assert_uint_eq(at(rec, 0x18), st->tsc);
}

static void check_gprs(const uint8_t *g, const struct pebs_state *st)
{
	ck_assert_uint_eq(at(g, 0x00), st->rflags);
	ck_assert_uint_eq(at(g, 0x08), st->rip);
	/* Architectural order: RAX RCX RDX RBX RSP RBP RSI RDI R8..R15. */
	for (unsigned int i = 0; i < PEBS_NR_GPRS; i++)
		ck_assert_uint_eq(at(g, 0x10 + 8 * i), st->gpr[i]);
	ck_assert_uint_eq(at(g, 0x28), st->gpr[PEBS_RBX]);
	ck_assert_uint_eq(at(g, 0x30), st->gpr[PEBS_RSP]);
}

START_TEST(test_adaptive_basic_only)
{
	struct pebs_state st = state();
	uint8_t rec[PEBS_RECORD_MAX + 8];

	memset(rec, 0xaa, sizeof(rec));
	ck_assert_uint_eq(pebs_record_build(4, 0, &st, 1ULL << 32, rec), 0x20);
	check_basic(rec, &st, 0, 0x20, 1ULL << 32);
	ck_assert_uint_eq(rec[0x20], 0xaa);
}
END_TEST

START_TEST(test_adaptive_all_groups)
{
	uint64_t groups = PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GPRS | PEBS_DATACFG_XMMS;
	struct pebs_state st = state();
	uint8_t rec[PEBS_RECORD_MAX + 8];
	unsigned int fmt = (unsigned int)_i;	/* 4 and 5 are identical (docs/intel-pmu.md 4.4) */

	memset(rec, 0xaa, sizeof(rec));
	ck_assert_uint_eq(pebs_record_build(fmt, groups, &st, 0x3, rec), 0x1d0);
	check_basic(rec, &st, groups, 0x1d0, 0x3);
	for (size_t off = 0x20; off < 0x40; off++)	/* MemInfo: not measured, zeros */
		ck_assert_uint_eq(rec[off], 0);
	check_gprs(rec + 0x40, &st);
	ck_assert_int_eq(memcmp(rec + 0xd0, st.xmm, 0x100), 0);
	ck_assert_uint_eq(rec[0x1d0], 0xaa);
}
END_TEST

START_TEST(test_adaptive_gprs_xmm_only)
{
	struct pebs_state st = state();
	uint8_t rec[PEBS_RECORD_MAX + 8];

	ck_assert_uint_eq(pebs_record_build(4, PEBS_DATACFG_GPRS, &st, 1, rec), 0xb0);
	check_basic(rec, &st, PEBS_DATACFG_GPRS, 0xb0, 1);
	check_gprs(rec + 0x20, &st);
	ck_assert_uint_eq(pebs_record_build(4, PEBS_DATACFG_XMMS, &st, 1, rec), 0x120);
	check_basic(rec, &st, PEBS_DATACFG_XMMS, 0x120, 1);
	ck_assert_int_eq(memcmp(rec + 0x20, st.xmm, 0x100), 0);
	ck_assert_uint_eq(pebs_record_build(4, PEBS_DATACFG_MEMINFO, &st, 1, rec), 0x40);
}
END_TEST

/*
 * The LBR group last, DATA_CFG[31:24] + 1 entries of 0x18 bytes, zeros
 * (no branch records kept); its bits stay in the group field. All four
 * groups with 32 entries: 0x4D0 bytes (docs/intel-pmu.md 4.4).
 */
START_TEST(test_adaptive_lbr_group)
{
	uint64_t groups = PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GPRS | PEBS_DATACFG_XMMS |
			  PEBS_DATACFG_LBRS | 31ULL << PEBS_DATACFG_LBR_SHIFT;
	struct pebs_state st = state();
	uint8_t rec[PEBS_RECORD_MAX + 8];

	memset(rec, 0xaa, sizeof(rec));
	ck_assert_uint_eq(pebs_record_build(4, groups, &st, 0x3, rec), 0x4d0);
	check_basic(rec, &st, groups, 0x4d0, 0x3);
	check_gprs(rec + 0x40, &st);
	ck_assert_int_eq(memcmp(rec + 0xd0, st.xmm, 0x100), 0);
	for (size_t off = 0x1d0; off < 0x4d0; off++)
		ck_assert_uint_eq(rec[off], 0);
	ck_assert_uint_eq(rec[0x4d0], 0xaa);

	memset(rec, 0xaa, sizeof(rec));
	ck_assert_uint_eq(pebs_record_build(5, PEBS_DATACFG_LBRS, &st, 1, rec), 0x38);
	check_basic(rec, &st, PEBS_DATACFG_LBRS, 0x38, 1);
	ck_assert_uint_eq(rec[0x38], 0xaa);
	groups = PEBS_DATACFG_LBRS | 0xffULL << PEBS_DATACFG_LBR_SHIFT;
	memset(rec, 0xaa, sizeof(rec));
	ck_assert_uint_eq(pebs_record_build(4, groups, &st, 1, rec), 0x20 + 256 * 0x18);
	ck_assert_uint_eq(rec[0x20 + 256 * 0x18 - 1], 0);
	ck_assert_uint_eq(rec[0x20 + 256 * 0x18], 0xaa);
}
END_TEST

static void make_pmu(struct vpmu *pmu, unsigned int fmt, bool baseline)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	cfg.pebs = true;
	cfg.pebs_format = fmt;
	cfg.pebs_baseline = baseline;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(pmu, &cfg);
}

/*
 * docs/intel-pmu.md 4.3: groups (the LBR entry count too) only with
 * Adaptive_Record on an applicable counter.
 */
START_TEST(test_groups_selection)
{
	struct vpmu pmu;

	make_pmu(&pmu, 4, true);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_PEBS_DATA_CFG, 0x1f00000f), VPMU_OK);
	ck_assert_uint_eq(pebs_record_groups(&pmu, 1), 0);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERFEVTSEL0, EVTSEL_ADAPTIVE | 0xc0), VPMU_OK);
	ck_assert_uint_eq(pebs_record_groups(&pmu, 1), 0x1f00000f);
	ck_assert_uint_eq(pebs_record_groups(&pmu, 2), 0);
	ck_assert_uint_eq(pebs_record_groups(&pmu, 1ULL << 32), 0);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_ADAPTIVE(0)), VPMU_OK);
	ck_assert_uint_eq(pebs_record_groups(&pmu, 1ULL << 32), 0x1f00000f);

	make_pmu(&pmu, 3, false);
	ck_assert_uint_eq(pebs_record_groups(&pmu, 1), 0);
}
END_TEST

static Suite *pebs_record_suite(void)
{
	Suite *s = suite_create("pebs_record");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_format3_layout);
	tcase_add_test(tc, test_adaptive_basic_only);
	tcase_add_loop_test(tc, test_adaptive_all_groups, 4, 6);
	tcase_add_test(tc, test_adaptive_gprs_xmm_only);
	tcase_add_test(tc, test_adaptive_lbr_group);
	tcase_add_test(tc, test_groups_selection);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pebs_record_suite)
