/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The event filter (vmm/model/event_filter.c) with KVM_SET_PMU_EVENT_FILTER's
 * semantics, its effect on counting, and that vpmu_init() leaves nothing
 * of a previous state behind.
 */
#include <errno.h>
#include <string.h>

#include "suite.h"
#include "model/vpmu.h"

#define EN_ALL		(EVTSEL_EN | EVTSEL_OS | EVTSEL_USR)

static void add(struct vpmu_filter *f, uint8_t event, uint8_t mask, uint8_t match, bool exclude)
{
	struct vpmu_filter_entry e = { event, mask, match, exclude };

	ck_assert_int_eq(vpmu_filter_add(f, &e), 0);
}

static void add_exact(struct vpmu_filter *f, uint64_t code)
{
	add(f, code & 0xff, 0xff, code >> 8 & 0xff, false);
}

START_TEST(test_no_filter_allows_all)
{
	ck_assert(vpmu_filter_gp_allowed(NULL, PMU_EVENT_CORE_CYCLES | EN_ALL));
	ck_assert(vpmu_filter_fixed_allowed(NULL, 0));
	ck_assert(vpmu_filter_fixed_allowed(NULL, 3));
}
END_TEST

/* The key is event select + unit mask only; other EVTSEL bits do not matter. */
START_TEST(test_gp_allow_and_deny)
{
	bool allow = _i == 0;
	struct vpmu_filter f;

	vpmu_filter_init(&f, allow ? VPMU_FILTER_ALLOW : VPMU_FILTER_DENY, 0);
	add_exact(&f, PMU_EVENT_CORE_CYCLES);
	add_exact(&f, PMU_EVENT_BRANCHES);
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_EVENT_CORE_CYCLES) == allow);
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_EVENT_CORE_CYCLES | EN_ALL | EVTSEL_INT |
					 EVTSEL_EDGE | EVTSEL_INV | EVTSEL_CMASK) == allow);
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_EVENT_BRANCHES | EN_ALL) == allow);
	/* Same event select, another unit mask: not listed. */
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_EVENT_REF_CYCLES | EN_ALL) == !allow);
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_EVENT_INSTRUCTIONS | EN_ALL) == !allow);
	ck_assert(vpmu_filter_gp_allowed(&f, 0) == !allow);
}
END_TEST

/* An empty list: ALLOW allows nothing, DENY denies nothing. */
START_TEST(test_gp_empty_list)
{
	struct vpmu_filter f;

	vpmu_filter_init(&f, VPMU_FILTER_ALLOW, 0);
	ck_assert(!vpmu_filter_gp_allowed(&f, PMU_EVENT_INSTRUCTIONS | EN_ALL));
	vpmu_filter_init(&f, VPMU_FILTER_DENY, 0);
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_EVENT_INSTRUCTIONS | EN_ALL));
}
END_TEST

/*
 * Masked events, as KVM's selftest uses MEM_INST_RETIRED (0xd0): include
 * umasks 0x80-0x83 (mask 0xfc, match 0x80), exclude 0x82.
 */
START_TEST(test_masked_events)
{
	static const struct { uint8_t umask; bool match; } cases[] = {
		{ 0x80, true }, { 0x81, true }, { 0x82, false }, { 0x83, true },
		{ 0x84, false }, { 0x00, false }, { 0x41, false },
	};
	struct vpmu_filter f;
	unsigned int i;

	vpmu_filter_init(&f, VPMU_FILTER_ALLOW, 0);
	add(&f, 0xd0, 0xfc, 0x80, false);
	add(&f, 0xd0, 0xff, 0x82, true);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t sel = 0xd0 | (uint64_t)cases[i].umask << 8 | EN_ALL;

		ck_assert_msg(vpmu_filter_gp_allowed(&f, sel) == cases[i].match,
			      "umask %#x", cases[i].umask);
		/* Another event select never matches. */
		ck_assert(!vpmu_filter_gp_allowed(&f, (sel & ~0xffULL) | 0xd1));
	}
	f.action = VPMU_FILTER_DENY;
	ck_assert(!vpmu_filter_gp_allowed(&f, 0x81d0 | EN_ALL));
	ck_assert(vpmu_filter_gp_allowed(&f, 0x82d0 | EN_ALL));
}
END_TEST

/* An exclude with no include matches nothing: the event is "not listed". */
START_TEST(test_exclude_only)
{
	struct vpmu_filter f;

	vpmu_filter_init(&f, VPMU_FILTER_DENY, 0);
	add(&f, 0x3c, 0x00, 0x00, true);
	ck_assert(vpmu_filter_gp_allowed(&f, PMU_EVENT_CORE_CYCLES | EN_ALL));
	/* mask 0: every unit mask matches. */
	add(&f, 0xc0, 0x00, 0x00, false);
	ck_assert(!vpmu_filter_gp_allowed(&f, 0xc0 | EN_ALL));
	ck_assert(!vpmu_filter_gp_allowed(&f, 0xffc0 | EN_ALL));
}
END_TEST

/* Fixed counter i: (ALLOW && bit i) || (DENY && !bit i), for every bitmap. */
START_TEST(test_fixed_bitmap)
{
	unsigned int bitmap = _i, idx;
	struct vpmu_filter f;

	for (idx = 0; idx < VPMU_MAX_FIXED; idx++) {
		bool bit = bitmap & (1u << idx);

		vpmu_filter_init(&f, VPMU_FILTER_ALLOW, bitmap);
		ck_assert(vpmu_filter_fixed_allowed(&f, idx) == bit);
		vpmu_filter_init(&f, VPMU_FILTER_DENY, bitmap);
		ck_assert(vpmu_filter_fixed_allowed(&f, idx) == !bit);
	}
}
END_TEST

/* The bitmap has priority over the list for the fixed counters' events. */
START_TEST(test_fixed_bitmap_beats_events)
{
	struct vpmu_filter f;

	vpmu_filter_init(&f, VPMU_FILTER_ALLOW, 0);
	add_exact(&f, PMU_EVENT_CORE_CYCLES);
	ck_assert(!vpmu_filter_fixed_allowed(&f, 1));
	vpmu_filter_init(&f, VPMU_FILTER_DENY, 0);
	add_exact(&f, PMU_EVENT_CORE_CYCLES);
	ck_assert(vpmu_filter_fixed_allowed(&f, 1));
	/* Bits for counters that do not exist are accepted and harmless. */
	vpmu_filter_init(&f, VPMU_FILTER_DENY, 0xfffffff0u);
	ck_assert(vpmu_filter_fixed_allowed(&f, 0));
	ck_assert(!vpmu_filter_fixed_allowed(&f, 31));
	ck_assert(vpmu_filter_fixed_allowed(&f, 32));
}
END_TEST

START_TEST(test_add_limits)
{
	struct vpmu_filter_entry e = { 0x2e, 0x0f, 0x41, false };
	struct vpmu_filter f;
	unsigned int i;

	vpmu_filter_init(&f, VPMU_FILTER_DENY, 0);
	ck_assert_int_eq(vpmu_filter_add(&f, &e), -EINVAL);
	ck_assert_uint_eq(f.nr_events, 0);
	e.umask_match = 0x01;
	for (i = 0; i < VPMU_FILTER_MAX_EVENTS; i++)
		ck_assert_int_eq(vpmu_filter_add(&f, &e), 0);
	ck_assert_int_eq(vpmu_filter_add(&f, &e), -E2BIG);
	ck_assert_uint_eq(f.nr_events, VPMU_FILTER_MAX_EVENTS);
}
END_TEST

static void make_pmu(struct vpmu *pmu)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(pmu, &cfg);
}

static void wr(struct vpmu *pmu, uint32_t msr, uint64_t v)
{
	ck_assert_int_eq(vpmu_wrmsr(pmu, msr, v), VPMU_OK);
}

static uint64_t rd(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v = 0;

	ck_assert_int_eq(vpmu_rdmsr(pmu, msr, &v), VPMU_OK);
	return v;
}

/*
 * Deny core cycles (0x3c/0x00) and fixed counter 1: GP0 and FC1 keep the
 * value the guest wrote, GP1 on ref cycles (0x3c/0x01) and FC2 count. A
 * denied counter preset to -1 never overflows or requests a PMI.
 */
START_TEST(test_denied_counts_nothing)
{
	struct vpmu_filter f;
	struct vpmu pmu;

	vpmu_filter_init(&f, VPMU_FILTER_DENY, 1u << 1);
	add_exact(&f, PMU_EVENT_CORE_CYCLES);
	make_pmu(&pmu);
	vpmu_set_filter(&pmu, &f);

	wr(&pmu, MSR_IA32_PERFEVTSEL0, PMU_EVENT_CORE_CYCLES | EN_ALL | EVTSEL_INT);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, PMU_EVENT_REF_CYCLES | EN_ALL);
	wr(&pmu, MSR_IA32_A_PMC0, 0xffffffffffffULL);
	wr(&pmu, MSR_IA32_FIXED_CTR0 + 1, 0x1234);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0xbbb);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x3 | GLOBAL_CTRL_FIXED(1) | GLOBAL_CTRL_FIXED(2));

	ck_assert(!vpmu_counts_event(&pmu, PMU_EV_CORE_CYCLES));
	ck_assert_uint_eq(vpmu_events_to_overflow(&pmu, PMU_EV_CORE_CYCLES, 0), UINT64_MAX);
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 1000, 0);
	vpmu_count(&pmu, PMU_EV_REF_CYCLES, 77, 3);

	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0), 0xffffffffffffULL);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + 1), 0x1234);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0 + 1), 77);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + 2), 77);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	ck_assert(!vpmu_take_pmi(&pmu));
	/* The guest still sees what it programmed. */
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PERFEVTSEL0),
			  PMU_EVENT_CORE_CYCLES | EN_ALL | EVTSEL_INT);

	/* Without the filter the same programming counts and overflows. */
	vpmu_set_filter(&pmu, NULL);
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 2, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0), 1);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + 1), 0x1236);
	ck_assert(vpmu_take_pmi(&pmu));
}
END_TEST

/* An ALLOW list of instructions only: cycles on a GP counter count nothing. */
START_TEST(test_allow_list_counting)
{
	struct vpmu_filter f;
	struct vpmu pmu;

	vpmu_filter_init(&f, VPMU_FILTER_ALLOW, 1u << 0);
	add_exact(&f, PMU_EVENT_INSTRUCTIONS);
	make_pmu(&pmu);
	vpmu_set_filter(&pmu, &f);
	wr(&pmu, MSR_IA32_PERFEVTSEL0, PMU_EVENT_INSTRUCTIONS | EN_ALL);
	wr(&pmu, MSR_IA32_PERFEVTSEL0 + 1, PMU_EVENT_CORE_CYCLES | EN_ALL);
	wr(&pmu, MSR_IA32_FIXED_CTR_CTRL, 0x333);
	wr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 0x3 | 0x7ULL << PMC_IDX_FIXED);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 5, 0);
	vpmu_count(&pmu, PMU_EV_CORE_CYCLES, 9, 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0), 5);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_PMC0 + 1), 0);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0), 5);
	ck_assert_uint_eq(rd(&pmu, MSR_IA32_FIXED_CTR0 + 1), 0);
}
END_TEST

/*
 * Guests never see host state: vpmu_init() over any previous contents
 * (garbage, or a PMU that counted and overflowed) gives byte-for-byte the
 * same state, and every MSR reads its RESET value.
 */
START_TEST(test_init_clears_everything)
{
	static struct vpmu a, b;
	struct vpmu_config cfg;
	struct vpmu_filter f;
	unsigned int i;

	vpmu_config_default(&cfg, 5);
	cfg.pebs = true;
	cfg.pebs_baseline = true;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);

	memset(&a, 0xa5, sizeof(a));
	vpmu_init(&a, &cfg);
	vpmu_filter_init(&f, VPMU_FILTER_DENY, 0);
	make_pmu(&b);
	vpmu_set_filter(&b, &f);
	wr(&b, MSR_IA32_PERFEVTSEL0, PMU_EVENT_INSTRUCTIONS | EN_ALL | EVTSEL_INT | EVTSEL_EDGE);
	wr(&b, MSR_IA32_A_PMC0, 0xffffffffffffULL);
	wr(&b, MSR_IA32_FIXED_CTR_CTRL, 0xbbb);
	wr(&b, MSR_IA32_PERF_GLOBAL_CTRL, 0xff | 0x7ULL << PMC_IDX_FIXED);
	wr(&b, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	vpmu_count(&b, PMU_EV_INSTRUCTIONS, 100, 0);
	ck_assert(b.pmi_pending);
	vpmu_init(&b, &cfg);
	ck_assert(memcmp(&a, &b, sizeof(a)) == 0);

	ck_assert_ptr_null(a.filter);
	ck_assert(!a.pmi_pending);
	ck_assert_uint_eq(a.overflows, 0);
	ck_assert_uint_eq(a.nr_overflows, 0);
	ck_assert_uint_eq(a.nr_pmis_requested, 0);
	for (i = 0; i < VPMU_MAX_GP; i++) {
		ck_assert_uint_eq(a.gp[i].value, 0);
		ck_assert_uint_eq(a.gp[i].ctl, 0);
		ck_assert(!a.gp[i].edge_prev);
	}
	for (i = 0; i < VPMU_MAX_FIXED; i++) {
		ck_assert_uint_eq(a.fixed[i].value, 0);
		ck_assert_uint_eq(a.fixed[i].ctl, 0);
	}
	for (i = 0; i < cfg.nr_gp; i++) {
		uint64_t v = ~0ULL;

		ck_assert_uint_eq(rd(&a, MSR_IA32_PMC0 + i), 0);
		ck_assert_uint_eq(rd(&a, MSR_IA32_A_PMC0 + i), 0);
		ck_assert_uint_eq(rd(&a, MSR_IA32_PERFEVTSEL0 + i), 0);
		ck_assert_int_eq(vpmu_rdpmc(&a, i, &v), VPMU_OK);
		ck_assert_uint_eq(v, 0);
	}
	for (i = 0; i < cfg.nr_fixed; i++)
		ck_assert_uint_eq(rd(&a, MSR_IA32_FIXED_CTR0 + i), 0);
	ck_assert_uint_eq(rd(&a, MSR_IA32_FIXED_CTR_CTRL), 0);
	ck_assert_uint_eq(rd(&a, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	ck_assert_uint_eq(rd(&a, MSR_IA32_PERF_GLOBAL_CTRL), 0xff);
	ck_assert_uint_eq(rd(&a, MSR_IA32_DEBUGCTL), 0);
	ck_assert_uint_eq(rd(&a, MSR_IA32_PEBS_ENABLE), 0);
	ck_assert_uint_eq(rd(&a, MSR_PEBS_DATA_CFG), 0);
	ck_assert_uint_eq(rd(&a, MSR_PEBS_LD_LAT_THRESHOLD), 0);
	ck_assert_uint_eq(rd(&a, MSR_IA32_DS_AREA), 0);
}
END_TEST

static Suite *vpmu_filter_suite(void)
{
	Suite *s = suite_create("vpmu_filter");
	TCase *tc = tcase_create("filter");

	tcase_add_test(tc, test_no_filter_allows_all);
	tcase_add_loop_test(tc, test_gp_allow_and_deny, 0, 2);
	tcase_add_test(tc, test_gp_empty_list);
	tcase_add_test(tc, test_masked_events);
	tcase_add_test(tc, test_exclude_only);
	tcase_add_loop_test(tc, test_fixed_bitmap, 0, 16);
	tcase_add_test(tc, test_fixed_bitmap_beats_events);
	tcase_add_test(tc, test_add_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("counting");
	tcase_add_test(tc, test_denied_counts_nothing);
	tcase_add_test(tc, test_allow_list_counting);
	suite_add_tcase(s, tc);

	tc = tcase_create("reset");
	tcase_add_test(tc, test_init_clears_everything);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_filter_suite)
