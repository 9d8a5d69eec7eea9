/*
 * Event table (spec 5, 3.7): the EventSelect/UMask encoding of each
 * CPUID.0AH:EBX event and of the model-specific branch events the exact
 * source can count (events.h), and the fixed event of each fixed counter.
 */
#include "internal.h"

static const uint64_t event_code[PMU_EV_NR] = {
	[PMU_EV_CORE_CYCLES]	= PMU_EVENT_CORE_CYCLES,	/* UnHalted Core Cycles */
	[PMU_EV_INSTRUCTIONS]	= PMU_EVENT_INSTRUCTIONS,	/* Instructions Retired */
	[PMU_EV_REF_CYCLES]	= PMU_EVENT_REF_CYCLES,		/* UnHalted Reference Cycles */
	[PMU_EV_LLC_REFERENCES]	= PMU_EVENT_LLC_REFERENCES,	/* LLC Reference */
	[PMU_EV_LLC_MISSES]	= PMU_EVENT_LLC_MISSES,		/* LLC Misses */
	[PMU_EV_BRANCHES]	= PMU_EVENT_BRANCHES,		/* Branch Instruction Retired */
	[PMU_EV_BRANCH_MISSES]	= PMU_EVENT_BRANCH_MISSES,	/* Branch Misses Retired */
	[PMU_EV_TOPDOWN_SLOTS]	= PMU_EVENT_TOPDOWN_SLOTS,	/* Topdown Slots */
	[PMU_EV_BR_COND]	= PMU_EVENT_BR_COND,
	[PMU_EV_BR_NEAR_CALL]	= PMU_EVENT_BR_NEAR_CALL,
	[PMU_EV_BR_NEAR_RETURN]	= PMU_EVENT_BR_NEAR_RETURN,
	[PMU_EV_BR_NOT_TAKEN]	= PMU_EVENT_BR_NOT_TAKEN,
	[PMU_EV_BR_NEAR_TAKEN]	= PMU_EVENT_BR_NEAR_TAKEN,
	[PMU_EV_BR_FAR]		= PMU_EVENT_BR_FAR,
};

static const enum pmu_arch_event fixed_event[VPMU_MAX_FIXED] = {
	PMU_EV_INSTRUCTIONS,	/* FC0 INST_RETIRED.ANY */
	PMU_EV_CORE_CYCLES,	/* FC1 CPU_CLK_UNHALTED.THREAD */
	PMU_EV_REF_CYCLES,	/* FC2 CPU_CLK_UNHALTED.REF_TSC */
	PMU_EV_TOPDOWN_SLOTS,	/* FC3 TOPDOWN.SLOTS */
};

/* Like KVM, match on event select + umask only (spec 5). */
enum pmu_arch_event vpmu_decode_event(uint64_t evtsel)
{
	int ev;

	for (ev = 0; ev < PMU_EV_NR; ev++)
		if (event_code[ev] == (evtsel & EVTSEL_EVENT_UMASK))
			return ev;
	return PMU_EV_NONE;
}

enum pmu_arch_event vpmu_gp_event(const struct vpmu *pmu, unsigned int idx)
{
	if (idx >= pmu->cfg.nr_gp)
		return PMU_EV_NONE;
	return vpmu_decode_event(pmu->gp[idx].ctl);
}

enum pmu_arch_event vpmu_fixed_event(unsigned int idx)
{
	if (idx >= VPMU_MAX_FIXED)
		return PMU_EV_NONE;
	return fixed_event[idx];
}
