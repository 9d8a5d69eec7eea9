/* SPDX-License-Identifier: MIT */
/*
 * The performance events pmuvm knows, in one table.  Everything else here
 * (the event enum, the PMU_EVENT_* encodings, the lookups below) and every
 * user (the vPMU model, ntpmu's Perflib provider, the vPMU fuzzer) is
 * expanded from it, so an encoding exists once.
 *
 * A row is X(NAME, EventSelect, UMask, short name, fixed counter): the
 * event PMU_EV_NAME, its IA32_PERFEVTSELx bits 7:0 and 15:8, a short
 * lower-case name for messages, and the fixed counter that counts it
 * (-1: none; SDM vol. 3B 18.2.2, fixed-function counters).
 */
#ifndef X86_PMU_EVENTS_H
#define X86_PMU_EVENTS_H

#include <stdint.h>

/*
 * The architectural events (SDM vol. 3B table 18-1; docs/intel-pmu.md 5), in
 * CPUID.0AH:EBX bit order: the enum order is ABI.
 */
#define PMU_ARCH_EVENTS(X)							\
	X(CORE_CYCLES,		0x3c, 0x00, "core_cycles",	1)	/* UnHalted Core Cycles */ \
	X(INSTRUCTIONS,		0xc0, 0x00, "instructions",	0)	/* Instructions Retired */ \
	X(REF_CYCLES,		0x3c, 0x01, "ref_cycles",	2)	/* UnHalted Reference Cycles (TSC rate) */ \
	X(LLC_REFERENCES,	0x2e, 0x4f, "llc_references",	-1)	/* LLC Reference */ \
	X(LLC_MISSES,		0x2e, 0x41, "llc_misses",	-1)	/* LLC Misses */ \
	X(BRANCHES,		0xc4, 0x00, "branches",		-1)	/* Branch Instruction Retired */ \
	X(BRANCH_MISSES,	0xc5, 0x00, "branch_misses",	-1)	/* Branch Misses Retired */ \
	X(TOPDOWN_SLOTS,	0xa4, 0x01, "topdown_slots",	3)	/* Topdown Slots */

/*
 * Model-specific events the exact source counts from decoding:
 * BR_INST_RETIRED umasks with their Skylake-family encodings (SDM vol. 3B,
 * the Skylake event table).  Not in CPUID.0AH:EBX.
 */
#define PMU_MODEL_EVENTS(X)							\
	X(BR_COND,		0xc4, 0x01, "br_cond",		-1)	/* CONDITIONAL */ \
	X(BR_NEAR_CALL,		0xc4, 0x02, "br_near_call",	-1)	/* NEAR_CALL */ \
	X(BR_NEAR_RETURN,	0xc4, 0x08, "br_near_return",	-1)	/* NEAR_RETURN */ \
	X(BR_NOT_TAKEN,		0xc4, 0x10, "br_not_taken",	-1)	/* NOT_TAKEN (conditional) */ \
	X(BR_NEAR_TAKEN,	0xc4, 0x20, "br_near_taken",	-1)	/* NEAR_TAKEN */ \
	X(BR_FAR,		0xc4, 0x40, "br_far",		-1)	/* FAR_BRANCH */

#define PMU_EVENTS(X)	PMU_ARCH_EVENTS(X) PMU_MODEL_EVENTS(X)

/*
 * Events only AMD encodes (no Intel row above): X(NAME, short name).
 * Retired taken branches, near and far (AMD PMCx0C4).
 */
#define PMU_AMD_ONLY_EVENTS(X)							\
	X(BR_TAKEN,		"br_taken")

#define PMU_EV_ENUM_(name, sel, umask, str, fixed)	PMU_EV_##name,
#define PMU_EV_ENUM2_(name, str)			PMU_EV_##name,
enum pmu_arch_event {
	PMU_EVENTS(PMU_EV_ENUM_)
	PMU_AMD_ONLY_EVENTS(PMU_EV_ENUM2_)
	PMU_EV_NR,
	PMU_EV_NONE = -1,
};
#undef PMU_EV_ENUM_
#undef PMU_EV_ENUM2_

/*
 * The AMD core events pmuvm's sources produce (AMD PPR for family 19h,
 * "Core Performance Monitor Counters"; the AMD64 APM vol. 2 13.2): a row is
 * X(pmuvm event, EventSelect (12 bits: PERF_CTL bits 7:0 and 35:32),
 * UMask, AMD's name).  AMD has no fixed counters and no reference cycles.
 */
#define PMU_AMD_EVENTS(X)							\
	X(CORE_CYCLES,		0x076, 0x00, "Cycles not in Halt")		\
	X(INSTRUCTIONS,		0x0c0, 0x00, "Retired Instructions")		\
	X(BRANCHES,		0x0c2, 0x00, "Retired Branch Instructions")	\
	X(BR_TAKEN,		0x0c4, 0x00, "Retired Taken Branch Instructions") \
	X(BR_FAR,		0x0c6, 0x00, "Retired Far Control Transfers")	\
	X(BR_NEAR_RETURN,	0x0c8, 0x00, "Retired Near Returns")		\
	X(BR_COND,		0x0d1, 0x00, "Retired Conditional Branch Instructions")

/* PERF_CTL bits of an AMD EventSelect and UMask. */
#define PMU_AMD_RAW_EVENT(sel, umask)						\
	(((uint64_t)(sel) & 0xff) | ((uint64_t)(umask) << 8) |		\
	 (((uint64_t)(sel) >> 8) << 32))

/* PMU_AMD_EVENT_<NAME>: PERF_CTL event bits of each AMD row. */
#define PMU_AMD_EVENT_CODE_(name, sel, umask, str)	\
	PMU_AMD_EVENT_##name = PMU_AMD_RAW_EVENT(sel, umask),
enum pmu_amd_event_code {
	PMU_AMD_EVENTS(PMU_AMD_EVENT_CODE_)
};
#undef PMU_AMD_EVENT_CODE_

/* The architectural events are the first rows: PMU_EV_BR_COND == PMU_EV_ARCH_NR. */
#define PMU_EV_COUNT_(name, sel, umask, str, fixed)	+ 1
#define PMU_EV_ARCH_NR	(0 PMU_ARCH_EVENTS(PMU_EV_COUNT_))

/* The events with an Intel encoding come first: PMU_EV_BR_TAKEN == PMU_EV_INTEL_NR. */
#define PMU_EV_INTEL_NR	(0 PMU_EVENTS(PMU_EV_COUNT_))

/* Length of the CPUID.0AH:EBX event vector we report (Linux needs >= 7). */
#define PMU_EV_VECTOR_LEN	8

#define PMU_RAW_EVENT(sel, umask)	((uint64_t)(sel) | ((uint64_t)(umask) << 8))

/* PMU_EVENT_<NAME>: the EventSelect | UMask << 8 of each row, for EVTSEL writes. */
#define PMU_EVENT_CODE_(name, sel, umask, str, fixed)	PMU_EVENT_##name = PMU_RAW_EVENT(sel, umask),
enum pmu_event_code {
	PMU_EVENTS(PMU_EVENT_CODE_)
};
#undef PMU_EVENT_CODE_

/* EventSelect | UMask << 8 of @ev; 0 for a value that is no event. */
static inline uint64_t pmu_event_code(int ev)
{
	switch (ev) {
#define PMU_EV_CODE_CASE_(name, sel, umask, str, fixed)	\
	case PMU_EV_##name: return PMU_RAW_EVENT(sel, umask);
	PMU_EVENTS(PMU_EV_CODE_CASE_)
#undef PMU_EV_CODE_CASE_
	default: return 0;
	}
}

/* The short name of @ev; "none" for a value that is no event. */
static inline const char *pmu_event_name(int ev)
{
	switch (ev) {
#define PMU_EV_NAME_CASE_(name, sel, umask, str, fixed)	\
	case PMU_EV_##name: return str;
	PMU_EVENTS(PMU_EV_NAME_CASE_)
#undef PMU_EV_NAME_CASE_
#define PMU_EV_NAME_CASE2_(name, str)	\
	case PMU_EV_##name: return str;
	PMU_AMD_ONLY_EVENTS(PMU_EV_NAME_CASE2_)
#undef PMU_EV_NAME_CASE2_
	default: return "none";
	}
}

/* The event fixed counter @idx counts; PMU_EV_NONE if none does. */
static inline enum pmu_arch_event pmu_fixed_event(unsigned int idx)
{
#define PMU_EV_FIXED_(name, sel, umask, str, fixed)	\
	if ((fixed) >= 0 && idx == (unsigned int)(fixed))	\
		return PMU_EV_##name;
	PMU_EVENTS(PMU_EV_FIXED_)
#undef PMU_EV_FIXED_
	return PMU_EV_NONE;
}

#endif
