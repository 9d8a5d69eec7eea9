/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmu_msr: every PMU MSR rule seen from inside the guest through the #GP
 * handler, for the configuration pmuvm was started with (read from CPUID
 * 0xA and PERF_CAPABILITIES).  Rules: Intel SDM vol. 3B, Performance Monitoring;
 * where the hardware is unconfirmed, the choices table of vmm/model/README.md.
 *
 * Order matters: RESET values are checked first, before anything is
 * written.  Nothing here enables a counter on an architectural event, so
 * no counter moves while the rules are probed.
 *
 * Prints "pmu_msr: version=... gp=NxW fixed=NxW fw=B" so the system test
 * can check the guest saw the configuration it asked for.
 */
#include "pmu_common.h"

static struct pmu_cfg cfg;

#define RD_EQ(msr, want)	rd_eq(__LINE__, msr, want)
#define WR_OK(msr, val)		wr_ok(__LINE__, msr, val)
#define WR_GP(msr, val)		wr_gp(__LINE__, msr, val)
#define RD_GP(msr)		rd_gp(__LINE__, msr)
#define WR_RD(msr, val, want)	do { WR_OK(msr, val); RD_EQ(msr, want); } while (0)

static void rd_eq(int line, uint32_t msr, uint64_t want)
{
	uint64_t val;
	int vec = rdmsr_safe(msr, &val);

	if (vec)
		GUEST_FAIL("line %d: rdmsr 0x%x raised vector %d", line, msr, vec);
	if (val != want)
		GUEST_FAIL("line %d: rdmsr 0x%x = 0x%llx, want 0x%llx", line, msr,
			   (unsigned long long)val, (unsigned long long)want);
}

static void wr_ok(int line, uint32_t msr, uint64_t val)
{
	int vec = wrmsr_safe(msr, val);

	if (vec)
		GUEST_FAIL("line %d: wrmsr 0x%x <- 0x%llx raised vector %d", line, msr,
			   (unsigned long long)val, vec);
}

static void wr_gp(int line, uint32_t msr, uint64_t val)
{
	int vec = wrmsr_safe(msr, val);

	if (vec != VEC_GP)
		GUEST_FAIL("line %d: wrmsr 0x%x <- 0x%llx: vector %d, want #GP", line, msr,
			   (unsigned long long)val, vec);
}

static void rd_gp(int line, uint32_t msr)
{
	uint64_t val;
	int vec = rdmsr_safe(msr, &val);

	if (vec != VEC_GP)
		GUEST_FAIL("line %d: rdmsr 0x%x: vector %d (value 0x%llx), want #GP", line, msr,
			   vec, (unsigned long long)val);
}

/*
 * Each single-bit write is either accepted (and reads back masked by `kept`)
 * or #GPs leaving `restore`, the value written between probes.
 */
static void probe_bits(uint32_t msr, uint64_t valid, uint64_t kept, uint64_t restore)
{
	for (unsigned int b = 0; b < 64; b++) {
		uint64_t bit = BIT_ULL(b);

		if (valid & bit) {
			WR_RD(msr, bit, bit & kept);
		} else {
			WR_GP(msr, bit);
			RD_EQ(msr, restore);
		}
		WR_OK(msr, restore);
	}
}

static bool v2(void)
{
	return cfg.version >= 2;
}

static bool v4(void)
{
	return cfg.version >= 4;
}

static uint64_t counter_bits(void)
{
	return width_mask(cfg.nr_gp) | (uint64_t)cfg.fixed_counters << PMC_IDX_FIXED;
}

static uint64_t misc_enable_reset(void)
{
	/* FAST_STRING | EMON (a PMU exists) | BTS and PEBS unavailable (docs/intel-pmu.md 1.1). */
	return MISC_ENABLE_FAST_STRING | MISC_ENABLE_EMON | MISC_ENABLE_BTS_UNAVAIL |
	       MISC_ENABLE_PEBS_UNAVAIL;
}

/* docs/intel-pmu.md 2, the reset column; PERF_CAPABILITIES only has FW_WRITE here (no PEBS). */
static void check_reset(void)
{
	for (unsigned int x = 0; x < cfg.nr_gp; x++) {
		RD_EQ(MSR_IA32_PMC0 + x, 0);
		RD_EQ(MSR_IA32_PERFEVTSEL0 + x, 0);
		if (cfg.fw_write)
			RD_EQ(MSR_IA32_A_PMC0 + x, 0);
	}
	for (unsigned int i = 0; i < cfg.nr_fixed; i++)
		if (pmu_fixed_exists(&cfg, i))
			RD_EQ(MSR_IA32_FIXED_CTR0 + i, 0);
	if (cfg.pdcm)
		RD_EQ(MSR_IA32_PERF_CAPABILITIES, cfg.fw_write ? PERF_CAP_FW_WRITE : 0);
	if (v2()) {
		RD_EQ(MSR_IA32_FIXED_CTR_CTRL, 0);
		RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, 0);
		/* GP enables set, fixed enables clear (docs/intel-pmu.md 2, KVM de120e1d). */
		RD_EQ(MSR_IA32_PERF_GLOBAL_CTRL, width_mask(cfg.nr_gp));
		RD_EQ(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0);
	}
	if (v4()) {
		RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS_SET, 0);
		RD_EQ(MSR_IA32_PERF_GLOBAL_INUSE, 0);
	}
	RD_EQ(MSR_IA32_DEBUGCTL, 0);
	RD_EQ(MSR_IA32_MISC_ENABLE, misc_enable_reset());
	test_ok("reset values");
}

static void check_absent(uint32_t msr, bool present)
{
	if (present)
		return;
	RD_GP(msr);
	WR_GP(msr, 0);
}

/* MSRs beyond the configured counters, version or features #GP (docs/intel-pmu.md 1.2). */
static void check_existence(void)
{
	for (unsigned int x = 0; x < 8; x++) {
		check_absent(MSR_IA32_PMC0 + x, x < cfg.nr_gp);
		check_absent(MSR_IA32_PERFEVTSEL0 + x, x < cfg.nr_gp);
		/* IA32_A_PMCx only with PERF_CAPABILITIES.FW_WRITE (docs/intel-pmu.md 2.1). */
		check_absent(MSR_IA32_A_PMC0 + x, x < cfg.nr_gp && cfg.fw_write);
	}
	for (unsigned int i = 0; i < 4; i++)
		check_absent(MSR_IA32_FIXED_CTR0 + i, pmu_fixed_exists(&cfg, i));
	check_absent(MSR_IA32_PERF_CAPABILITIES, cfg.pdcm);
	check_absent(MSR_IA32_FIXED_CTR_CTRL, v2());
	check_absent(MSR_IA32_PERF_GLOBAL_STATUS, v2());
	check_absent(MSR_IA32_PERF_GLOBAL_CTRL, v2());
	check_absent(MSR_IA32_PERF_GLOBAL_OVF_CTRL, v2());
	check_absent(MSR_IA32_PERF_GLOBAL_STATUS_SET, v4());
	check_absent(MSR_IA32_PERF_GLOBAL_INUSE, v4());
	/* No PERF_METRICS, PEBS or DS advertised; PEBS_FRONTEND never exists. */
	check_absent(MSR_PERF_METRICS, false);
	check_absent(MSR_IA32_PEBS_ENABLE, false);
	check_absent(MSR_PEBS_DATA_CFG, false);
	check_absent(MSR_PEBS_LD_LAT_THRESHOLD, false);
	check_absent(MSR_PEBS_FRONTEND, false);
	check_absent(MSR_IA32_DS_AREA, false);
	test_ok("absent MSRs #GP");
}

/* docs/intel-pmu.md 2.1: legacy writes sign-extend bit 31, A_PMCx #GPs above the width. */
static void check_gp_counters(void)
{
	uint64_t mask = width_mask(cfg.gp_width);

	for (unsigned int x = 0; x < cfg.nr_gp; x++) {
		uint32_t pmc = MSR_IA32_PMC0 + x, a_pmc = MSR_IA32_A_PMC0 + x;

		WR_RD(pmc, 0x80000000u, 0xffffffff80000000ull & mask);
		if (cfg.fw_write)
			RD_EQ(a_pmc, 0xffffffff80000000ull & mask);
		/* EDX is ignored: only EAX is written. */
		WR_RD(pmc, 0xdeadbeef7ffffffeull, 0x7ffffffe);
		WR_RD(pmc, 0xffffffffull, mask);
		WR_RD(pmc, 0x12345678ull, 0x12345678);
		if (cfg.fw_write) {
			WR_RD(a_pmc, mask, mask);
			RD_EQ(pmc, mask);
			WR_RD(a_pmc, 0x5a5a5a5a5a5a5a5aull & mask, 0x5a5a5a5a5a5a5a5aull & mask);
			RD_EQ(pmc, 0x5a5a5a5a5a5a5a5aull & mask);
			WR_GP(a_pmc, BIT_ULL(cfg.gp_width));
			WR_GP(a_pmc, ~0ull);
			WR_GP(a_pmc, mask + 1 + 5);
			RD_EQ(a_pmc, 0x5a5a5a5a5a5a5a5aull & mask);
			WR_RD(a_pmc, 0x80000000u, 0x80000000u);
		}
		/* A write to all ones is no overflow (docs/intel-pmu.md 2.1, 3.3). */
		if (v2())
			RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, 0);
		WR_RD(pmc, 0, 0);
	}
	test_ok("IA32_PMCx / IA32_A_PMCx");
}

/* Choices table: fixed-counter writes are truncated to the width, no #GP. */
static void check_fixed_counters(void)
{
	uint64_t mask = width_mask(cfg.fixed_width);

	for (unsigned int i = 0; i < cfg.nr_fixed; i++) {
		uint32_t msr = MSR_IA32_FIXED_CTR0 + i;

		if (!pmu_fixed_exists(&cfg, i))
			continue;
		WR_RD(msr, ~0ull, mask);
		WR_RD(msr, 0x80000000u, 0x80000000u);
		WR_RD(msr, 0xfedcba9876543210ull, 0xfedcba9876543210ull & mask);
		WR_RD(msr, 0, 0);
	}
	if (v2())
		RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, 0);
	test_ok("IA32_FIXED_CTRi");
}

/*
 * docs/intel-pmu.md 2.2 with KVM's mask: bits 31:0 except AnyThread (21) are valid;
 * 63:32 are reserved (no TSX, no adaptive PEBS).  A faulting write leaves
 * the old value.
 */
static void check_evtsel(void)
{
	uint64_t valid = GENMASK_ULL(31, 0) & ~EVTSEL_ANY;

	for (unsigned int x = 0; x < cfg.nr_gp; x++) {
		uint32_t msr = MSR_IA32_PERFEVTSEL0 + x;
		uint64_t some = PMU_EVENT_CORE_CYCLES | EVTSEL_OS | EVTSEL_CMASK;

		probe_bits(msr, valid, ~0ull, 0);
		/* Every valid bit: EN with event 0xFF/0xFF, not architectural, counts nothing. */
		WR_RD(msr, valid, valid);
		WR_RD(msr, some, some);
		WR_GP(msr, some | EVTSEL_ANY);
		WR_GP(msr, some | BIT_ULL(32));
		RD_EQ(msr, some);
		WR_RD(msr, 0, 0);
	}
	test_ok("IA32_PERFEVTSELx");
}

static void check_fixed_ctr_ctrl(void)
{
	uint64_t valid = 0;

	if (!v2())
		return;
	/* EN_OS, EN_USR, PMI per counter; ANY (4i+2) reserved (docs/intel-pmu.md 2.3, 6). */
	for (unsigned int i = 0; i < cfg.nr_fixed; i++)
		if (pmu_fixed_exists(&cfg, i))
			valid |= FIXED_CTRL_OS(i) | FIXED_CTRL_USR(i) | FIXED_CTRL_PMI(i);
	probe_bits(MSR_IA32_FIXED_CTR_CTRL, valid, ~0ull, 0);
	test_ok("IA32_FIXED_CTR_CTRL");
}

static void check_global_ctrl(void)
{
	uint64_t reset = width_mask(cfg.nr_gp);

	if (!v2())
		return;
	/* Counter enables only (docs/intel-pmu.md 2.4); nothing is programmed, so nothing counts. */
	probe_bits(MSR_IA32_PERF_GLOBAL_CTRL, counter_bits(), ~0ull, reset);
	WR_RD(MSR_IA32_PERF_GLOBAL_CTRL, counter_bits(), counter_bits());
	WR_RD(MSR_IA32_PERF_GLOBAL_CTRL, reset, reset);
	test_ok("IA32_PERF_GLOBAL_CTRL");
}

/* GLOBAL_STATUS is read-only; 0x390 is write-1-to-clear and reads 0 (docs/intel-pmu.md 2.5, 2.6). */
static void check_global_status(void)
{
	uint64_t ovf_valid = counter_bits() | GLOBAL_STATUS_TRACE_TOPA_PMI |
			     GLOBAL_STATUS_OVF_UNCORE | GLOBAL_STATUS_BUFFER_OVF |
			     GLOBAL_STATUS_COND_CHGD;
	uint64_t set_valid;

	if (!v2())
		return;
	WR_GP(MSR_IA32_PERF_GLOBAL_STATUS, 0);
	WR_GP(MSR_IA32_PERF_GLOBAL_STATUS, 1);
	WR_GP(MSR_IA32_PERF_GLOBAL_STATUS, GLOBAL_CTRL_FIXED(0));
	if (v4())
		ovf_valid |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_ASCI;
	probe_bits(MSR_IA32_PERF_GLOBAL_OVF_CTRL, ovf_valid, 0, 0);
	RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, 0);
	test_ok(v4() ? "IA32_PERF_GLOBAL_STATUS / STATUS_RESET" :
		       "IA32_PERF_GLOBAL_STATUS / OVF_CTRL");
	if (!v4())
		return;

	/* STATUS_SET (docs/intel-pmu.md 2.7): counter bits, 55, 58-62; 63 reserved. */
	set_valid = counter_bits() | GLOBAL_STATUS_TRACE_TOPA_PMI | GENMASK_ULL(62, 58);
	for (unsigned int b = 0; b < 64; b++) {
		uint64_t bit = BIT_ULL(b);

		if (!(set_valid & bit)) {
			WR_GP(MSR_IA32_PERF_GLOBAL_STATUS_SET, bit);
			RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, 0);
			continue;
		}
		WR_OK(MSR_IA32_PERF_GLOBAL_STATUS_SET, bit);
		RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, bit);
		RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS_SET, 0);
		WR_OK(MSR_IA32_PERF_GLOBAL_STATUS_RESET, bit);
		RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, 0);
	}
	/* All at once, then clear one bit at a time: each clear is exact. */
	WR_OK(MSR_IA32_PERF_GLOBAL_STATUS_SET, set_valid);
	RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, set_valid);
	for (unsigned int b = 0; b < 64; b++) {
		uint64_t bit = BIT_ULL(b), before;

		if (!(set_valid & bit))
			continue;
		rdmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, &before);
		WR_OK(MSR_IA32_PERF_GLOBAL_STATUS_RESET, bit);
		RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, before & ~bit);
	}
	RD_EQ(MSR_IA32_PERF_GLOBAL_STATUS, 0);
	test_ok("IA32_PERF_GLOBAL_STATUS_SET");
}

/* INUSE (docs/intel-pmu.md 2.8): EVTSEL[7:0] != 0, FIXED_CTR_CTRL EN bits, 63 = any INT/PMI. */
static void check_inuse(void)
{
	const uint32_t inuse = MSR_IA32_PERF_GLOBAL_INUSE;

	if (!v4())
		return;
	for (unsigned int x = 0; x < cfg.nr_gp; x++) {
		uint32_t sel = MSR_IA32_PERFEVTSEL0 + x;

		WR_OK(sel, PMU_RAW_EVENT(0, 0x01) | EVTSEL_USR);
		RD_EQ(inuse, 0);
		WR_OK(sel, PMU_EVENT_CORE_CYCLES);
		RD_EQ(inuse, BIT_ULL(x));
		WR_OK(sel, PMU_EVENT_CORE_CYCLES | EVTSEL_INT);
		RD_EQ(inuse, BIT_ULL(x) | GLOBAL_INUSE_PMI);
		WR_OK(sel, EVTSEL_INT);
		RD_EQ(inuse, GLOBAL_INUSE_PMI);
		WR_OK(sel, 0);
	}
	for (unsigned int i = 0; i < cfg.nr_fixed; i++) {
		uint32_t ctrl = MSR_IA32_FIXED_CTR_CTRL;

		if (!pmu_fixed_exists(&cfg, i))
			continue;
		WR_OK(ctrl, FIXED_CTRL_OS(i));
		RD_EQ(inuse, GLOBAL_CTRL_FIXED(i));
		WR_OK(ctrl, FIXED_CTRL_USR(i));
		RD_EQ(inuse, GLOBAL_CTRL_FIXED(i));
		WR_OK(ctrl, FIXED_CTRL_PMI(i));
		RD_EQ(inuse, GLOBAL_INUSE_PMI);
		WR_OK(ctrl, 0);
	}
	if (cfg.nr_gp >= 2 && pmu_fixed_exists(&cfg, 1)) {
		WR_OK(MSR_IA32_PERFEVTSEL0 + 1, PMU_EVENT_REF_CYCLES);
		WR_OK(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1) | FIXED_CTRL_USR(1));
		RD_EQ(inuse, BIT_ULL(1) | GLOBAL_CTRL_FIXED(1));
		WR_OK(MSR_IA32_PERFEVTSEL0 + 1, 0);
		WR_OK(MSR_IA32_FIXED_CTR_CTRL, 0);
	}
	RD_EQ(inuse, 0);
	WR_GP(inuse, 0);
	WR_GP(inuse, 1);
	test_ok("IA32_PERF_GLOBAL_INUSE");
}

static void check_perf_capabilities(void)
{
	uint64_t caps = cfg.fw_write ? PERF_CAP_FW_WRITE : 0;

	if (!cfg.pdcm)
		return;
	/* Read-only to the guest, even rewriting the same value (docs/intel-pmu.md 1.4). */
	RD_EQ(MSR_IA32_PERF_CAPABILITIES, caps);
	WR_GP(MSR_IA32_PERF_CAPABILITIES, caps);
	WR_GP(MSR_IA32_PERF_CAPABILITIES, caps ^ PERF_CAP_FW_WRITE);
	WR_GP(MSR_IA32_PERF_CAPABILITIES, 0);
	RD_EQ(MSR_IA32_PERF_CAPABILITIES, caps);
	test_ok("IA32_PERF_CAPABILITIES");
}

/*
 * Freeze bits need PDCM and version > 1 (docs/intel-pmu.md 2.9); LBR/BTF are accepted
 * and read back 0 (choices table); FREEZE_WHILE_SMM and the rest #GP.
 */
static void check_debugctl(void)
{
	uint64_t freeze = DEBUGCTL_FREEZE_LBRS_ON_PMI | DEBUGCTL_FREEZE_PERFMON_ON_PMI;
	uint64_t valid = DEBUGCTL_LBR | DEBUGCTL_BTF;

	if (cfg.pdcm && v2())
		valid |= freeze;
	probe_bits(MSR_IA32_DEBUGCTL, valid, freeze, 0);
	if (valid & freeze)
		WR_RD(MSR_IA32_DEBUGCTL, freeze | DEBUGCTL_LBR, freeze);
	WR_GP(MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_WHILE_SMM);
	WR_RD(MSR_IA32_DEBUGCTL, 0, 0);
	test_ok("IA32_DEBUGCTL");
}

/* Choices table: 11/12 read-only (#GP if changed), 7 kept, others stored. */
static void check_misc_enable(void)
{
	uint64_t reset = misc_enable_reset();

	WR_GP(MSR_IA32_MISC_ENABLE, reset & ~MISC_ENABLE_BTS_UNAVAIL);
	WR_GP(MSR_IA32_MISC_ENABLE, reset & ~MISC_ENABLE_PEBS_UNAVAIL);
	RD_EQ(MSR_IA32_MISC_ENABLE, reset);
	WR_RD(MSR_IA32_MISC_ENABLE, reset & ~MISC_ENABLE_EMON, reset);
	WR_RD(MSR_IA32_MISC_ENABLE, reset & ~MISC_ENABLE_FAST_STRING,
	      reset & ~MISC_ENABLE_FAST_STRING);
	WR_RD(MSR_IA32_MISC_ENABLE, reset, reset);
	test_ok("IA32_MISC_ENABLE");
}

int main(void)
{
	cfg = pmu_cfg_read();
	printf("pmu_msr: version=%u gp=%ux%u fixed=%ux%u pdcm=%d fw=%d\n", cfg.version,
	       cfg.nr_gp, cfg.gp_width, cfg.nr_fixed, cfg.nr_fixed ? cfg.fixed_width : 0,
	       cfg.pdcm, cfg.fw_write);
	GUEST_ASSERT(cfg.version >= 1);

	check_reset();
	check_existence();
	check_gp_counters();
	check_fixed_counters();
	check_evtsel();
	check_fixed_ctr_ctrl();
	check_global_ctrl();
	check_global_status();
	check_inuse();
	check_perf_capabilities();
	check_debugctl();
	check_misc_enable();
	return 0;
}
