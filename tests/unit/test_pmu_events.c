/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The event table (include/x86-pmu/events.h) against the encodings Intel
 * gives, written out here by hand: the architectural events (SDM vol. 3B
 * table 18-1, the fixed counters of 18.2.2), each core's BR_INST_RETIRED
 * umasks (Intel's perfmon event files NHM-EP, SKX and ICX), the part each
 * PMU version shows, and the vPMU model's decoding of every row.
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
};

START_TEST(test_rows)
{
	ck_assert_int_eq(PMU_EV_ARCH_NR, sizeof(sdm) / sizeof(sdm[0]));
	ck_assert_int_eq(_i, sdm[_i].ev);
	ck_assert_uint_eq(pmu_event_code(sdm[_i].ev), sdm[_i].code);
	ck_assert_str_eq(pmu_event_name(sdm[_i].ev), sdm[_i].name);
	/* The same encoding on every core; EVTSEL's other bits do not take part (docs/intel-pmu.md 5). */
	for (enum pmu_core core = 0; core < PMU_CORE_NR; core++) {
		ck_assert_uint_eq(pmu_core_event_code(core, sdm[_i].ev), sdm[_i].code);
		ck_assert_int_eq(vpmu_intel_decode_event(core, sdm[_i].code | EVTSEL_EN |
							 EVTSEL_USR | EVTSEL_INT),
				 sdm[_i].ev);
	}
}
END_TEST

/*
 * BR_INST_RETIRED (0xC4) per core, by umask: the class each umask selects
 * there (perfmon's event name in the comment), PMU_EV_NONE where the core
 * has no such event.
 */
static const uint8_t umasks[] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x11, 0x20, 0x40, 0x80 };
#define NR_UMASKS	(sizeof(umasks) / sizeof(umasks[0]))
#define NONE		PMU_EV_NONE

static const enum pmu_arch_event br_inst_retired[PMU_CORE_NR][NR_UMASKS] = {
	/* Core Duo, Core 2: no perfmon file, the architectural events only. */
	[PMU_CORE_ARCH] = { NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE },
	/* Nehalem: CONDITIONAL, NEAR_CALL (ALL_BRANCHES 0x04 is not modelled). */
	[PMU_CORE_NEHALEM] = { PMU_EV_BR_COND, PMU_EV_BR_NEAR_CALL, NONE, NONE, NONE, NONE,
			       NONE, NONE, NONE },
	/*
	 * Skylake-SP: CONDITIONAL (COND), NEAR_CALL, ALL_BRANCHES_PEBS (not
	 * modelled), NEAR_RETURN, NOT_TAKEN (COND_NTAKEN), -, NEAR_TAKEN,
	 * FAR_BRANCH, -.
	 */
	[PMU_CORE_SKYLAKE] = { PMU_EV_BR_COND, PMU_EV_BR_NEAR_CALL, NONE, PMU_EV_BR_NEAR_RETURN,
			       PMU_EV_BR_COND_NTAKEN, NONE, PMU_EV_BR_NEAR_TAKEN, PMU_EV_BR_FAR,
			       NONE },
	/*
	 * Ice Lake-SP (and Sapphire Rapids): COND_TAKEN, NEAR_CALL, -,
	 * NEAR_RETURN, COND_NTAKEN, COND, NEAR_TAKEN, FAR_BRANCH, INDIRECT
	 * (not modelled).
	 */
	[PMU_CORE_ICELAKE] = { PMU_EV_BR_COND_TAKEN, PMU_EV_BR_NEAR_CALL, NONE,
			       PMU_EV_BR_NEAR_RETURN, PMU_EV_BR_COND_NTAKEN, PMU_EV_BR_COND,
			       PMU_EV_BR_NEAR_TAKEN, PMU_EV_BR_FAR, NONE },
};

/* Loop over core x umask. */
START_TEST(test_core_umasks)
{
	enum pmu_core core = _i / NR_UMASKS;
	uint64_t code = PMU_RAW_EVENT(0xc4, umasks[_i % NR_UMASKS]);
	enum pmu_arch_event ev = br_inst_retired[core][_i % NR_UMASKS];

	ck_assert_int_eq(vpmu_intel_decode_event(core, code | EVTSEL_EN | EVTSEL_OS), ev);
	if (ev != PMU_EV_NONE)
		ck_assert_uint_eq(pmu_core_event_code(core, ev), code);
}
END_TEST

/* Every model-specific event a core encodes is one of the umasks above, and no other. */
START_TEST(test_core_codes)
{
	enum pmu_core core = _i;

	for (int ev = PMU_EV_ARCH_NR; ev < PMU_EV_NR; ev++) {
		uint64_t code = pmu_core_event_code(core, ev);
		unsigned int found = 0;

		for (unsigned int u = 0; u < NR_UMASKS; u++)
			if (br_inst_retired[core][u] == ev) {
				ck_assert_uint_eq(code, PMU_RAW_EVENT(0xc4, umasks[u]));
				found++;
			}
		ck_assert_uint_eq(found, code ? 1 : 0);
	}
}
END_TEST

START_TEST(test_constants)
{
	/* CPUID.0AH:EBX order: the architectural events first, 8 of them. */
	ck_assert_int_eq(PMU_EV_ARCH_NR, 8);
	ck_assert_int_eq(PMU_EV_ARCH_NR, PMU_EV_BR_COND);
	ck_assert_int_eq(PMU_EV_ARCH_NR, PMU_EV_VECTOR_LEN);
	ck_assert_int_eq(PMU_EV_INTEL_NR, PMU_EV_ARCH_NR + 7);
	ck_assert_uint_eq(PMU_EVENT_CORE_CYCLES, 0x003c);
	ck_assert_uint_eq(PMU_EVENT_LLC_MISSES, 0x412e);
	ck_assert_uint_eq(pmu_event_code(PMU_EV_NONE), 0);
	ck_assert_uint_eq(pmu_event_code(PMU_EV_NR), 0);
	/* The model-specific events have no encoding but a core's. */
	ck_assert_uint_eq(pmu_event_code(PMU_EV_BR_COND), 0);
	ck_assert_uint_eq(pmu_core_event_code(PMU_CORE_ICELAKE, PMU_EV_NONE), 0);
	ck_assert_uint_eq(pmu_core_event_code(PMU_CORE_NR, PMU_EV_BR_COND), 0);
	ck_assert_str_eq(pmu_event_name(PMU_EV_NONE), "none");
	ck_assert_str_eq(pmu_event_name(PMU_EV_BR_COND), "br_cond");
	ck_assert_str_eq(pmu_event_name(PMU_EV_BR_COND_TAKEN), "br_cond_taken");
	ck_assert_str_eq(pmu_event_name(PMU_EV_BR_COND_NTAKEN), "br_cond_ntaken");
	ck_assert_str_eq(pmu_event_name(PMU_EV_BR_FAR), "br_far");
	/* AMD-only events follow the Intel rows and have no Intel encoding. */
	ck_assert_int_eq(PMU_EV_BR_TAKEN, PMU_EV_INTEL_NR);
	ck_assert_uint_eq(pmu_event_code(PMU_EV_BR_TAKEN), 0);
	for (enum pmu_core core = 0; core < PMU_CORE_NR; core++)
		ck_assert_uint_eq(pmu_core_event_code(core, PMU_EV_BR_TAKEN), 0);
	ck_assert_str_eq(pmu_event_name(PMU_EV_BR_TAKEN), "br_taken");
	ck_assert_int_eq(vpmu_intel_decode_event(PMU_CORE_ICELAKE, EVTSEL_EN | EVTSEL_OS),
			 PMU_EV_NONE);
	ck_assert_int_eq(vpmu_intel_decode_event(PMU_CORE_NR, PMU_EVENT_INSTRUCTIONS), PMU_EV_NONE);
}
END_TEST

/*
 * The part each PMU version shows (docs/counting.md, "CPU models") and its
 * core; a guest finds the core again from CPUID.1:EAX, whatever the
 * stepping.
 */
START_TEST(test_parts)
{
	static const struct {
		unsigned int version;
		uint32_t eax;
		enum pmu_core core;
	} parts[] = {
		{ 1, 0x000006e8, PMU_CORE_ARCH },	/* Core Duo */
		{ 2, 0x00010676, PMU_CORE_ARCH },	/* Core 2 Penryn */
		{ 3, 0x000106a5, PMU_CORE_NEHALEM },	/* Nehalem-EP */
		{ 4, 0x00050654, PMU_CORE_SKYLAKE },	/* Skylake-SP */
		{ 5, 0x000606a6, PMU_CORE_ICELAKE },	/* Ice Lake-SP */
	};

	for (unsigned int i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		ck_assert_uint_eq(pmu_intel_part_signature(parts[i].version), parts[i].eax);
		ck_assert_int_eq(pmu_intel_part_core(parts[i].version), parts[i].core);
		ck_assert_int_eq(pmu_core_of_signature(parts[i].eax), parts[i].core);
		ck_assert_int_eq(pmu_core_of_signature(parts[i].eax ^ 0xf), parts[i].core);
	}
	ck_assert_uint_eq(pmu_intel_part_signature(0), 0);
	ck_assert_uint_eq(pmu_intel_part_signature(6), 0);
	ck_assert_int_eq(pmu_intel_part_core(0), PMU_CORE_ARCH);
	/* Sapphire Rapids (6, 0x8F) and AMD Zen 4 are none of pmuvm's parts. */
	ck_assert_int_eq(pmu_core_of_signature(0x000806f8), PMU_CORE_ARCH);
	ck_assert_int_eq(pmu_core_of_signature(0x00a10f11), PMU_CORE_ARCH);
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
	for (enum pmu_core core = 0; core < PMU_CORE_NR; core++) {
		ck_assert_int_eq(vpmu_intel_decode_event(core, 0), PMU_EV_NONE);
		ck_assert_int_eq(vpmu_intel_decode_event(core, 0x003d), PMU_EV_NONE);
		ck_assert_int_eq(vpmu_intel_decode_event(core, 0xffc4), PMU_EV_NONE);
	}
}
END_TEST

static Suite *pmu_events_suite(void)
{
	Suite *s = suite_create("pmu_events");
	TCase *tc = tcase_create("table");

	tcase_add_loop_test(tc, test_rows, 0, sizeof(sdm) / sizeof(sdm[0]));
	tcase_add_loop_test(tc, test_core_umasks, 0, PMU_CORE_NR * NR_UMASKS);
	tcase_add_loop_test(tc, test_core_codes, 0, PMU_CORE_NR);
	tcase_add_test(tc, test_constants);
	tcase_add_test(tc, test_parts);
	tcase_add_test(tc, test_fixed);
	tcase_add_test(tc, test_unknown);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pmu_events_suite)
