/*
 * Architectural performance events (SDM table 18-1; spec section 5).
 * The enum order is ABI: it is the CPUID.0AH:EBX bit index.
 */
#ifndef PMU_EVENTS_H
#define PMU_EVENTS_H

#include <stdint.h>

enum pmu_arch_event {
	PMU_EV_CORE_CYCLES = 0,		/* 0x3c/0x00, fixed counter 1 */
	PMU_EV_INSTRUCTIONS = 1,	/* 0xc0/0x00, fixed counter 0 */
	PMU_EV_REF_CYCLES = 2,		/* 0x3c/0x01, fixed counter 2 (TSC rate) */
	PMU_EV_LLC_REFERENCES = 3,	/* 0x2e/0x4f */
	PMU_EV_LLC_MISSES = 4,		/* 0x2e/0x41 */
	PMU_EV_BRANCHES = 5,		/* 0xc4/0x00 */
	PMU_EV_BRANCH_MISSES = 6,	/* 0xc5/0x00 */
	PMU_EV_TOPDOWN_SLOTS = 7,	/* 0xa4/0x01, fixed counter 3 */
	PMU_EV_ARCH_NR,
	/*
	 * Model-specific events the exact source counts from decoding:
	 * BR_INST_RETIRED umasks with their Skylake-family encodings (SDM
	 * vol. 3B, the Skylake event table).  Not in CPUID.0AH:EBX.
	 */
	PMU_EV_BR_COND = PMU_EV_ARCH_NR,	/* 0xc4/0x01 CONDITIONAL */
	PMU_EV_BR_NEAR_CALL,		/* 0xc4/0x02 NEAR_CALL */
	PMU_EV_BR_NEAR_RETURN,		/* 0xc4/0x08 NEAR_RETURN */
	PMU_EV_BR_NOT_TAKEN,		/* 0xc4/0x10 NOT_TAKEN (conditional) */
	PMU_EV_BR_NEAR_TAKEN,		/* 0xc4/0x20 NEAR_TAKEN */
	PMU_EV_BR_FAR,			/* 0xc4/0x40 FAR_BRANCH */
	PMU_EV_NR,
	PMU_EV_NONE = -1,
};

/* Length of the CPUID.0AH:EBX event vector we report (Linux needs >= 7). */
#define PMU_EV_VECTOR_LEN	8

#define PMU_RAW_EVENT(sel, umask)	((uint64_t)(sel) | ((uint64_t)(umask) << 8))

#define PMU_EVENT_CORE_CYCLES		PMU_RAW_EVENT(0x3c, 0x00)
#define PMU_EVENT_INSTRUCTIONS		PMU_RAW_EVENT(0xc0, 0x00)
#define PMU_EVENT_REF_CYCLES		PMU_RAW_EVENT(0x3c, 0x01)
#define PMU_EVENT_LLC_REFERENCES	PMU_RAW_EVENT(0x2e, 0x4f)
#define PMU_EVENT_LLC_MISSES		PMU_RAW_EVENT(0x2e, 0x41)
#define PMU_EVENT_BRANCHES		PMU_RAW_EVENT(0xc4, 0x00)
#define PMU_EVENT_BRANCH_MISSES		PMU_RAW_EVENT(0xc5, 0x00)
#define PMU_EVENT_TOPDOWN_SLOTS		PMU_RAW_EVENT(0xa4, 0x01)
#define PMU_EVENT_BR_COND		PMU_RAW_EVENT(0xc4, 0x01)
#define PMU_EVENT_BR_NEAR_CALL		PMU_RAW_EVENT(0xc4, 0x02)
#define PMU_EVENT_BR_NEAR_RETURN	PMU_RAW_EVENT(0xc4, 0x08)
#define PMU_EVENT_BR_NOT_TAKEN		PMU_RAW_EVENT(0xc4, 0x10)
#define PMU_EVENT_BR_NEAR_TAKEN		PMU_RAW_EVENT(0xc4, 0x20)
#define PMU_EVENT_BR_FAR		PMU_RAW_EVENT(0xc4, 0x40)

#endif
