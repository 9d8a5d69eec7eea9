/*
 * Event decoding (docs/intel-pmu.md 5, 3.7): the EventSelect/UMask encoding of each
 * CPUID.0AH:EBX event and of the model-specific branch events the exact
 * source can count, and the fixed event of each fixed counter, both from
 * the event table (include/x86-pmu/events.h).
 */
#include "internal.h"

#define EVENT_CODE(name, sel, umask, str, fixed)	[PMU_EV_##name] = PMU_RAW_EVENT(sel, umask),
static const uint64_t event_code[PMU_EV_NR] = {
	PMU_EVENTS(EVENT_CODE)
};
#undef EVENT_CODE

/* Every fixed counter of the table is one the model has. */
#define FIXED_IN_RANGE(name, sel, umask, str, fixed)	\
	_Static_assert((fixed) < VPMU_MAX_FIXED, #name ": fixed counter out of range");
PMU_EVENTS(FIXED_IN_RANGE)
#undef FIXED_IN_RANGE

/* Like KVM, match on event select + umask only (docs/intel-pmu.md 5). */
enum pmu_arch_event vpmu_decode_event(uint64_t evtsel)
{
	int ev;

	for (ev = 0; ev < PMU_EV_NR; ev++)
		if (event_code[ev] && event_code[ev] == (evtsel & EVTSEL_EVENT_UMASK))
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
	return pmu_fixed_event(idx);
}
