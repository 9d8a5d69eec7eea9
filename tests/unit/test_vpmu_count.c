/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting, overflow, PMI requests and freeze-on-PMI (docs/intel-pmu.md 3), and the
 * helpers sources use to schedule overflows.
 */
#include "suite.h"
#include "model/vpmu.h"

#define MASK48		0xffffffffffffULL
#define EN_ALL		(EVTSEL_EN | EVTSEL_OS | EVTSEL_USR)
#define INSNS		(PMU_EVENT_INSTRUCTIONS | EN_ALL)
#define FIXED_ALL(i)	(FIXED_CTRL_OS(i) | FIXED_CTRL_USR(i))

static void make_pmu(struct vpmu *pmu, unsigned int version)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, version);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(pmu, &cfg);
}

static void wr(struct vpmu *pmu, uint32_t msr, uint64_t v)
{
	ck_assert_msg(vpmu_wrmsr(pmu, msr, v) == VPMU_OK, "wrmsr %#x <- %#llx #GP",
		      msr, (unsigned long long)v);
}

static uint64_t rd(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v = 0;

	ck_assert_msg(vpmu_rdmsr(pmu, msr, &v) == VPMU_OK, "rdmsr %#x #GP", msr);
	return v;
}

static uint64_t gp(struct vpmu *pmu, unsigned int x)
{
	return rd(pmu, MSR_IA32_PMC0 + x);
}

static uint64_t fixed(struct vpmu *pmu, unsigned int i)
{
	return rd(pmu, MSR_IA32_FIXED_CTR0 + i);
}

START_TEST(test_count_basic)
{
	struct vpmu pmu;

	make_pmu(&pmu, _i + 1);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 2, INSNS);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 10, 0);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 32, 3);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 0, 3);
	ck_assert_uint_eq(gp(&pmu, 2), 42);
	ck_assert_uint_eq(gp(&pmu, 0), 0);
	ck_assert_uint_eq(gp(&pmu, 1), 0);
	ck_assert(!vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0);
	ck_assert_uint_eq(pmu.nr_overflows, 0);
}
END_TEST

/* CPL filter (docs/intel-pmu.md 3.1): OS counts at CPL 0, USR at CPL 1-3. */
START_TEST(test_cpl_filter)
{
	unsigned int os = _i & 1, usr = _i >> 1 & 1, cpl;
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, PMU_EVENT_BRANCHES | EVTSEL_EN |
	   (os ? EVTSEL_OS : 0) | (usr ? EVTSEL_USR : 0));
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, (os ? FIXED_CTRL_OS(0) : 0) |
	   (usr ? FIXED_CTRL_USR(0) : 0));
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x1 | GLOBAL_CTRL_FIXED(0));
	for (cpl = 0; cpl < 4; cpl++) {
		uint64_t expect = cpl == 0 ? os : usr;

		wr(&pmu, MSR_IA32_PMC0, 0);
		wr(&pmu, MSR_IA32_FIXED_CTR0, 0);
		ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_BRANCHES, cpl),
				  expect ? MASK48 + 1 : UINT64_MAX);
		vpmu_count(&pmu, PMU_EV_BRANCHES, 7, cpl);
		vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, cpl);
		ck_assert_uint_eq(gp(&pmu, 0), 7 * expect);
		ck_assert_uint_eq(fixed(&pmu, 0), 5 * expect);
		ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_BRANCHES, cpl),
				  expect ? MASK48 + 1 - 7 : UINT64_MAX);
	}
	ck_assert(vpmu_counts_event(&pmu, PMU_EV_BRANCHES) == (os || usr));
	ck_assert(vpmu_counts_event(&pmu, PMU_EV_INSTRUCTIONS) == (os || usr));
}
END_TEST

/* Every event on a GP counter counts itself and nothing else. */
/*
 * The clock source samples the CPL only where it matters: when the counters
 * counting an event at CPL0 are not those counting it at CPL 1-3.
 */
START_TEST(test_event_level_matters)
{
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	ck_assert(!vpmu_event_level_matters(&pmu, PMU_EV_CORE_CYCLES));
	/* Fixed counter 1 (core cycles) at OS and USR: either level counts the same. */
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(1));
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));
	ck_assert(!vpmu_event_level_matters(&pmu, PMU_EV_CORE_CYCLES));
	/* USR only (perf's cycles:u). */
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(1));
	ck_assert(vpmu_event_level_matters(&pmu, PMU_EV_CORE_CYCLES));
	ck_assert(!vpmu_event_level_matters(&pmu, PMU_EV_INSTRUCTIONS));
	/* cycles:u and cycles:k on two counters: each level has one, not the same. */
	wr(&pmu, MSR_IA32_PERFEVTSEL0, PMU_EVENT_CORE_CYCLES | EVTSEL_EN | EVTSEL_OS);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1) | 1);
	ck_assert(vpmu_event_level_matters(&pmu, PMU_EV_CORE_CYCLES));
	/* Disabled, nothing counts at either level. */
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0);
	ck_assert(!vpmu_event_level_matters(&pmu, PMU_EV_CORE_CYCLES));
}
END_TEST

/*
 * Each event's encoding on the default PMU (version 5, Ice Lake-SP) and on
 * version 4 (Skylake-SP) counts that event and no other.
 */
START_TEST(test_gp_event_match)
{
	static const struct {
		unsigned int version;
		uint64_t code[PMU_EV_INTEL_NR];
	} parts[] = { {
		5, { 0x003c, 0x00c0, 0x013c, 0x4f2e, 0x412e, 0x00c4, 0x00c5, 0x01a4,
		     /* BR_INST_RETIRED.{COND,COND_TAKEN,COND_NTAKEN,NEAR_CALL,NEAR_RETURN,NEAR_TAKEN,FAR_BRANCH} */
		     0x11c4, 0x01c4, 0x10c4, 0x02c4, 0x08c4, 0x20c4, 0x40c4 },
	}, {
		4, { 0x003c, 0x00c0, 0x013c, 0x4f2e, 0x412e, 0x00c4, 0x00c5, 0x01a4,
		     /* BR_INST_RETIRED.{CONDITIONAL,-,NOT_TAKEN,NEAR_CALL,NEAR_RETURN,NEAR_TAKEN,FAR_BRANCH} */
		     0x01c4, 0, 0x10c4, 0x02c4, 0x08c4, 0x20c4, 0x40c4 },
	} };
	enum pmu_arch_event ev = _i % PMU_EV_INTEL_NR, other;
	uint64_t code = parts[_i / PMU_EV_INTEL_NR].code[ev];
	struct vpmu pmu;

	make_pmu(&pmu, parts[_i / PMU_EV_INTEL_NR].version);
	if (!code)	/* no encoding on this part */
		return;
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 5, code | EN_ALL);
	ck_assert_int_eq(vpmu_gp_event(&pmu, 5), ev);
	for (other = 0; other < PMU_EV_NR; other++)
		vpmu_count(&pmu, other, 1 + other, 0);
	ck_assert_uint_eq(gp(&pmu, 5), 1 + ev);
	ck_assert(vpmu_counts_event(&pmu, ev));
	ck_assert(!vpmu_counts_event(&pmu, (ev + 1) % PMU_EV_INTEL_NR));
	ck_assert_uint_eq(vpmu_counted_events(&pmu), 1u << ev);
}
END_TEST

/* Encodings that are not architectural events count nothing. */
START_TEST(test_gp_event_nomatch)
{
	static const uint64_t bad[] = { 0x01c0, 0x003d, 0x023c, 0x0300, 0x0000, 0x00ff };
	unsigned int j;
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
		enum pmu_arch_event ev;

		wr(&pmu, MSR_IA32_PERFEVTSEL0, bad[j] | EN_ALL);
		ck_assert_int_eq(vpmu_gp_event(&pmu, 0), PMU_EV_NONE);
		for (ev = 0; ev < PMU_EV_NR; ev++) {
			vpmu_count(&pmu, ev, 100, 0);
			ck_assert(!vpmu_counts_event(&pmu, ev));
		}
		ck_assert_uint_eq(gp(&pmu, 0), 0);
	}
	ck_assert_int_eq(vpmu_gp_event(&pmu, 8), PMU_EV_NONE);
	/* Bits outside event/umask do not change the event. */
	wr(&pmu, MSR_IA32_PERFEVTSEL0, PMU_EVENT_LLC_MISSES | EVTSEL_INT | EVTSEL_PC);
	ck_assert_int_eq(vpmu_gp_event(&pmu, 0), PMU_EV_LLC_MISSES);
}
END_TEST

/* Fixed counter i counts only its fixed event (docs/intel-pmu.md 3.7). */
START_TEST(test_fixed_events)
{
	static const enum pmu_arch_event fixed_ev[4] = {
		PMU_EV_INSTRUCTIONS, PMU_EV_CORE_CYCLES, PMU_EV_REF_CYCLES,
		PMU_EV_TOPDOWN_SLOTS,
	};
	struct vpmu_config cfg;
	unsigned int i;
	enum pmu_arch_event ev;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 5);
	cfg.nr_fixed = 4;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&pmu, &cfg);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0x3333);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0xfULL << 32);
	for (ev = 0; ev < PMU_EV_NR; ev++)
		vpmu_count(&pmu, ev, 10 + ev, 1);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(vpmu_fixed_event(i), fixed_ev[i]);
		ck_assert_uint_eq(fixed(&pmu, i), 10 + fixed_ev[i]);
	}
	ck_assert_int_eq(vpmu_fixed_event(4), PMU_EV_NONE);
	ck_assert_uint_eq(gp(&pmu, 0), 0);
}
END_TEST

/* A fixed counter needs both its control field and GLOBAL_CTRL[32+i]. */
START_TEST(test_fixed_enable)
{
	struct vpmu pmu;

	make_pmu(&pmu, 2);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(1));
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 5, 0);
	ck_assert_uint_eq(fixed(&pmu, 1), 0);	/* RESET leaves fixed enables clear */
	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_CORE_CYCLES));
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 5, 0);
	ck_assert_uint_eq(fixed(&pmu, 1), 5);
	ck_assert(vpmu_counts_event(&pmu, PMU_EV_CORE_CYCLES));
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_PMI(1));
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 5, 0);
	ck_assert_uint_eq(fixed(&pmu, 1), 5);
}
END_TEST

/* GP enable (docs/intel-pmu.md 3.1): EN, plus GLOBAL_CTRL[x] from v2. */
START_TEST(test_gp_enable)
{
	unsigned int version = _i + 1;
	struct vpmu pmu;

	make_pmu(&pmu, version);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, INSNS & ~EVTSEL_EN);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 3, 0);
	ck_assert_uint_eq(gp(&pmu, 1), 0);
	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_INSTRUCTIONS));
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, INSNS);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 3, 0);
	ck_assert_uint_eq(gp(&pmu, 1), 3);
	if (version == 1) {
		/* No GLOBAL_CTRL: EN alone enables. */
		ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0), VPMU_GP);
		return;
	}
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0xfd);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 3, 0);
	ck_assert_uint_eq(gp(&pmu, 1), 3);
	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_INSTRUCTIONS));
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), UINT64_MAX);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x2);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 3, 0);
	ck_assert_uint_eq(gp(&pmu, 1), 6);
}
END_TEST

/* A model of cfg with instructions on GP 0 and fixed 0, branches on GP 1. */
static void init_insns_branches(struct vpmu *pmu, const struct vpmu_config *cfg)
{
	vpmu_init(pmu, cfg);
	wr(pmu, MSR_IA32_PERFEVTSEL0, INSNS);
	wr(pmu, MSR_IA32_PERFEVTSEL0 + 1, PMU_EVENT_BRANCHES | EN_ALL);
	wr(pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(0));
	wr(pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x3 | GLOBAL_CTRL_FIXED(0));
}

/* An event missing from available_events counts nowhere. */
START_TEST(test_unavailable_event)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 5);
	cfg.available_events = 1u << PMU_EV_BRANCHES;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	init_insns_branches(&pmu, &cfg);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 9, 0);
	vpmu_count(&pmu, PMU_EV_BRANCHES, 4, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 0);
	ck_assert_uint_eq(fixed(&pmu, 0), 0);
	ck_assert_uint_eq(gp(&pmu, 1), 4);
	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_INSTRUCTIONS));
	ck_assert(vpmu_counts_event(&pmu, PMU_EV_BRANCHES));
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), UINT64_MAX);
	/* Out-of-range event numbers are simply ignored. */
	vpmu_count(&pmu, PMU_EV_NONE, 4, 0);
	vpmu_count(&pmu, PMU_EV_NR, 4, 0);
	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_NONE));
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_NR, 0), UINT64_MAX);
	ck_assert_uint_eq(gp(&pmu, 1), 4);
	/* Enabled but unavailable, for the glue to say (GP 0 and fixed 0 alike). */
	ck_assert_uint_eq(pmu.unavailable_enabled, 1u << PMU_EV_INSTRUCTIONS);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x2 | GLOBAL_CTRL_FIXED(0));
	ck_assert_uint_eq(pmu.unavailable_enabled, 1u << PMU_EV_INSTRUCTIONS);
	/* An event select that is no known event is not one to name. */
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 2, 0xff | EN_ALL);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x6);
	ck_assert_uint_eq(pmu.unavailable_enabled, 0);
}
END_TEST

/*
 * An event the CPUID hides (EBX bit set, or beyond the vector length) still
 * counts when a source produces it, on GP and fixed counters: the
 * enumeration promises nothing about its encoding and takes nothing away
 * (docs/counting.md, "Architectural events the CPUID leaves out"; KVM's
 * pmu_counters_test expects the same).  Loop: 0 hides every event in EBX,
 * 1 enumerates a vector of length 0.
 */
START_TEST(test_hidden_event_counts)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	vpmu_config_default(&cfg, 5);
	if (_i == 0)
		cfg.events_unavailable = 0xffffffff;
	else
		cfg.event_vector_len = 0;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	init_insns_branches(&pmu, &cfg);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 45, 0);
	vpmu_count(&pmu, PMU_EV_BRANCHES, 10, 3);
	ck_assert_uint_eq(gp(&pmu, 0), 45);
	ck_assert_uint_eq(fixed(&pmu, 0), 45);
	ck_assert_uint_eq(gp(&pmu, 1), 10);
	ck_assert_uint_eq(pmu.unavailable_enabled, 0);
}
END_TEST

/*
 * CMASK/INV/E with each occurrence one cycle of c = 1: the counts after
 * two batches of 5, and again after re-writing the EVTSEL (edge re-armed).
 */
static const struct {
	unsigned int cmask;
	bool inv, edge;
	uint64_t count;
} cmask_cases[] = {
	{ 0, false, false, 10 },
	{ 0, true, false, 10 },		/* INV ignored with CMASK 0 */
	{ 1, false, false, 10 },	/* c >= 1 */
	{ 2, false, false, 0 },		/* c >= 2 never */
	{ 255, false, false, 0 },
	{ 1, true, false, 0 },		/* c < 1 never */
	{ 2, true, false, 10 },		/* c < 2 always */
	{ 0, false, true, 1 },		/* one rising edge */
	{ 0, true, true, 1 },
	{ 1, false, true, 1 },
	{ 2, false, true, 0 },
	{ 1, true, true, 0 },
	{ 2, true, true, 1 },
};

START_TEST(test_cmask_inv_edge)
{
	uint64_t ctl = INSNS | (uint64_t)cmask_cases[_i].cmask << EVTSEL_CMASK_SHIFT |
		       (cmask_cases[_i].inv ? EVTSEL_INV : 0) |
		       (cmask_cases[_i].edge ? EVTSEL_EDGE : 0);
	uint64_t c = cmask_cases[_i].count;
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, ctl);
	ck_assert(vpmu_counts_event(&pmu, PMU_EV_INSTRUCTIONS) == (c != 0));
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 3);
	ck_assert_uint_eq(gp(&pmu, 0), c);
	/* A consumed edge no longer counts: nothing more to schedule. */
	ck_assert(vpmu_counts_event(&pmu, PMU_EV_INSTRUCTIONS) == (c == 10));
	wr(&pmu, MSR_IA32_PERFEVTSEL0, ctl);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	ck_assert_uint_eq(gp(&pmu, 0), c + c / 2 + (c == 1));
}
END_TEST

/* Edge counters: overflow only when the single increment wraps. */
START_TEST(test_edge_overflow)
{
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS | EVTSEL_EDGE | EVTSEL_INT);
	wr(&pmu, MSR_IA32_A_PMC0, MASK48 - 1);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), UINT64_MAX);
	wr(&pmu, MSR_IA32_A_PMC0, MASK48);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), 1);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1000, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 0);
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 1);
	ck_assert(vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), UINT64_MAX);
}
END_TEST

/* Overflow without INT: status + overflows set, no PMI (docs/intel-pmu.md 3.3). */
START_TEST(test_overflow_no_int)
{
	struct vpmu pmu;

	make_pmu(&pmu, 2);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 3, INSNS);
	wr(&pmu, MSR_IA32_A_PMC0 + 3, MASK48 - 2);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), 3);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 2, 0);
	ck_assert_uint_eq(gp(&pmu, 3), MASK48);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1, 0);
	ck_assert_uint_eq(gp(&pmu, 3), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0x8);
	ck_assert_uint_eq(pmu.nr_overflows, 1);
	ck_assert(!pmu.pmi_pending);
	ck_assert_uint_eq(pmu.nr_pmis_requested, 0);
	/* Keeps counting from the wrap; the status bit stays until 0x390. */
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 4, 0);
	ck_assert_uint_eq(gp(&pmu, 3), 4);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0x8);
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0x8);
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0x8);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
}
END_TEST

START_TEST(test_overflow_int)
{
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS | EVTSEL_INT);
	/* The classic "-N" preset through the legacy alias. */
	wr(&pmu, MSR_IA32_PMC0, (uint32_t)-10);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), 10);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 9, 0);
	ck_assert(!pmu.pmi_pending);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1, 0);
	ck_assert(pmu.pmi_pending);
	ck_assert_uint_eq(pmu.nr_pmis_requested, 1);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0x1);
	ck_assert(vpmu_take_pmi(&pmu));
	ck_assert(!vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0x1);
	/* Without freeze, GLOBAL_CTRL and counting are unaffected. */
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), 0xff);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 7, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 7);
}
END_TEST

/* Fixed counter overflow: status bit 32+i, PMI from FIXED_CTR_CTRL.PMI. */
START_TEST(test_fixed_overflow)
{
	struct vpmu pmu;

	make_pmu(&pmu, 4);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(2));
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(2));
	wr(&pmu, MSR_IA32_FIXED_CTR0 + 2, MASK48);
	vpmu_count(&pmu, PMU_EV_REF_CYCLES, 1, 0);
	ck_assert_uint_eq(fixed(&pmu, 2), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 1ULL << 34);
	ck_assert(!pmu.pmi_pending);

	wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1ULL << 34);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(2) | FIXED_CTRL_PMI(2));
	wr(&pmu, MSR_IA32_FIXED_CTR0 + 2, MASK48 - 4);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_REF_CYCLES, 3), 5);
	vpmu_count(&pmu, PMU_EV_REF_CYCLES, 6, 3);
	ck_assert_uint_eq(fixed(&pmu, 2), 1);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 1ULL << 34);
	ck_assert(vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 1ULL << 34);
}
END_TEST

/* Simultaneous overflows in one call: every bit, one PMI (SDM 18-39). */
START_TEST(test_simultaneous_overflow)
{
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS | EVTSEL_INT);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 4, INSNS | EVTSEL_INT);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 6, INSNS);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(0) | FIXED_CTRL_PMI(0));
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0xff | GLOBAL_CTRL_FIXED(0));
	wr(&pmu, MSR_IA32_A_PMC0, MASK48 - 1);
	wr(&pmu, MSR_IA32_A_PMC0 + 4, MASK48 - 3);
	wr(&pmu, MSR_IA32_A_PMC0 + 6, MASK48);
	wr(&pmu, MSR_IA32_FIXED_CTR0, MASK48 - 2);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), 1);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 4, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0x51 | 1ULL << 32);
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0x51 | 1ULL << 32);
	ck_assert_uint_eq(pmu.nr_pmis_requested, 1);
	ck_assert_uint_eq(pmu.nr_overflows, 4);
	ck_assert_uint_eq(gp(&pmu, 0), 2);
	ck_assert_uint_eq(gp(&pmu, 4), 0);
	ck_assert_uint_eq(gp(&pmu, 6), 3);
	ck_assert_uint_eq(fixed(&pmu, 0), 1);
	ck_assert(vpmu_take_pmi(&pmu));
}
END_TEST

/* n much larger than the width: several wraps, exact remainder. */
START_TEST(test_large_n)
{
	struct vpmu_config cfg;
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS | EVTSEL_INT);
	wr(&pmu, MSR_IA32_A_PMC0, 10);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 3 * (MASK48 + 1) + 5, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 15);
	ck_assert_uint_eq(pmu.nr_overflows, 3);
	ck_assert_uint_eq(pmu.nr_pmis_requested, 1);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 1);

	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, UINT64_MAX, 0);
	/* 15 + 2^64 - 1 = 14 (mod 2^48), wrapping 2^16 times. */
	ck_assert_uint_eq(gp(&pmu, 0), 14);
	ck_assert_uint_eq(pmu.nr_overflows, 3 + 65536);

	/* 32-bit counters behave the same way. */
	vpmu_config_default(&cfg, 5);
	cfg.gp_width = 32;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&pmu, &cfg);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS);
	wr(&pmu, MSR_IA32_PMC0, 0xfffffff0);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), 0x10);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 0x100000010ULL, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 0);
	ck_assert_uint_eq(pmu.nr_overflows, 2);

	/* 63-bit counters: the distance from 0 is exactly 2^63. */
	cfg.gp_width = 63;
	vpmu_init(&pmu, &cfg);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS);
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), 1ULL << 63);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, UINT64_MAX, 0);
	ck_assert_uint_eq(gp(&pmu, 0), (1ULL << 63) - 1);
	ck_assert_uint_eq(pmu.nr_overflows, 1);
}
END_TEST

/* events_to_overflow is the minimum, and counting that many overflows. */
START_TEST(test_events_to_overflow_consistent)
{
	static const uint64_t presets[] = { 0, 1, MASK48, MASK48 - 1, 0x800000000000ULL,
					    12345 };
	struct vpmu pmu;
	unsigned int j;

	for (j = 0; j < sizeof(presets) / sizeof(presets[0]); j++) {
		uint64_t d;

		make_pmu(&pmu, 5);
		wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, PMU_EVENT_BRANCHES | EN_ALL);
		wr(&pmu, MSR_IA32_PERFEVTSEL0 + 2, PMU_EVENT_BRANCHES | EN_ALL);
		wr(&pmu, MSR_IA32_A_PMC0 + 1, presets[j]);
		wr(&pmu, MSR_IA32_A_PMC0 + 2, 7);
		d = vpmu_events_to_overflow(&pmu, PMU_EV_BRANCHES, 2);
		ck_assert_uint_eq(d, presets[j] == 0 ? MASK48 - 6 :
				     (MASK48 + 1 - presets[j] < MASK48 - 6 ?
				      MASK48 + 1 - presets[j] : MASK48 - 6));
		vpmu_count(&pmu, PMU_EV_BRANCHES, d - 1, 2);
		ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0);
		vpmu_count(&pmu, PMU_EV_BRANCHES, 1, 2);
		ck_assert_uint_ne(vpmu_take_overflows(&pmu), 0);
	}
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_INSTRUCTIONS, 0), UINT64_MAX);
}
END_TEST

/* v2/v3 legacy freeze: the PMI request clears GLOBAL_CTRL. */
START_TEST(test_freeze_legacy)
{
	unsigned int version = _i + 2;
	struct vpmu pmu;

	make_pmu(&pmu, version);
	wr(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS | EVTSEL_INT);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, INSNS);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(0));
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x3 | GLOBAL_CTRL_FIXED(0));
	wr(&pmu, MSR_IA32_A_PMC0, MASK48 - 1);
	/* Counting stops at the 2nd occurrence, the one that requests the PMI. */
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 10, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 0);
	ck_assert_uint_eq(gp(&pmu, 1), 2);
	ck_assert_uint_eq(fixed(&pmu, 0), 2);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0x1);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_DEBUGCTL),
			  DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI);
	ck_assert(vpmu_take_pmi(&pmu));
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 10, 0);
	ck_assert_uint_eq(gp(&pmu, 1), 2);
	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_INSTRUCTIONS));
	/* Clearing the status does not unfreeze; rewriting GLOBAL_CTRL does. */
	wr(&pmu, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0x1);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 10, 0);
	ck_assert_uint_eq(gp(&pmu, 1), 2);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x3);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 10, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 10);
	ck_assert_uint_eq(gp(&pmu, 1), 12);
	ck_assert(!pmu.pmi_pending);
}
END_TEST

/* v4+ streamlined freeze: CTR_Frz/LBR_Frz, GLOBAL_CTRL untouched. */
START_TEST(test_freeze_v4)
{
	unsigned int version = _i + 4;
	struct vpmu pmu;

	make_pmu(&pmu, version);
	wr(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_ALL(1) | FIXED_CTRL_PMI(1));
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0xff | GLOBAL_CTRL_FIXED(1));
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 7, PMU_EVENT_CORE_CYCLES | EN_ALL);
	wr(&pmu, MSR_IA32_FIXED_CTR0 + 1, MASK48 - 2);
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 100, 0);
	ck_assert_uint_eq(fixed(&pmu, 1), 0);
	ck_assert_uint_eq(gp(&pmu, 7), 3);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS),
			  1ULL << 33 | GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_LBR_FRZ);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), 0xff | GLOBAL_CTRL_FIXED(1));
	ck_assert(vpmu_take_pmi(&pmu));
	/* Frozen: nothing counts, nothing to schedule. */
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 100, 0);
	ck_assert_uint_eq(gp(&pmu, 7), 3);
	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_CORE_CYCLES));
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_CORE_CYCLES, 0), UINT64_MAX);
	/* Clearing the overflow bit alone keeps the freeze. */
	wr(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 1ULL << 33);
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 100, 0);
	ck_assert_uint_eq(gp(&pmu, 7), 3);
	/* Clearing CTR_Frz through 0x390 unfreezes at once. */
	wr(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_LBR_FRZ);
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 100, 0);
	ck_assert_uint_eq(gp(&pmu, 7), 103);
	ck_assert_uint_eq(fixed(&pmu, 1), 100);
	/* STATUS_SET can freeze too, without a PMI. */
	wr(&pmu, MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_STATUS_CTR_FRZ);
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 100, 0);
	ck_assert_uint_eq(gp(&pmu, 7), 103);
	ck_assert(!pmu.pmi_pending);
}
END_TEST

/* v4 with only FREEZE_LBRS: LBR_Frz but counters keep going. */
START_TEST(test_freeze_v4_lbrs_only)
{
	struct vpmu pmu;

	make_pmu(&pmu, 4);
	wr(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_LBRS_ON_PMI);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS | EVTSEL_INT);
	wr(&pmu, MSR_IA32_A_PMC0, MASK48);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 4);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 1 | GLOBAL_STATUS_LBR_FRZ);
	ck_assert(vpmu_take_pmi(&pmu));
}
END_TEST

/* v2/v3 with only FREEZE_LBRS: no counter effect, no v4 status bits. */
START_TEST(test_freeze_v3_lbrs_only)
{
	struct vpmu pmu;

	make_pmu(&pmu, 3);
	wr(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_LBRS_ON_PMI);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS | EVTSEL_INT);
	wr(&pmu, MSR_IA32_A_PMC0, MASK48);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 4);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 1);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), 0xff);
}
END_TEST

/* Only a PMI request freezes: an overflow without INT does not. */
START_TEST(test_no_freeze_without_int)
{
	struct vpmu pmu;

	make_pmu(&pmu, _i ? 4 : 2);
	wr(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS);
	wr(&pmu, MSR_IA32_A_PMC0, MASK48);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 4);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 1);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), 0xff);
	ck_assert(!pmu.pmi_pending);
}
END_TEST

/* CTR_Frz means nothing before v4 (it cannot even be set there). */
START_TEST(test_ctr_frz_v3_ignored)
{
	struct vpmu pmu;

	make_pmu(&pmu, 3);
	pmu.global_status = GLOBAL_STATUS_CTR_FRZ;
	wr(&pmu, MSR_IA32_PERFEVTSEL0, INSNS);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	ck_assert_uint_eq(gp(&pmu, 0), 5);
}
END_TEST

/* External PMI requests (PEBS threshold): status, PMI, freeze. */
START_TEST(test_request_pmi)
{
	struct vpmu pmu;

	make_pmu(&pmu, 5);
	vpmu_request_pmi(&pmu, GLOBAL_STATUS_BUFFER_OVF);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_STATUS_BUFFER_OVF);
	ck_assert(vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(pmu.nr_pmis_requested, 1);
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0);

	wr(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	vpmu_request_pmi(&pmu, GLOBAL_STATUS_BUFFER_OVF);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS),
			  GLOBAL_STATUS_BUFFER_OVF | GLOBAL_STATUS_CTR_FRZ);
	ck_assert_uint_eq(pmu.nr_pmis_requested, 2);

	make_pmu(&pmu, 2);
	wr(&pmu, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	vpmu_request_pmi(&pmu, GLOBAL_STATUS_BUFFER_OVF);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_CTRL), 0);
	ck_assert(vpmu_take_pmi(&pmu));
}
END_TEST

/* Version 0: no counters, nothing counts, nothing to schedule. */
START_TEST(test_v0_counts_nothing)
{
	enum pmu_arch_event ev;
	struct vpmu pmu;

	make_pmu(&pmu, 0);
	for (ev = 0; ev < PMU_EV_NR; ev++) {
		vpmu_count(&pmu, ev, 100, 0);
		ck_assert(!vpmu_counts_event(&pmu, ev));
		ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, ev, 0), UINT64_MAX);
	}
	ck_assert(!vpmu_take_pmi(&pmu));
	ck_assert_int_eq(vpmu_gp_event(&pmu, 0), PMU_EV_NONE);
}
END_TEST

static Suite *vpmu_count_suite(void)
{
	Suite *s = suite_create("vpmu_count");
	TCase *tc = tcase_create("counting");

	tcase_add_loop_test(tc, test_count_basic, 0, 5);
	tcase_add_loop_test(tc, test_cpl_filter, 0, 4);
	tcase_add_test(tc, test_event_level_matters);
	tcase_add_loop_test(tc, test_gp_event_match, 0, 2 * PMU_EV_INTEL_NR);
	tcase_add_test(tc, test_gp_event_nomatch);
	tcase_add_test(tc, test_fixed_events);
	tcase_add_test(tc, test_fixed_enable);
	tcase_add_loop_test(tc, test_gp_enable, 0, 5);
	tcase_add_test(tc, test_unavailable_event);
	tcase_add_loop_test(tc, test_hidden_event_counts, 0, 2);
	tcase_add_loop_test(tc, test_cmask_inv_edge, 0,
			    sizeof(cmask_cases) / sizeof(cmask_cases[0]));
	tcase_add_test(tc, test_v0_counts_nothing);
	suite_add_tcase(s, tc);

	tc = tcase_create("overflow");
	tcase_add_test(tc, test_edge_overflow);
	tcase_add_test(tc, test_overflow_no_int);
	tcase_add_test(tc, test_overflow_int);
	tcase_add_test(tc, test_fixed_overflow);
	tcase_add_test(tc, test_simultaneous_overflow);
	tcase_add_test(tc, test_large_n);
	tcase_add_test(tc, test_events_to_overflow_consistent);
	tcase_add_test(tc, test_request_pmi);
	suite_add_tcase(s, tc);

	tc = tcase_create("freeze");
	tcase_add_loop_test(tc, test_freeze_legacy, 0, 2);
	tcase_add_loop_test(tc, test_freeze_v4, 0, 2);
	tcase_add_test(tc, test_freeze_v4_lbrs_only);
	tcase_add_test(tc, test_freeze_v3_lbrs_only);
	tcase_add_loop_test(tc, test_no_freeze_without_int, 0, 2);
	tcase_add_test(tc, test_ctr_frz_v3_ignored);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_count_suite)
