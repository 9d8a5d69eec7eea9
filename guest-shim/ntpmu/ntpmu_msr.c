/* SPDX-License-Identifier: MIT */
/*
 * Event encodings by CPU vendor (the MSRs: ntpmu_internal.h), so that every
 * Windows call programs the counters of the PMU the guest has.
 */
#include "ntpmu_internal.h"
#include "x86-pmu/events.h"

uint64_t ntpmu_event_select(int ev)
{
	if (!ntpmu.amd)
		return pmu_event_code(ev);
	switch (ev) {
#define AMD_SELECT_(name, sel, umask, str)	\
	case PMU_EV_##name: return PMU_AMD_RAW_EVENT(sel, umask);
	PMU_AMD_EVENTS(AMD_SELECT_)
#undef AMD_SELECT_
	default:
		return 0;
	}
}
