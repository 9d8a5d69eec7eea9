/* SPDX-License-Identifier: MIT */
/*
 * The performance events pmuvm knows, in one set of tables.  Everything
 * else here (the event enum, the PMU_EVENT_* encodings, the lookups below)
 * and every user (the vPMU model, ntpmu's Perflib provider, the vPMU
 * fuzzer, the test guests) is expanded from them, so an encoding exists
 * once.
 *
 * An architectural row is X(NAME, EventSelect, UMask, short name, fixed
 * counter): the event PMU_EV_NAME, its IA32_PERFEVTSELx bits 7:0 and 15:8,
 * a short lower-case name for messages, and the fixed counter that counts
 * it (-1: none; SDM vol. 3B 18.2.2, fixed-function counters).  The
 * model-specific events are encoded per core (PMU_CORE_EVENTS), and each
 * PMU version's part names its core (PMU_INTEL_PARTS).
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
 * Model-specific event classes the exact source counts from decoding:
 * X(NAME, short name).  Not in CPUID.0AH:EBX.  Which EventSelect/UMask
 * selects each depends on the core (PMU_CORE_EVENTS below); the names are
 * Intel's BR_INST_RETIRED ones.
 */
#define PMU_MODEL_EVENTS(X)							\
	X(BR_COND,		"br_cond")		/* COND (all conditional) */ \
	X(BR_COND_TAKEN,	"br_cond_taken")	/* COND_TAKEN */ \
	X(BR_COND_NTAKEN,	"br_cond_ntaken")	/* COND_NTAKEN (Skylake: NOT_TAKEN) */ \
	X(BR_NEAR_CALL,		"br_near_call")		/* NEAR_CALL */ \
	X(BR_NEAR_RETURN,	"br_near_return")	/* NEAR_RETURN */ \
	X(BR_NEAR_TAKEN,	"br_near_taken")	/* NEAR_TAKEN */ \
	X(BR_FAR,		"br_far")		/* FAR_BRANCH */

/*
 * The Intel cores whose model-specific encodings differ (docs/counting.md,
 * "CPU models"); the architectural events are the same on all of them.
 */
enum pmu_core {
	PMU_CORE_ARCH,		/* Core Duo, Core 2: the architectural events only */
	PMU_CORE_NEHALEM,	/* Nehalem (Intel perfmon NHM-EP) */
	PMU_CORE_SKYLAKE,	/* Skylake-SP, Cascade Lake (perfmon SKX, CLX) */
	PMU_CORE_ICELAKE,	/* Ice Lake-SP, Sapphire Rapids (perfmon ICX, SPR) */
	PMU_CORE_NR,
};

/*
 * Each core's encodings of the model-specific events, from Intel's perfmon
 * event files for that core: X(core, NAME, EventSelect, UMask).  Sunny
 * Cove (Ice Lake) gave BR_INST_RETIRED's umask 0x01 to COND_TAKEN and
 * moved COND to 0x11 (0x01 | COND_NTAKEN's 0x10); an encoding with no row
 * for a core is no event there and counts nothing.
 */
#define PMU_CORE_EVENTS(X)							\
	X(NEHALEM,	BR_COND,	0xc4, 0x01)	/* CONDITIONAL */	\
	X(NEHALEM,	BR_NEAR_CALL,	0xc4, 0x02)	/* NEAR_CALL */		\
	X(SKYLAKE,	BR_COND,	0xc4, 0x01)	/* CONDITIONAL (COND) */ \
	X(SKYLAKE,	BR_NEAR_CALL,	0xc4, 0x02)	/* NEAR_CALL */		\
	X(SKYLAKE,	BR_NEAR_RETURN,	0xc4, 0x08)	/* NEAR_RETURN */	\
	X(SKYLAKE,	BR_COND_NTAKEN,	0xc4, 0x10)	/* NOT_TAKEN (COND_NTAKEN) */ \
	X(SKYLAKE,	BR_NEAR_TAKEN,	0xc4, 0x20)	/* NEAR_TAKEN */	\
	X(SKYLAKE,	BR_FAR,		0xc4, 0x40)	/* FAR_BRANCH */	\
	X(ICELAKE,	BR_COND_TAKEN,	0xc4, 0x01)	/* COND_TAKEN */	\
	X(ICELAKE,	BR_NEAR_CALL,	0xc4, 0x02)	/* NEAR_CALL */		\
	X(ICELAKE,	BR_NEAR_RETURN,	0xc4, 0x08)	/* NEAR_RETURN */	\
	X(ICELAKE,	BR_COND_NTAKEN,	0xc4, 0x10)	/* COND_NTAKEN */	\
	X(ICELAKE,	BR_COND,	0xc4, 0x11)	/* COND */		\
	X(ICELAKE,	BR_NEAR_TAKEN,	0xc4, 0x20)	/* NEAR_TAKEN */	\
	X(ICELAKE,	BR_FAR,		0xc4, 0x40)	/* FAR_BRANCH */

/*
 * The Intel part pmuvm shows for each architectural PMU version and its
 * core (docs/counting.md, "CPU models"): X(version, CPUID.1:EAX, core,
 * brand name). The signature, the brand string and the encodings the model
 * decodes come from one row.
 */
#define PMU_INTEL_PARTS(X)							\
	X(1, 0x000006e8, ARCH, "Genuine Intel(R) CPU T2400")		/* 6/0x0e: Core Duo */ \
	X(2, 0x00010676, ARCH, "Intel(R) Core(TM)2 Duo CPU E8400")	/* 6/0x17: Core 2 (Penryn) */ \
	X(3, 0x000106a5, NEHALEM, "Intel(R) Xeon(R) CPU X5570")	/* 6/0x1a: Nehalem-EP */ \
	X(4, 0x00050654, SKYLAKE, "Intel(R) Xeon(R) Platinum 8180 CPU") /* 6/0x55: Skylake-SP */ \
	X(5, 0x000606a6, ICELAKE, "Intel(R) Xeon(R) Platinum 8380 CPU") /* 6/0x6a: Ice Lake-SP */

/*
 * Events only AMD encodes (no Intel row above): X(NAME, short name).
 * Retired taken branches, near and far (AMD PMCx0C4).
 */
#define PMU_AMD_ONLY_EVENTS(X)							\
	X(BR_TAKEN,		"br_taken")

#define PMU_EV_ENUM_(name, sel, umask, str, fixed)	PMU_EV_##name,
#define PMU_EV_ENUM2_(name, str)			PMU_EV_##name,
enum pmu_arch_event {
	PMU_ARCH_EVENTS(PMU_EV_ENUM_)
	PMU_MODEL_EVENTS(PMU_EV_ENUM2_)
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
#define PMU_EV_COUNT2_(name, str)			+ 1
#define PMU_EV_ARCH_NR	(0 PMU_ARCH_EVENTS(PMU_EV_COUNT_))

/* The events with an Intel encoding come first: PMU_EV_BR_TAKEN == PMU_EV_INTEL_NR. */
#define PMU_EV_INTEL_NR	(PMU_EV_ARCH_NR PMU_MODEL_EVENTS(PMU_EV_COUNT2_))

/* Length of the CPUID.0AH:EBX event vector we report (Linux needs >= 7). */
#define PMU_EV_VECTOR_LEN	8

#define PMU_RAW_EVENT(sel, umask)	((uint64_t)(sel) | ((uint64_t)(umask) << 8))

/*
 * PMU_EVENT_<NAME>: the EventSelect | UMask << 8 of each architectural
 * event, for EVTSEL writes (the model-specific ones: pmu_core_event_code()).
 */
#define PMU_EVENT_CODE_(name, sel, umask, str, fixed)	PMU_EVENT_##name = PMU_RAW_EVENT(sel, umask),
enum pmu_event_code {
	PMU_ARCH_EVENTS(PMU_EVENT_CODE_)
};
#undef PMU_EVENT_CODE_

/* EventSelect | UMask << 8 of architectural event @ev; 0 for any other value. */
static inline uint64_t pmu_event_code(int ev)
{
	switch (ev) {
#define PMU_EV_CODE_CASE_(name, sel, umask, str, fixed)	\
	case PMU_EV_##name: return PMU_RAW_EVENT(sel, umask);
	PMU_ARCH_EVENTS(PMU_EV_CODE_CASE_)
#undef PMU_EV_CODE_CASE_
	default: return 0;
	}
}

/*
 * EventSelect | UMask << 8 of @ev on @core: the architectural encoding or
 * the core's row; 0 if @ev has none there.
 */
static inline uint64_t pmu_core_event_code(enum pmu_core core, int ev)
{
#define PMU_CORE_CODE_(c, name, sel, umask)			\
	if (core == PMU_CORE_##c && ev == PMU_EV_##name)	\
		return PMU_RAW_EVENT(sel, umask);
	PMU_CORE_EVENTS(PMU_CORE_CODE_)
#undef PMU_CORE_CODE_
	return pmu_event_code(ev);
}

/* The short name of @ev; "none" for a value that is no event. */
static inline const char *pmu_event_name(int ev)
{
	switch (ev) {
#define PMU_EV_NAME_CASE_(name, sel, umask, str, fixed)	\
	case PMU_EV_##name: return str;
	PMU_ARCH_EVENTS(PMU_EV_NAME_CASE_)
#undef PMU_EV_NAME_CASE_
#define PMU_EV_NAME_CASE2_(name, str)	\
	case PMU_EV_##name: return str;
	PMU_MODEL_EVENTS(PMU_EV_NAME_CASE2_)
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
	PMU_ARCH_EVENTS(PMU_EV_FIXED_)
#undef PMU_EV_FIXED_
	return PMU_EV_NONE;
}

/* CPUID.1:EAX of the part pmuvm shows for Intel PMU @version; 0 for no such version. */
static inline uint32_t pmu_intel_part_signature(unsigned int version)
{
#define PMU_PART_SIG_(v, sig, core, brand)	\
	if (version == (v))		\
		return sig;
	PMU_INTEL_PARTS(PMU_PART_SIG_)
#undef PMU_PART_SIG_
	return 0;
}

/*
 * The processor brand string's name (CPUID.80000002H-80000004H, SDM vol. 2A
 * CPUID) of the part pmuvm shows for Intel PMU @version, without the
 * " @ frequency" Intel appends; NULL for no such version.
 */
static inline const char *pmu_intel_part_brand(unsigned int version)
{
#define PMU_PART_BRAND_(v, sig, core, brand)	\
	if (version == (v))			\
		return brand;
	PMU_INTEL_PARTS(PMU_PART_BRAND_)
#undef PMU_PART_BRAND_
	return 0;
}

/* The core of the part pmuvm shows for Intel PMU @version (PMU_CORE_ARCH for none). */
static inline enum pmu_core pmu_intel_part_core(unsigned int version)
{
#define PMU_PART_CORE_(v, sig, core, brand)	\
	if (version == (v))		\
		return PMU_CORE_##core;
	PMU_INTEL_PARTS(PMU_PART_CORE_)
#undef PMU_PART_CORE_
	return PMU_CORE_ARCH;
}

/* CPUID.1:EAX's family and model fields (SDM vol. 2A, CPUID): stepping and type aside. */
#define PMU_SIGNATURE_FAMILY_MODEL	0x0fff0ff0u

/*
 * The core of the part CPUID.1:EAX @eax names, for a guest choosing its
 * encodings as tools do: one of pmuvm's parts by family and model, else
 * PMU_CORE_ARCH (architectural events only).
 */
static inline enum pmu_core pmu_core_of_signature(uint32_t eax)
{
#define PMU_SIG_CORE_(v, sig, core, brand)				\
	if (((eax ^ (sig)) & PMU_SIGNATURE_FAMILY_MODEL) == 0)		\
		return PMU_CORE_##core;
	PMU_INTEL_PARTS(PMU_SIG_CORE_)
#undef PMU_SIG_CORE_
	return PMU_CORE_ARCH;
}

#endif
