/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MSR existence, reset values, read/write rules and #GP cases of the vPMU
 * model (docs/intel-pmu.md 2, docs/kvm-vpmu.md 1.2), per version and per counter count.
 */
#include "suite.h"
#include "model/vpmu.h"

#define MASK48	0xffffffffffffULL

static void make_pmu(struct vpmu *pmu, unsigned int version)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, version);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(pmu, &cfg);
}

static void make_pmu_cfg(struct vpmu *pmu, struct vpmu_config *cfg)
{
	ck_assert_int_eq(vpmu_config_validate(cfg), 0);
	vpmu_init(pmu, cfg);
}

static void make_pebs_pmu(struct vpmu *pmu, unsigned int format, bool baseline)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	cfg.pebs = true;
	cfg.pebs_format = format;
	cfg.pebs_baseline = baseline;
	make_pmu_cfg(pmu, &cfg);
}

static uint64_t rd(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v = 0xdeadbeef;

	ck_assert_msg(vpmu_rdmsr(pmu, msr, &v) == VPMU_OK, "rdmsr %#x #GP", msr);
	return v;
}

static void wr(struct vpmu *pmu, uint32_t msr, uint64_t v)
{
	ck_assert_msg(vpmu_wrmsr(pmu, msr, v) == VPMU_OK, "wrmsr %#x <- %#llx #GP",
		      msr, (unsigned long long)v);
}

static void wr_gp(struct vpmu *pmu, uint32_t msr, uint64_t v)
{
	ck_assert_msg(vpmu_wrmsr(pmu, msr, v) == VPMU_GP, "wrmsr %#x <- %#llx no #GP",
		      msr, (unsigned long long)v);
}

static void rd_gp(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v = 0x1234;

	ck_assert_msg(vpmu_rdmsr(pmu, msr, &v) == VPMU_GP, "rdmsr %#x no #GP", msr);
	ck_assert_uint_eq(v, 0x1234);
}

/*
 * Existence with the default configuration of each version (8 GP, 3 fixed
 * counters, PDCM+FW_WRITE from v2, no PEBS). `from` is the first version
 * with the MSR, `ro` means a guest write #GPs even though it exists.
 */
static const struct {
	uint32_t msr;
	unsigned int from;	/* 9 = never */
	bool ro;
} existence[] = {
	{ 0x0c1, 1, false }, { 0x0c8, 1, false },
	{ 0x186, 1, false }, { 0x18d, 1, false },
	{ 0x1a0, 0, false }, { 0x1d9, 0, false },
	{ 0x309, 2, false }, { 0x30a, 2, false }, { 0x30b, 2, false }, { 0x30c, 9, false },
	{ 0x329, 9, false },
	{ 0x345, 2, true },
	{ 0x38d, 2, false }, { 0x38e, 2, true }, { 0x38f, 2, false }, { 0x390, 2, false },
	{ 0x391, 4, false }, { 0x392, 4, true },
	{ 0x3f1, 9, false }, { 0x3f2, 9, false }, { 0x3f6, 9, false }, { 0x3f7, 9, false },
	{ 0x4c1, 2, false }, { 0x4c8, 2, false },
	{ 0x600, 9, false },
};

START_TEST(test_existence_per_version)
{
	unsigned int version = _i, j;
	struct vpmu pmu;

	make_pmu(&pmu, version);
	for (j = 0; j < sizeof(existence) / sizeof(existence[0]); j++) {
		uint32_t msr = existence[j].msr;

		if (version < existence[j].from) {
			rd_gp(&pmu, msr);
			wr_gp(&pmu, msr, 0);
			continue;
		}
		rd(&pmu, msr);
		if (existence[j].ro)
			wr_gp(&pmu, msr, rd(&pmu, msr));
		else
			wr(&pmu, msr, rd(&pmu, msr));
	}
}
END_TEST

/* RESET values of each version's default configuration (docs/intel-pmu.md 2). */
static const struct {
	uint64_t global_ctrl, misc_enable, perf_caps;
} reset_values[] = {
	[0] = { 0, 0x1801, 0 },
	[1] = { 0, 0x1881, 0 },
	[2] = { 0xff, 0x1881, 0x2000 },
	[3] = { 0xff, 0x1881, 0x2000 },
	[4] = { 0xff, 0x1881, 0x2000 },
	[5] = { 0xff, 0x1881, 0x2000 },
};

START_TEST(test_reset_values)
{
	unsigned int version = _i, x;
	struct vpmu pmu;

	make_pmu(&pmu, version);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_MISC_ENABLE), reset_values[version].misc_enable);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_DEBUGCTL), 0);
	for (x = 0; x < pmu.cfg.nr_gp; x++) {
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0 + x), 0);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERFEVTSEL0 + x), 0);
	}
	for (x = 0; x < pmu.cfg.nr_fixed; x++)
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + x), 0);
	if (version >= 2) {
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_CAPABILITIES),
				  reset_values[version].perf_caps);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL),
				  reset_values[version].global_ctrl);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR_CTRL), 0);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL), 0);
	}
	if (version >= 4) {
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET), 0);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE), 0);
	}
	ck_assert(!pmu.pmi_pending);
	ck_assert_uint_eq(pmu.overflows, 0);
}
END_TEST

/*
 * GLOBAL_CTRL RESET = GENMASK(nr_gp - 1, 0) for every GP count, 0 with no
 * GP counter (SDM: "sets bits n-1:0"; fixed enables clear).
 */
START_TEST(test_reset_global_ctrl_nr_gp)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 2);
	cfg.nr_gp = _i;
	make_pmu_cfg(&pmu, &cfg);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), (1ULL << _i) - 1);
}
END_TEST

START_TEST(test_reset_pebs)
{
	struct vpmu pmu;

	make_pebs_pmu(&pmu, 4, true);
	/* PEBS_UNAVAILABLE clear once PEBS is exposed (docs/intel-pmu.md 1.1). */
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_MISC_ENABLE), 0x0881);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_CAPABILITIES), 0x2000 | 0x40 | 0x80 | 0x400 | 0x4000);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PEBS_ENABLE), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_PEBS_DATA_CFG), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_PEBS_LD_LAT_THRESHOLD), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_DS_AREA), 0);

	make_pebs_pmu(&pmu, 3, false);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_CAPABILITIES), 0x2000 | 0x40 | 0x80 | 0x300);
	make_pebs_pmu(&pmu, 5, false);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_CAPABILITIES), 0x2000 | 0x40 | 0x80 | 0x500);
}
END_TEST

/*
 * GP counter x exists iff x < nr_gp, through all three MSR ranges, for every
 * version 1..5 (_i = (version - 1) * 8 + nr_gp - 1). Version 1 has no PDCM
 * by default, hence no full-width alias and no GLOBAL_CTRL.
 */
START_TEST(test_gp_count)
{
	unsigned int version = _i / 8 + 1, nr_gp = _i % 8 + 1, x;
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, version);
	cfg.nr_gp = nr_gp;
	make_pmu_cfg(&pmu, &cfg);
	for (x = 0; x < 8; x++) {
		if (x < nr_gp) {
			wr(&pmu, MSR_IA32_PMC0 + x, 0xffff);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0 + x), 0xffff);
			wr(&pmu, MSR_IA32_PERFEVTSEL0 + x, 0x4300c0);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERFEVTSEL0 + x), 0x4300c0);
		} else {
			rd_gp(&pmu, MSR_IA32_PMC0 + x);
			wr_gp(&pmu, MSR_IA32_PMC0 + x, 0);
			rd_gp(&pmu, MSR_IA32_PERFEVTSEL0 + x);
			wr_gp(&pmu, MSR_IA32_PERFEVTSEL0 + x, 0);
		}
		if (x < nr_gp && version > 1) {
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_A_PMC0 + x), 0xffff);
			wr(&pmu, MSR_IA32_A_PMC0 + x, 0x1234);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0 + x), 0x1234);
		} else {
			rd_gp(&pmu, MSR_IA32_A_PMC0 + x);
			wr_gp(&pmu, MSR_IA32_A_PMC0 + x, 0);
		}
	}
	if (version == 1) {
		rd_gp(&pmu, MSR_IA32_PERF_GLOBAL_CTRL);
		return;
	}
	/* GLOBAL_CTRL: bits of missing GP counters are reserved. */
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, (1ULL << nr_gp) - 1);
	if (nr_gp < 8)
		wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 1ULL << nr_gp);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), (1ULL << nr_gp) - 1);
}
END_TEST

/*
 * Fixed counter i exists iff i < nr_fixed (counter MSR, control field and
 * GLOBAL_CTRL enable), for versions 2..5 (_i = (version - 2) * 5 + nr_fixed).
 */
START_TEST(test_fixed_count)
{
	unsigned int version = _i / 5 + 2, nr_fixed = _i % 5, i;
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, version);
	cfg.nr_fixed = nr_fixed;
	make_pmu_cfg(&pmu, &cfg);
	for (i = 0; i < 4; i++) {
		if (i < nr_fixed) {
			wr(&pmu, MSR_IA32_FIXED_CTR0 + i, 0xffff);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + i), 0xffff);
			wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0xbULL << (4 * i));
			wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(i));
			wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_CTRL_FIXED(i));
		} else {
			rd_gp(&pmu, MSR_IA32_FIXED_CTR0 + i);
			wr_gp(&pmu, MSR_IA32_FIXED_CTR0 + i, 0);
			wr_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(i));
			wr_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(i));
			wr_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_PMI(i));
			wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(i));
			wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_CTRL_FIXED(i));
		}
	}
	/* The control MSR itself exists from v2 even with no fixed counter. */
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0);
}
END_TEST

/*
 * Version 5's ECX bitmap (SDM vol. 2A, CPUID leaf 0AH): fixed counter i
 * exists iff i < EDX[4:0] or ECX[i], holes included, for every count and
 * bitmap; an absent one #GPs in its MSR, its FIXED_CTR_CTRL field, its
 * GLOBAL_CTRL bit and RDPMC, as in KVM's pmu_counters_test.
 */
START_TEST(test_fixed_bitmap)
{
	unsigned int nr_fixed = _i / 16, bitmap = _i % 16, i;
	struct vpmu_config cfg;
	struct vpmu pmu;
	uint64_t v;

	vpmu_config_default(&cfg, 5);
	cfg.nr_fixed = nr_fixed;
	cfg.fixed_bitmap = bitmap;
	make_pmu_cfg(&pmu, &cfg);
	for (i = 0; i < VPMU_MAX_FIXED; i++) {
		bool exists = i < nr_fixed || (bitmap >> i & 1);

		ck_assert_int_eq(vpmu_fixed_exists(&pmu.cfg, i), exists);
		if (!exists) {
			rd_gp(&pmu, MSR_IA32_FIXED_CTR0 + i);
			wr_gp(&pmu, MSR_IA32_FIXED_CTR0 + i, 0xffff);
			wr_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(i));
			wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(i));
			ck_assert_int_eq(vpmu_rdpmc(&pmu, RDPMC_FIXED | i, &v), VPMU_GP);
			continue;
		}
		wr(&pmu, MSR_IA32_FIXED_CTR0 + i, 0xffff);
		ck_assert_int_eq(vpmu_rdpmc(&pmu, RDPMC_FIXED | i, &v), VPMU_OK);
		ck_assert_uint_eq(v, 0xffff);
		wr(&pmu, MSR_IA32_FIXED_CTR0 + i, 0);
		wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(i));
		wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(i));
		vpmu_count(&pmu, vpmu_fixed_event(i), 10, 0);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + i), 10);
		wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0);
		wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0);
	}
}
END_TEST

/* Version 1 forces nr_fixed = 0: no fixed counter MSR at all. */
START_TEST(test_v1_no_fixed)
{
	struct vpmu_config cfg;
	struct vpmu pmu;
	unsigned int i;

	vpmu_config_default(&cfg, 1);
	cfg.nr_fixed = 3;
	make_pmu_cfg(&pmu, &cfg);
	for (i = 0; i < 4; i++) {
		rd_gp(&pmu, MSR_IA32_FIXED_CTR0 + i);
		wr_gp(&pmu, MSR_IA32_FIXED_CTR0 + i, 0);
	}
	rd_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL);
	wr_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0);
}
END_TEST

/* Version 1: GP counters and EVTSELs only, PERF_CAPABILITIES if PDCM. */
START_TEST(test_v1_with_pdcm)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 1);
	cfg.pdcm = true;
	cfg.full_width_write = true;
	make_pmu_cfg(&pmu, &cfg);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_CAPABILITIES), PERF_CAP_FW_WRITE);
	wr(&pmu, MSR_IA32_A_PMC0, MASK48);
	/* The freeze bits need version > 1 even with PDCM (docs/intel-pmu.md 2.9). */
	wr_gp(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	wr_gp(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_LBRS_ON_PMI);
	rd_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL);
	rd_gp(&pmu, MSR_IA32_PERF_GLOBAL_CTRL);
}
END_TEST

/* No PDCM: neither PERF_CAPABILITIES nor the full-width aliases. */
START_TEST(test_no_pdcm)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 5);
	cfg.pdcm = false;
	make_pmu_cfg(&pmu, &cfg);
	rd_gp(&pmu, MSR_IA32_PERF_CAPABILITIES);
	rd_gp(&pmu, MSR_IA32_A_PMC0);
	wr_gp(&pmu, MSR_IA32_A_PMC0, 0);
	wr_gp(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	wr_gp(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_LBRS_ON_PMI);
}
END_TEST

/* PDCM without FW_WRITE: PERF_CAPABILITIES reads 0, 0x4C1+ is absent. */
START_TEST(test_pdcm_no_fw)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 5);
	cfg.full_width_write = false;
	make_pmu_cfg(&pmu, &cfg);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_CAPABILITIES), 0);
	rd_gp(&pmu, MSR_IA32_A_PMC0);
	wr_gp(&pmu, MSR_IA32_A_PMC0 + 7, 0);
}
END_TEST

/* Legacy PMCx writes: EAX sign-extended from bit 31, masked to the width. */
static const struct {
	unsigned int width;
	uint64_t data, value;
} legacy_writes[] = {
	{ 48, 0x0, 0x0 },
	{ 48, 0x7fffffff, 0x7fffffff },
	{ 48, 0x80000000, 0xffff80000000ULL },
	{ 48, 0xffffffff, MASK48 },
	{ 48, 0xfffffffe, 0xfffffffffffeULL },
	{ 48, 0x123456787fffffffULL, 0x7fffffff },
	{ 48, 0xffffffff00000001ULL, 0x1 },
	{ 32, 0x80000000, 0x80000000 },
	{ 32, 0xffffffffffffffffULL, 0xffffffff },
	{ 40, 0x80000001, 0xff80000001ULL },
	{ 63, 0x80000000, 0x7fffffff80000000ULL },
};

START_TEST(test_legacy_pmc_write)
{
	struct vpmu_config cfg;
	struct vpmu pmu;
	uint64_t v;

	vpmu_config_default(&cfg, 5);
	cfg.gp_width = legacy_writes[_i].width;
	make_pmu_cfg(&pmu, &cfg);
	wr(&pmu, MSR_IA32_PMC0 + 3, legacy_writes[_i].data);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0 + 3), legacy_writes[_i].value);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_A_PMC0 + 3), legacy_writes[_i].value);
	ck_assert_int_eq(vpmu_rdpmc(&pmu, 3, &v), VPMU_OK);
	ck_assert_uint_eq(v, legacy_writes[_i].value);
}
END_TEST

/* Full-width writes: any bit at or above the width #GPs, else stored whole. */
START_TEST(test_a_pmc_write)
{
	struct vpmu pmu;
	unsigned int bit;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_A_PMC0, MASK48);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0), MASK48);
	wr(&pmu, MSR_IA32_A_PMC0, 0x800000000000ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_A_PMC0), 0x800000000000ULL);
	for (bit = 48; bit < 64; bit++) {
		wr_gp(&pmu, MSR_IA32_A_PMC0 + 1, 1ULL << bit);
		wr_gp(&pmu, MSR_IA32_A_PMC0 + 1, (1ULL << bit) | 1);
	}
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0 + 1), 0);
}
END_TEST

/* Fixed counters: high bits are truncated, not #GP (KVM; spec open item 2). */
START_TEST(test_fixed_write_truncates)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_FIXED_CTR0, ~0ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0), MASK48);
	wr(&pmu, MSR_IA32_FIXED_CTR0 + 2, 0x1234000000000005ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + 2), 0x5);

	vpmu_config_default(&cfg, 5);
	cfg.fixed_width = 36;
	make_pmu_cfg(&pmu, &cfg);
	wr(&pmu, MSR_IA32_FIXED_CTR0 + 1, ~0ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + 1), 0xfffffffffULL);
}
END_TEST

/*
 * PERFEVTSELx: every single bit. Reserved: 21 (AnyThread) and 63:32, except
 * 34 (Adaptive_Record) with PEBS baseline.
 */
START_TEST(test_evtsel_bits)
{
	unsigned int bit = _i;
	struct vpmu pmu, pmu_base;
	uint64_t data = 1ULL << bit;
	bool rsvd = bit == 21 || bit >= 32;

	make_pmu(&pmu, 5);
	make_pebs_pmu(&pmu_base, 4, true);
	if (rsvd) {
		wr_gp(&pmu, MSR_IA32_PERFEVTSEL0 + 7, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERFEVTSEL0 + 7), 0);
	} else {
		wr(&pmu, MSR_IA32_PERFEVTSEL0 + 7, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERFEVTSEL0 + 7), data);
	}
	if (rsvd && bit != 34) {
		wr_gp(&pmu_base, MSR_IA32_PERFEVTSEL0, data);
	} else {
		wr(&pmu_base, MSR_IA32_PERFEVTSEL0, data);
		ck_assert_uint_eq(rd(&pmu_base, MSR_IA32_PERFEVTSEL0), data);
	}
}
END_TEST

/* EVTSEL rules do not depend on the version (v1 included). */
START_TEST(test_evtsel_v1)
{
	struct vpmu pmu;

	make_pmu(&pmu, 1);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, 0xffdfffffULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERFEVTSEL0), 0xffdfffffULL);
	wr_gp(&pmu, MSR_IA32_PERFEVTSEL0, EVTSEL_ANY);
	wr_gp(&pmu, MSR_IA32_PERFEVTSEL0, EVTSEL_ADAPTIVE);
	wr_gp(&pmu, MSR_IA32_PERFEVTSEL0, 1ULL << 32);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERFEVTSEL0), 0xffdfffffULL);
}
END_TEST

/*
 * FIXED_CTR_CTRL with 3 fixed counters: bits {0,1,3} of each field, plus
 * 32+4i with PEBS baseline; ANY (4i+2) and everything else #GP.
 */
START_TEST(test_fixed_ctr_ctrl_bits)
{
	static const uint64_t valid = 0xbbbULL;
	static const uint64_t adaptive = 0x11100000000ULL;
	unsigned int bit = _i;
	uint64_t data = 1ULL << bit;
	struct vpmu pmu, pmu_base;

	make_pmu(&pmu, 5);
	make_pebs_pmu(&pmu_base, 4, true);
	if (data & valid) {
		wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR_CTRL), data);
	} else {
		wr_gp(&pmu, MSR_IA32_FIXED_CTR_CTRL, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR_CTRL), 0);
	}
	if (data & (valid | adaptive)) {
		wr(&pmu_base, MSR_IA32_FIXED_CTR_CTRL, data);
		ck_assert_uint_eq(rd(&pmu_base, MSR_IA32_FIXED_CTR_CTRL), data);
	} else {
		wr_gp(&pmu_base, MSR_IA32_FIXED_CTR_CTRL, data);
	}
}
END_TEST

/* GLOBAL_CTRL: bits 7:0 and 34:32 for 8 GP and 3 fixed counters. */
START_TEST(test_global_ctrl_bits)
{
	unsigned int bit = _i;
	uint64_t data = 1ULL << bit;
	struct vpmu pmu;

	make_pmu(&pmu, 3);
	if (bit < 8 || (bit >= 32 && bit < 35)) {
		wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), data);
	} else {
		wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), 0xff);
	}
}
END_TEST

/* GLOBAL_STATUS is read-only to the guest, whatever the value. */
START_TEST(test_global_status_ro)
{
	struct vpmu pmu;

	make_pmu(&pmu, _i + 2);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_STATUS, 0);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_STATUS, 1);
	ck_assert_int_eq(vpmu_set_global_status_host(&pmu, 0x5), VPMU_OK);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_STATUS, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0x5);
}
END_TEST

/*
 * 0x390 valid bits per version (docs/intel-pmu.md 2.6): counters, 55, 61, 62, 63; v4+
 * also 58, 59, 60. Each valid bit clears exactly itself.
 */
static uint64_t ovf_valid(unsigned int version)
{
	uint64_t v = 0xffULL | 0x7ULL << 32 | 1ULL << 55 | 1ULL << 61 |
		     1ULL << 62 | 1ULL << 63;

	if (version >= 4)
		v |= 1ULL << 58 | 1ULL << 59 | 1ULL << 60;
	return v;
}

START_TEST(test_ovf_ctrl_bits)
{
	unsigned int version, bit = _i;
	uint64_t data = 1ULL << bit;
	struct vpmu pmu;

	for (version = 2; version <= 5; version++) {
		uint64_t valid = ovf_valid(version);

		make_pmu(&pmu, version);
		if (!(data & valid)) {
			ck_assert_int_eq(vpmu_set_global_status_host(&pmu, data), VPMU_GP);
			wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, data);
			continue;
		}
		ck_assert_int_eq(vpmu_set_global_status_host(&pmu, valid), VPMU_OK);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), valid);
		wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), valid & ~data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL), 0);
		/* Writing 0, or 1 to an already clear bit, changes nothing. */
		wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0);
		wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), valid & ~data);
	}
}
END_TEST

/* Counter bits of 0x390 follow the configured counter counts. */
START_TEST(test_ovf_ctrl_counter_bits)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 4);
	cfg.nr_gp = 2;
	cfg.nr_fixed = 1;
	make_pmu_cfg(&pmu, &cfg);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0x3 | 1ULL << 32);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0x4);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1ULL << 33);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x3 | 1ULL << 32);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x4);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET, 1ULL << 33);
}
END_TEST

/* 0x391 (v4+): counters, 55, 58-62 set their status bit; 63 is reserved. */
START_TEST(test_status_set_bits)
{
	static const uint64_t valid = 0xffULL | 0x7ULL << 32 | 1ULL << 55 |
				      0x1fULL << 58;
	unsigned int version, bit = _i;
	uint64_t data = 1ULL << bit;
	struct vpmu pmu;

	for (version = 4; version <= 5; version++) {
		make_pmu(&pmu, version);
		if (!(data & valid)) {
			wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET, data);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
			continue;
		}
		wr(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET), 0);
		/* W1S: a second write of another bit keeps the first. */
		wr(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET, 1);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), data | 1);
		/* STATUS_SET is a VMM aid: no PMI request. */
		ck_assert(!pmu.pmi_pending);
		ck_assert_uint_eq(pmu.nr_pmis_requested, 0);
	}
}
END_TEST

/* INUSE (docs/intel-pmu.md 2.8): derived from EVTSEL[7:0], fixed EN bits, INT/PMI/PEBS. */
START_TEST(test_inuse)
{
	struct vpmu pmu;

	make_pebs_pmu(&pmu, 4, true);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE), 0);
	/* A umask alone does not make a counter in use. */
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, 0x0100 | EVTSEL_EN);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE), 0);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, 0x3c);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE), 0x2);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 7, 0xc0 | EVTSEL_INT);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE), 0x82 | GLOBAL_INUSE_PMI);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 7, 0);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(2));
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE), 0x2 | 1ULL << 34);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0) | FIXED_CTRL_PMI(1));
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE),
			  0x2 | 1ULL << 32 | GLOBAL_INUSE_PMI);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0);
	wr(&pmu, MSR_IA32_PEBS_ENABLE, 1ULL << 33);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_INUSE), 0x2 | GLOBAL_INUSE_PMI);
	wr_gp(&pmu, MSR_IA32_PERF_GLOBAL_INUSE, 0);
}
END_TEST

START_TEST(test_perf_capabilities_ro)
{
	struct vpmu pmu;
	unsigned int bit;

	make_pebs_pmu(&pmu, 4, true);
	for (bit = 0; bit < 64; bit++)
		wr_gp(&pmu, MSR_IA32_PERF_CAPABILITIES, pmu.perf_capabilities ^ (1ULL << bit));
	wr_gp(&pmu, MSR_IA32_PERF_CAPABILITIES, pmu.perf_capabilities);
	wr_gp(&pmu, MSR_IA32_PERF_CAPABILITIES, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_CAPABILITIES), 0x64c0);
}
END_TEST

/*
 * DEBUGCTL per version (default config: PDCM from v2). LBR/BTF are dropped,
 * the freeze bits are kept from v2, FREEZE_WHILE_SMM and the rest #GP.
 */
START_TEST(test_debugctl_bits)
{
	unsigned int version, bit = _i;
	uint64_t data = 1ULL << bit;
	struct vpmu pmu;

	for (version = 0; version <= 5; version++) {
		make_pmu(&pmu, version);
		if (bit == 0 || bit == 1) {
			wr(&pmu, MSR_IA32_DEBUGCTL, data);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_DEBUGCTL), 0);
		} else if ((bit == 11 || bit == 12) && version >= 2) {
			wr(&pmu, MSR_IA32_DEBUGCTL, data | DEBUGCTL_LBR);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_DEBUGCTL), data);
		} else {
			wr_gp(&pmu, MSR_IA32_DEBUGCTL, data);
			ck_assert_uint_eq(rd(&pmu, MSR_IA32_DEBUGCTL), 0);
		}
	}
}
END_TEST

START_TEST(test_misc_enable)
{
	struct vpmu pmu;

	make_pmu(&pmu, 2);
	/* Changing BTS_UNAVAIL (11) or PEBS_UNAVAIL (12) #GPs. */
	wr_gp(&pmu, MSR_IA32_MISC_ENABLE, 0x1081);
	wr_gp(&pmu, MSR_IA32_MISC_ENABLE, 0x0881);
	wr_gp(&pmu, MSR_IA32_MISC_ENABLE, 0x0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_MISC_ENABLE), 0x1881);
	/* EMON (7) writes are ignored. */
	wr(&pmu, MSR_IA32_MISC_ENABLE, 0x1801);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_MISC_ENABLE), 0x1881);
	/* Other bits are stored, the fast-string bit included. */
	wr(&pmu, MSR_IA32_MISC_ENABLE, 0x1800 | 1ULL << 16 | 1ULL << 40);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_MISC_ENABLE), 0x1880 | 1ULL << 16 | 1ULL << 40);

	/* Version 0: EMON is 0 and setting it is ignored too. */
	make_pmu(&pmu, 0);
	wr(&pmu, MSR_IA32_MISC_ENABLE, 0x1881);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_MISC_ENABLE), 0x1801);

	/* With PEBS, PEBS_UNAVAIL is 0 and must stay 0. */
	make_pebs_pmu(&pmu, 4, false);
	wr_gp(&pmu, MSR_IA32_MISC_ENABLE, 0x1881);
	wr(&pmu, MSR_IA32_MISC_ENABLE, 0x0800);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_MISC_ENABLE), 0x0880);
}
END_TEST

/* PEBS_ENABLE: all counters with baseline, GP counters only without. */
START_TEST(test_pebs_enable_bits)
{
	unsigned int bit = _i;
	uint64_t data = 1ULL << bit;
	struct vpmu pmu;

	make_pebs_pmu(&pmu, 4, true);
	if (bit < 8 || (bit >= 32 && bit < 35)) {
		wr(&pmu, MSR_IA32_PEBS_ENABLE, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PEBS_ENABLE), data);
	} else {
		wr_gp(&pmu, MSR_IA32_PEBS_ENABLE, data);
	}
	make_pebs_pmu(&pmu, 4, false);
	if (bit < 8) {
		wr(&pmu, MSR_IA32_PEBS_ENABLE, data);
		ck_assert_uint_eq(rd(&pmu, MSR_IA32_PEBS_ENABLE), data);
	} else {
		wr_gp(&pmu, MSR_IA32_PEBS_ENABLE, data);
	}
}
END_TEST

/* PEBS_DATA_CFG: exists with baseline only; valid 0xff00000f. */
START_TEST(test_pebs_data_cfg_bits)
{
	unsigned int bit = _i;
	uint64_t data = 1ULL << bit;
	struct vpmu pmu;

	make_pebs_pmu(&pmu, 5, true);
	if (data & PEBS_DATACFG_VALID) {
		wr(&pmu, MSR_PEBS_DATA_CFG, data);
		ck_assert_uint_eq(rd(&pmu, MSR_PEBS_DATA_CFG), data);
	} else {
		wr_gp(&pmu, MSR_PEBS_DATA_CFG, data);
		ck_assert_uint_eq(rd(&pmu, MSR_PEBS_DATA_CFG), 0);
	}
	make_pebs_pmu(&pmu, 5, false);
	rd_gp(&pmu, MSR_PEBS_DATA_CFG);
	wr_gp(&pmu, MSR_PEBS_DATA_CFG, data & PEBS_DATACFG_VALID);
}
END_TEST

START_TEST(test_pebs_ld_lat_ds_area)
{
	struct vpmu pmu;

	make_pebs_pmu(&pmu, 3, false);
	wr(&pmu, MSR_PEBS_LD_LAT_THRESHOLD, 0xffff);
	ck_assert_uint_eq(rd(&pmu, MSR_PEBS_LD_LAT_THRESHOLD), 0xffff);
	wr_gp(&pmu, MSR_PEBS_LD_LAT_THRESHOLD, 0x10000);
	wr_gp(&pmu, MSR_PEBS_LD_LAT_THRESHOLD, 1ULL << 63);
	ck_assert_uint_eq(rd(&pmu, MSR_PEBS_LD_LAT_THRESHOLD), 0xffff);

	wr(&pmu, MSR_IA32_DS_AREA, 0x00007fffffffffffULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_DS_AREA), 0x00007fffffffffffULL);
	wr(&pmu, MSR_IA32_DS_AREA, 0xffff800000000000ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_DS_AREA), 0xffff800000000000ULL);
	wr_gp(&pmu, MSR_IA32_DS_AREA, 0x0000800000000000ULL);
	wr_gp(&pmu, MSR_IA32_DS_AREA, 0xffff7fffffffffffULL);
	wr_gp(&pmu, MSR_IA32_DS_AREA, 1ULL << 63);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_DS_AREA), 0xffff800000000000ULL);

	/* Never present, even with PEBS: PEBS_FRONTEND and PERF_METRICS. */
	rd_gp(&pmu, MSR_PEBS_FRONTEND);
	wr_gp(&pmu, MSR_PEBS_FRONTEND, 0);
	rd_gp(&pmu, MSR_PERF_METRICS);
	wr_gp(&pmu, MSR_PERF_METRICS, 0);
}
END_TEST

/* Counter writes never overflow and never clear a status bit (docs/intel-pmu.md 2.1). */
START_TEST(test_write_keeps_status)
{
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_PMC0, 0xffffffff);
	wr(&pmu, MSR_IA32_A_PMC0 + 1, MASK48);
	wr(&pmu, MSR_IA32_FIXED_CTR0, ~0ULL);
	wr(&pmu, MSR_IA32_PMC0 + 2, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0);

	ck_assert_int_eq(vpmu_set_global_status_host(&pmu, 0x3), VPMU_OK);
	wr(&pmu, MSR_IA32_PMC0, 0);
	wr(&pmu, MSR_IA32_A_PMC0 + 1, 5);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0x3);
	ck_assert(!pmu.pmi_pending);
}
END_TEST

START_TEST(test_status_host)
{
	struct vpmu pmu;

	make_pmu(&pmu, 1);
	ck_assert_int_eq(vpmu_set_global_status_host(&pmu, 0), VPMU_GP);
	make_pmu(&pmu, 3);
	ck_assert_int_eq(vpmu_set_global_status_host(&pmu, GLOBAL_STATUS_CTR_FRZ), VPMU_GP);
	ck_assert_int_eq(vpmu_set_global_status_host(&pmu, GLOBAL_STATUS_BUFFER_OVF | 1),
			 VPMU_OK);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_STATUS_BUFFER_OVF | 1);
	ck_assert_int_eq(vpmu_set_global_status_host(&pmu, 0), VPMU_OK);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
}
END_TEST

static bool in_pmu_ranges(uint32_t msr)
{
	return (msr >= 0xc1 && msr <= 0xc8) || (msr >= 0x186 && msr <= 0x18d) ||
	       (msr >= 0x309 && msr <= 0x30c) || msr == 0x329 || msr == 0x345 ||
	       (msr >= 0x38d && msr <= 0x392) || msr == 0x3f1 || msr == 0x3f2 ||
	       msr == 0x3f6 || msr == 0x3f7 || (msr >= 0x4c1 && msr <= 0x4c8) ||
	       msr == 0x600 || msr == 0x1d9 || msr == 0x1a0;
}

START_TEST(test_msr_is_pmu)
{
	static const uint32_t far[] = { 0xc0000080, 0x800004c1, 0xffffffff, 0x100000c1 };
	struct vpmu pmu;
	uint32_t msr;
	unsigned int j;

	make_pmu(&pmu, 5);
	for (msr = 0; msr < 0x2000; msr++) {
		ck_assert_msg(vpmu_msr_is_pmu(&pmu.cfg, msr) == in_pmu_ranges(msr), "msr %#x", msr);
		if (!in_pmu_ranges(msr)) {
			rd_gp(&pmu, msr);
			wr_gp(&pmu, msr, 0);
		}
	}
	for (j = 0; j < sizeof(far) / sizeof(far[0]); j++)
		ck_assert(!vpmu_msr_is_pmu(&pmu.cfg, far[j]));
}
END_TEST

static Suite *vpmu_msr_suite(void)
{
	Suite *s = suite_create("vpmu_msr");
	TCase *tc = tcase_create("existence");

	tcase_add_loop_test(tc, test_existence_per_version, 0, 6);
	tcase_add_loop_test(tc, test_reset_values, 0, 6);
	tcase_add_loop_test(tc, test_reset_global_ctrl_nr_gp, 0, 9);
	tcase_add_test(tc, test_reset_pebs);
	tcase_add_loop_test(tc, test_gp_count, 0, 5 * 8);
	tcase_add_loop_test(tc, test_fixed_count, 0, 4 * 5);
	tcase_add_loop_test(tc, test_fixed_bitmap, 0, 5 * 16);
	tcase_add_test(tc, test_v1_no_fixed);
	tcase_add_test(tc, test_v1_with_pdcm);
	tcase_add_test(tc, test_no_pdcm);
	tcase_add_test(tc, test_pdcm_no_fw);
	tcase_add_test(tc, test_msr_is_pmu);
	suite_add_tcase(s, tc);

	tc = tcase_create("counters");
	tcase_add_loop_test(tc, test_legacy_pmc_write, 0,
			    sizeof(legacy_writes) / sizeof(legacy_writes[0]));
	tcase_add_test(tc, test_a_pmc_write);
	tcase_add_test(tc, test_fixed_write_truncates);
	tcase_add_loop_test(tc, test_evtsel_bits, 0, 64);
	tcase_add_test(tc, test_evtsel_v1);
	tcase_add_test(tc, test_write_keeps_status);
	suite_add_tcase(s, tc);

	tc = tcase_create("global");
	tcase_add_loop_test(tc, test_fixed_ctr_ctrl_bits, 0, 64);
	tcase_add_loop_test(tc, test_global_ctrl_bits, 0, 64);
	tcase_add_loop_test(tc, test_global_status_ro, 0, 4);
	tcase_add_loop_test(tc, test_ovf_ctrl_bits, 0, 64);
	tcase_add_test(tc, test_ovf_ctrl_counter_bits);
	tcase_add_loop_test(tc, test_status_set_bits, 0, 64);
	tcase_add_test(tc, test_inuse);
	tcase_add_test(tc, test_status_host);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_test(tc, test_perf_capabilities_ro);
	tcase_add_loop_test(tc, test_debugctl_bits, 0, 64);
	tcase_add_test(tc, test_misc_enable);
	tcase_add_loop_test(tc, test_pebs_enable_bits, 0, 64);
	tcase_add_loop_test(tc, test_pebs_data_cfg_bits, 0, 64);
	tcase_add_test(tc, test_pebs_ld_lat_ds_area);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_msr_suite)
