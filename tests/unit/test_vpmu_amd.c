/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The AMD model (vmm/model/amd.c): which MSRs exist per version and
 * counter count, KVM's AMD write rules (reserved bits and read-only MSRs
 * dropped, never #GP), PerfMonV2 global control and status, counting with
 * AMD event encodings and host/guest qualifiers, overflow and PMI, RDPMC,
 * CPUID and configuration checks (AMD64 APM vol. 2 13.2; Linux
 * arch/x86/kvm/svm/pmu.c and pmu.c).
 */
#include <errno.h>

#include "suite.h"
#include "model/vpmu.h"
#include "x86-pmu/cpuid.h"

#define MASK48		0xffffffffffffULL
#define CTL_INSNS	(PMU_AMD_EVENT_INSTRUCTIONS | EVTSEL_EN | EVTSEL_OS | EVTSEL_USR)

static void make_amd(struct vpmu *pmu, unsigned int version, unsigned int nr_gp)
{
	struct vpmu_config cfg;

	vpmu_config_default_amd(&cfg, version);
	if (nr_gp)
		cfg.nr_gp = nr_gp;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(pmu, &cfg);
}

static uint64_t rd(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v = 0xdead;

	ck_assert_msg(vpmu_rdmsr(pmu, msr, &v) == VPMU_OK, "rdmsr %#x #GP", msr);
	return v;
}

static void wr(struct vpmu *pmu, uint32_t msr, uint64_t v)
{
	ck_assert_msg(vpmu_wrmsr(pmu, msr, v) == VPMU_OK, "wrmsr %#x <- %#llx #GP", msr,
		      (unsigned long long)v);
}

static bool exists(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v;

	return vpmu_rdmsr(pmu, msr, &v) == VPMU_OK;
}

/* Per version and counter count, exactly the MSRs KVM's amd_is_valid_msr() allows. */
START_TEST(test_amd_msr_existence)
{
	static const struct { unsigned int version, nr_gp; bool core, v2; } cases[] = {
		{ 1, 4, false, false }, { 1, 6, true, false },
		{ 2, 6, true, true }, { 2, 3, true, true }, { 2, 1, true, true },
	};
	unsigned int v = cases[_i].version, n = cases[_i].nr_gp, i;
	struct vpmu pmu;

	make_amd(&pmu, v, n);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(exists(&pmu, MSR_K7_EVNTSEL0 + i), i < n);
		ck_assert_int_eq(exists(&pmu, MSR_K7_PERFCTR0 + i), i < n);
	}
	for (i = 0; i < 12; i++)
		ck_assert_msg(exists(&pmu, MSR_F15H_PERF_CTL0 + i) == (cases[_i].core && i / 2 < n),
			      "v%u n%u msr %#x", v, n, MSR_F15H_PERF_CTL0 + i);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(exists(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS + i), cases[_i].v2);
	/* Nothing of the Intel PMU. */
	ck_assert(!exists(&pmu, MSR_IA32_PMC0));
	ck_assert(!exists(&pmu, MSR_IA32_PERFEVTSEL0));
	ck_assert(!exists(&pmu, MSR_IA32_PERF_GLOBAL_CTRL));
	ck_assert(!exists(&pmu, MSR_IA32_FIXED_CTR0));
	/* ...whose MSRs are still routed to the model, to #GP as an AMD CPU does. */
	ck_assert(vpmu_msr_is_pmu(&pmu.cfg, MSR_IA32_PMC0));
	ck_assert(vpmu_msr_is_pmu(&pmu.cfg, MSR_IA32_PERF_GLOBAL_CTRL));
	ck_assert(!vpmu_msr_is_pmu(&pmu.cfg, MSR_IA32_DEBUGCTL));
	ck_assert(!vpmu_msr_is_pmu(&pmu.cfg, MSR_IA32_MISC_ENABLE));
	ck_assert(vpmu_msr_is_pmu(&pmu.cfg, MSR_K7_PERFCTR0));
	ck_assert(vpmu_msr_is_pmu(&pmu.cfg, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET));
}
END_TEST

/* Reserved PERF_CTL bits (0xFFFFFFF000280000) are dropped; counters keep 48 bits. */
START_TEST(test_amd_write_rules)
{
	struct vpmu pmu;

	make_amd(&pmu, 2, 0);
	wr(&pmu, MSR_K7_EVNTSEL0, ~0ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_EVNTSEL0), ~AMD_EVTSEL_RSVD);
	wr(&pmu, MSR_K7_PERFCTR0 + 1, ~0ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0 + 1), MASK48);
	/* The legacy MSRs alias the first four core pairs. */
	ck_assert_uint_eq(rd(&pmu, MSR_F15H_PERF_CTL0), ~AMD_EVTSEL_RSVD);
	ck_assert_uint_eq(rd(&pmu, MSR_F15H_PERF_CTR0 + 2), MASK48);
	wr(&pmu, MSR_F15H_PERF_CTL0 + 10, CTL_INSNS);
	ck_assert_uint_eq(rd(&pmu, MSR_F15H_PERF_CTL0 + 10), CTL_INSNS);
	wr(&pmu, MSR_F15H_PERF_CTR0 + 10, 0x1234);
	ck_assert_uint_eq(pmu.gp[5].value, 0x1234);
}
END_TEST

/*
 * PerfMonV2: GLOBAL_CTL resets to every counter enabled and drops reserved
 * bits; GLOBAL_STATUS ignores writes; STATUS_CLR and STATUS_SET clear and
 * set counter bits and read 0.
 */
START_TEST(test_amd_global)
{
	struct vpmu pmu;

	make_amd(&pmu, 2, 6);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_CTL), 0x3f);
	wr(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, ~0ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_CTL), 0x3f);
	wr(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 0x3f);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS), 0);
	wr(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, ~0ULL);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS), 0x3f);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET), 0);
	wr(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, 0x5);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS), 0x3a);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR), 0);
	ck_assert(!vpmu_take_pmi(&pmu));

	/* A counter disabled in GLOBAL_CTL does not count. */
	wr(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0x3e);
	wr(&pmu, MSR_K7_EVNTSEL0, CTL_INSNS);
	wr(&pmu, MSR_K7_EVNTSEL0 + 1, CTL_INSNS);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 7, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0 + 1), 7);
}
END_TEST

/* The AMD encodings count their events; Intel's do not mean anything here. */
START_TEST(test_amd_events)
{
	static const struct { uint64_t code; enum pmu_arch_event ev; } rows[] = {
		{ PMU_AMD_EVENT_CORE_CYCLES, PMU_EV_CORE_CYCLES },
		{ PMU_AMD_EVENT_INSTRUCTIONS, PMU_EV_INSTRUCTIONS },
		{ PMU_AMD_EVENT_BRANCHES, PMU_EV_BRANCHES },
		{ PMU_AMD_EVENT_BR_TAKEN, PMU_EV_BR_TAKEN },
		{ PMU_AMD_EVENT_BR_FAR, PMU_EV_BR_FAR },
		{ PMU_AMD_EVENT_BR_NEAR_RETURN, PMU_EV_BR_NEAR_RETURN },
		{ PMU_AMD_EVENT_BR_COND, PMU_EV_BR_COND },
	};
	struct vpmu pmu;
	unsigned int i;

	ck_assert_uint_eq(PMU_AMD_EVENT_BR_COND, 0xd1);
	ck_assert_uint_eq(PMU_AMD_RAW_EVENT(0x1c0, 0x02), 0x1000002c0ULL);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		make_amd(&pmu, 2, 6);
		wr(&pmu, MSR_K7_EVNTSEL0, rows[i].code | EVTSEL_EN | EVTSEL_OS | EVTSEL_USR);
		ck_assert_uint_eq(vpmu_counted_events(&pmu), 1u << rows[i].ev);
		vpmu_count(&pmu, rows[i].ev, 3, 3);
		ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 3);
	}
	/* Intel's branch encoding (0xC4) is AMD's taken branches, not all branches. */
	make_amd(&pmu, 2, 6);
	wr(&pmu, MSR_K7_EVNTSEL0, PMU_EVENT_BRANCHES | EVTSEL_EN | EVTSEL_OS);
	vpmu_count(&pmu, PMU_EV_BRANCHES, 5, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 0);
	/* EventSelect bits 35:32 are part of the event: 0x1C0 is not 0xC0. */
	wr(&pmu, MSR_K7_EVNTSEL0, PMU_AMD_RAW_EVENT(0x1c0, 0) | EVTSEL_EN | EVTSEL_OS);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 0);
}
END_TEST

/* vpmu_gp_event() reads a counter's control in its vendor's encoding. */
START_TEST(test_amd_gp_event)
{
	struct vpmu_config cfg;
	struct vpmu amd, intel;

	make_amd(&amd, 2, 6);
	vpmu_config_default(&cfg, 5);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&intel, &cfg);
	/* 0xC4: AMD's taken branches, Intel's branches. */
	wr(&amd, MSR_K7_EVNTSEL0, PMU_AMD_EVENT_BR_TAKEN | EVTSEL_EN | EVTSEL_OS);
	ck_assert_int_eq(vpmu_gp_event(&amd, 0), PMU_EV_BR_TAKEN);
	wr(&intel, MSR_IA32_PERFEVTSEL0, PMU_EVENT_BRANCHES | EVTSEL_EN | EVTSEL_OS);
	ck_assert_int_eq(vpmu_gp_event(&intel, 0), PMU_EV_BRANCHES);
	/* 0x76 is AMD's core cycles and no Intel event; 0x3C the reverse. */
	wr(&amd, MSR_F15H_PERF_CTL0 + 2, PMU_AMD_EVENT_CORE_CYCLES);
	ck_assert_int_eq(vpmu_gp_event(&amd, 1), PMU_EV_CORE_CYCLES);
	wr(&amd, MSR_F15H_PERF_CTL0 + 4, PMU_EVENT_CORE_CYCLES);
	ck_assert_int_eq(vpmu_gp_event(&amd, 2), PMU_EV_NONE);
	wr(&intel, MSR_IA32_PERFEVTSEL0 + 1, PMU_AMD_EVENT_CORE_CYCLES);
	ck_assert_int_eq(vpmu_gp_event(&intel, 1), PMU_EV_NONE);
	/* Bits 35:32 are AMD's EventSelect 11:8: 0x1C0 is not instructions. */
	wr(&amd, MSR_K7_EVNTSEL0 + 3, PMU_AMD_RAW_EVENT(0x1c0, 0));
	ck_assert_int_eq(vpmu_gp_event(&amd, 3), PMU_EV_NONE);
	ck_assert_int_eq(vpmu_gp_event(&amd, 6), PMU_EV_NONE);	/* no counter 6 */
}
END_TEST

/*
 * OS/USR; HostOnly/GuestOnly are reserved bits for a guest without SVM of
 * its own (KVM drops them), so they read back clear and change nothing.
 */
START_TEST(test_amd_qualifiers)
{
	static const struct { uint64_t bits; unsigned int cpl; uint64_t expect; } cases[] = {
		{ EVTSEL_OS, 0, 4 }, { EVTSEL_OS, 3, 0 }, { EVTSEL_USR, 3, 4 }, { EVTSEL_USR, 0, 0 },
		{ EVTSEL_OS | AMD_EVTSEL_HOSTONLY, 0, 4 },
		{ EVTSEL_OS | AMD_EVTSEL_GUESTONLY, 0, 4 },
		{ EVTSEL_OS | AMD_EVTSEL_HOSTONLY | AMD_EVTSEL_GUESTONLY, 0, 4 },
	};
	uint64_t ctl = PMU_AMD_EVENT_INSTRUCTIONS | EVTSEL_EN | cases[_i].bits;
	struct vpmu pmu;

	make_amd(&pmu, 2, 6);
	wr(&pmu, MSR_K7_EVNTSEL0 + 2, ctl);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_EVNTSEL0 + 2),
			  ctl & ~(AMD_EVTSEL_HOSTONLY | AMD_EVTSEL_GUESTONLY));
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 4, cases[_i].cpl);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0 + 2), cases[_i].expect);
}
END_TEST

/*
 * A wrap sets the counter's GLOBAL_STATUS bit whatever INT says and asks
 * for a PMI only with INT; version 1 has no status MSR: software sees bit 47
 * clear (the counter was preset negative).
 */
START_TEST(test_amd_overflow)
{
	struct vpmu pmu;

	make_amd(&pmu, 2, 6);
	wr(&pmu, MSR_K7_PERFCTR0, MASK48 - 1);
	wr(&pmu, MSR_K7_EVNTSEL0, CTL_INSNS);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 3, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 1);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS), 1);
	ck_assert(!vpmu_take_pmi(&pmu));
	wr(&pmu, MSR_K7_PERFCTR0 + 3, MASK48);
	wr(&pmu, MSR_K7_EVNTSEL0 + 3, CTL_INSNS | EVTSEL_INT);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1, 3);
	ck_assert_uint_eq(rd(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS), 0x9);
	ck_assert(vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(vpmu_take_overflows(&pmu), 0x9);

	make_amd(&pmu, 1, 4);
	wr(&pmu, MSR_K7_PERFCTR0, (uint64_t)-10 & MASK48);
	wr(&pmu, MSR_K7_EVNTSEL0, CTL_INSNS | EVTSEL_INT);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 9, 0);
	ck_assert(rd(&pmu, MSR_K7_PERFCTR0) & (1ULL << 47));
	ck_assert(!vpmu_take_pmi(&pmu));
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 0);
	ck_assert(vpmu_take_pmi(&pmu));
	ck_assert(!exists(&pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS));
}
END_TEST

/* RDPMC: ECX is the counter index, 0 .. nr_gp - 1; Intel's fixed type #GPs. */
START_TEST(test_amd_rdpmc)
{
	struct vpmu pmu;
	uint64_t v;
	unsigned int i;

	make_amd(&pmu, 2, 6);
	for (i = 0; i < 6; i++)
		wr(&pmu, MSR_F15H_PERF_CTR0 + 2 * i, 0x100 + i);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(vpmu_rdpmc(&pmu, i, &v), VPMU_OK);
		ck_assert_uint_eq(v, 0x100 + i);
	}
	ck_assert_int_eq(vpmu_rdpmc(&pmu, 6, &v), VPMU_GP);
	ck_assert_int_eq(vpmu_rdpmc(&pmu, 1u << 30, &v), VPMU_GP);
	make_amd(&pmu, 1, 4);
	ck_assert_int_eq(vpmu_rdpmc(&pmu, 3, &v), VPMU_OK);
	ck_assert_int_eq(vpmu_rdpmc(&pmu, 4, &v), VPMU_GP);
}
END_TEST

/* CPUID: the AMD leaves for AMD configurations, nothing of either for the other. */
START_TEST(test_amd_cpuid)
{
	struct vpmu_config amd, intel;
	uint32_t a, b, c, d, ecx;

	vpmu_config_default_amd(&amd, 2);
	amd.nr_gp = 5;
	ck_assert_int_eq(vpmu_config_validate(&amd), 0);
	vpmu_cpuid_80000022(&amd, &a, &b, &c, &d);
	ck_assert_uint_eq(a, CPUID_8000_0022_EAX_PERFMON_V2);
	ck_assert_uint_eq(CPUID_8000_0022_EBX_NR_CORE(b), 5);
	ecx = 0;
	vpmu_cpuid_80000001(&amd, &ecx);
	ck_assert_uint_eq(ecx, CPUID_8000_0001_ECX_PERFCTR_CORE);
	vpmu_cpuid_0a(&amd, &a, &b, &c, &d);
	ck_assert_uint_eq(a | b | c | d, 0);
	ecx = CPUID_1_ECX_PDCM;
	d = CPUID_1_EDX_DS;
	vpmu_cpuid_01(&amd, &ecx, &d);
	ck_assert_uint_eq(ecx | d, 0);

	vpmu_config_default_amd(&amd, 1);
	amd.nr_gp = 4;
	ck_assert_int_eq(vpmu_config_validate(&amd), 0);
	ecx = ~0u;
	vpmu_cpuid_80000001(&amd, &ecx);
	ck_assert_uint_eq(ecx, ~CPUID_8000_0001_ECX_PERFCTR_CORE);
	vpmu_cpuid_80000022(&amd, &a, &b, &c, &d);
	ck_assert_uint_eq(a | b | c | d, 0);

	vpmu_config_default(&intel, 5);
	ck_assert_int_eq(vpmu_config_validate(&intel), 0);
	ecx = ~0u;
	vpmu_cpuid_80000001(&intel, &ecx);
	ck_assert_uint_eq(ecx, ~CPUID_8000_0001_ECX_PERFCTR_CORE);
	vpmu_cpuid_80000022(&intel, &a, &b, &c, &d);
	ck_assert_uint_eq(a | b | c | d, 0);
}
END_TEST

/* The operator's filter matches AMD's 12-bit EventSelect (bits 35:32 too). */
START_TEST(test_amd_filter)
{
	static struct vpmu_filter f;
	struct vpmu_filter_entry e = { .event = 0x1c0, .umask_mask = 0xff };
	struct vpmu pmu;

	vpmu_filter_init(&f, VPMU_FILTER_DENY, 0);
	ck_assert_int_eq(vpmu_filter_add(&f, &e), 0);
	make_amd(&pmu, 2, 6);
	vpmu_set_filter(&pmu, &f);
	ck_assert(!vpmu_filter_gp_allowed(&f, PMU_AMD_RAW_EVENT(0x1c0, 0)));
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_AMD_EVENT_INSTRUCTIONS));
	wr(&pmu, MSR_K7_EVNTSEL0, CTL_INSNS);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 2, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 2);
	e.event = 0xc0;
	ck_assert_int_eq(vpmu_filter_add(&f, &e), 0);
	vpmu_set_filter(&pmu, &f);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 2, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_K7_PERFCTR0), 2);
}
END_TEST

/* The Intel model owns AMD's PMU MSRs too, and #GPs them. */
START_TEST(test_intel_refuses_amd_msrs)
{
	static const uint32_t msrs[] = {
		MSR_K7_EVNTSEL0, MSR_K7_PERFCTR0 + 3, MSR_F15H_PERF_CTL0, MSR_F15H_PERF_CTR0 + 10,
		MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET,
	};
	struct vpmu_config cfg;
	struct vpmu pmu;
	uint64_t v;

	vpmu_config_default(&cfg, 5);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&pmu, &cfg);
	for (unsigned int i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++) {
		ck_assert(vpmu_msr_is_pmu(&cfg, msrs[i]));
		ck_assert_int_eq(vpmu_rdmsr(&pmu, msrs[i], &v), VPMU_GP);
		ck_assert_int_eq(vpmu_wrmsr(&pmu, msrs[i], 0), VPMU_GP);
	}
}
END_TEST

/* Configurations the AMD model refuses. */
START_TEST(test_amd_config)
{
	static const struct { unsigned int version, nr_gp, width, fixed; bool pebs; int r; } cases[] = {
		{ 2, 6, 48, 0, false, 0 }, { 2, 1, 48, 0, false, 0 }, { 1, 4, 48, 0, false, 0 },
		{ 1, 6, 48, 0, false, 0 }, { 1, 5, 48, 0, false, -EINVAL },
		{ 2, 7, 48, 0, false, -EINVAL }, { 3, 6, 48, 0, false, -EINVAL },
		{ 2, 6, 40, 0, false, -EINVAL }, { 2, 6, 48, 1, false, -EINVAL },
		{ 2, 6, 48, 0, true, -EINVAL },
	};
	struct vpmu_config cfg;

	vpmu_config_default_amd(&cfg, cases[_i].version);
	cfg.nr_gp = cases[_i].nr_gp;
	cfg.gp_width = cases[_i].width;
	cfg.nr_fixed = cases[_i].fixed;
	cfg.pebs = cases[_i].pebs;
	ck_assert_int_eq(vpmu_config_validate(&cfg), cases[_i].r);
	if (!cases[_i].r)
		ck_assert(!cfg.pdcm && !cfg.full_width_write && cfg.vendor == VPMU_VENDOR_AMD);
}
END_TEST

static Suite *vpmu_amd_suite(void)
{
	Suite *s = suite_create("vpmu_amd");
	TCase *tc = tcase_create("amd");

	tcase_add_loop_test(tc, test_amd_msr_existence, 0, 5);
	tcase_add_test(tc, test_amd_write_rules);
	tcase_add_test(tc, test_amd_global);
	tcase_add_test(tc, test_amd_events);
	tcase_add_test(tc, test_amd_gp_event);
	tcase_add_loop_test(tc, test_amd_qualifiers, 0, 7);
	tcase_add_test(tc, test_amd_overflow);
	tcase_add_test(tc, test_amd_rdpmc);
	tcase_add_test(tc, test_amd_cpuid);
	tcase_add_loop_test(tc, test_amd_config, 0, 10);
	tcase_add_test(tc, test_intel_refuses_amd_msrs);
	tcase_add_test(tc, test_amd_filter);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_amd_suite)
