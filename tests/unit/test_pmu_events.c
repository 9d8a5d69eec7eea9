/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The event table (include/x86-pmu/events.h) against the encodings the Intel
 * SDM gives (vol. 3B table 18-1, the fixed counters of 18.2.2, and the
 * Skylake BR_INST_RETIRED umasks), written out here by hand, and the vPMU
 * model's decoding of every row.
 */
#include <string.h>

#include "suite.h"
#include "x86-pmu/events.h"
#include "model/internal.h"

static const struct {
	enum pmu_arch_event ev;
	uint64_t code;
	const char *name;
} sdm[] = {
	{ PMU_EV_CORE_CYCLES, 0x003c, "core_cycles" },
	{ PMU_EV_INSTRUCTIONS, 0x00c0, "instructions" },
	{ PMU_EV_REF_CYCLES, 0x013c, "ref_cycles" },
	{ PMU_EV_LLC_REFERENCES, 0x4f2e, "llc_references" },
	{ PMU_EV_LLC_MISSES, 0x412e, "llc_misses" },
	{ PMU_EV_BRANCHES, 0x00c4, "branches" },
	{ PMU_EV_BRANCH_MISSES, 0x00c5, "branch_misses" },
	{ PMU_EV_TOPDOWN_SLOTS, 0x01a4, "topdown_slots" },
	{ PMU_EV_BR_COND, 0x01c4, "br_cond" },
	{ PMU_EV_BR_NEAR_CALL, 0x02c4, "br_near_call" },
	{ PMU_EV_BR_NEAR_RETURN, 0x08c4, "br_near_return" },
	{ PMU_EV_BR_NOT_TAKEN, 0x10c4, "br_not_taken" },
	{ PMU_EV_BR_NEAR_TAKEN, 0x20c4, "br_near_taken" },
	{ PMU_EV_BR_FAR, 0x40c4, "br_far" },
};

START_TEST(test_rows)
{
	ck_assert_int_eq(PMU_EV_INTEL_NR, sizeof(sdm) / sizeof(sdm[0]));
	ck_assert_int_eq(_i, sdm[_i].ev);
	ck_assert_uint_eq(pmu_event_code(sdm[_i].ev), sdm[_i].code);
	ck_assert_str_eq(pmu_event_name(sdm[_i].ev), sdm[_i].name);
	/* EVTSEL's other bits do not take part in decoding (docs/intel-pmu.md 5). */
	ck_assert_int_eq(vpmu_intel_decode_event(sdm[_i].code | EVTSEL_EN | EVTSEL_USR | EVTSEL_INT),
			 sdm[_i].ev);
}
END_TEST

START_TEST(test_constants)
{
	/* CPUID.0AH:EBX order: the architectural events first, 8 of them. */
	ck_assert_int_eq(PMU_EV_ARCH_NR, 8);
	ck_assert_int_eq(PMU_EV_ARCH_NR, PMU_EV_BR_COND);
	ck_assert_int_eq(PMU_EV_ARCH_NR, PMU_EV_VECTOR_LEN);
	ck_assert_uint_eq(PMU_EVENT_CORE_CYCLES, 0x003c);
	ck_assert_uint_eq(PMU_EVENT_LLC_MISSES, 0x412e);
	ck_assert_uint_eq(PMU_EVENT_BR_FAR, 0x40c4);
	ck_assert_uint_eq(pmu_event_code(PMU_EV_NONE), 0);
	ck_assert_uint_eq(pmu_event_code(PMU_EV_NR), 0);
	ck_assert_str_eq(pmu_event_name(PMU_EV_NONE), "none");
	/* AMD-only events follow the Intel rows and have no Intel encoding. */
	ck_assert_int_eq(PMU_EV_BR_TAKEN, PMU_EV_INTEL_NR);
	ck_assert_uint_eq(pmu_event_code(PMU_EV_BR_TAKEN), 0);
	ck_assert_str_eq(pmu_event_name(PMU_EV_BR_TAKEN), "br_taken");
	ck_assert_int_eq(vpmu_intel_decode_event(EVTSEL_EN | EVTSEL_OS), PMU_EV_NONE);
}
END_TEST

START_TEST(test_fixed)
{
	ck_assert_int_eq(pmu_fixed_event(0), PMU_EV_INSTRUCTIONS);	/* INST_RETIRED.ANY */
	ck_assert_int_eq(pmu_fixed_event(1), PMU_EV_CORE_CYCLES);	/* CPU_CLK_UNHALTED.THREAD */
	ck_assert_int_eq(pmu_fixed_event(2), PMU_EV_REF_CYCLES);	/* CPU_CLK_UNHALTED.REF_TSC */
	ck_assert_int_eq(pmu_fixed_event(3), PMU_EV_TOPDOWN_SLOTS);	/* TOPDOWN.SLOTS */
	ck_assert_int_eq(pmu_fixed_event(4), PMU_EV_NONE);
	ck_assert_int_eq(pmu_fixed_event(~0u), PMU_EV_NONE);
	for (unsigned int i = 0; i < VPMU_MAX_FIXED; i++)
		ck_assert_int_eq(vpmu_fixed_event(i), pmu_fixed_event(i));
	ck_assert_int_eq(vpmu_fixed_event(VPMU_MAX_FIXED), PMU_EV_NONE);
}
END_TEST

START_TEST(test_unknown)
{
	ck_assert_int_eq(vpmu_intel_decode_event(0), PMU_EV_NONE);
	ck_assert_int_eq(vpmu_intel_decode_event(0x04c4), PMU_EV_NONE);	/* umask 0x04: not modelled */
	ck_assert_int_eq(vpmu_intel_decode_event(0x003d), PMU_EV_NONE);
}
END_TEST

static Suite *pmu_events_suite(void)
{
	Suite *s = suite_create("pmu_events");
	TCase *tc = tcase_create("table");

	tcase_add_loop_test(tc, test_rows, 0, sizeof(sdm) / sizeof(sdm[0]));
	tcase_add_test(tc, test_constants);
	tcase_add_test(tc, test_fixed);
	tcase_add_test(tc, test_unknown);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pmu_events_suite)
