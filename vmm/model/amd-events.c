/*
 * AMD event decoding: a PERF_CTL's 12-bit EventSelect (bits 7:0 and 35:32)
 * and UMask matched against the AMD rows of the event table
 * (include/x86-pmu/events.h).
 */
#include "internal.h"

#define AMD_EVENT_UMASK	(EVTSEL_EVENT | EVTSEL_UMASK | AMD_EVTSEL_EVENT_HI)

enum pmu_arch_event vpmu_amd_decode_event(uint64_t ctl)
{
	switch (ctl & AMD_EVENT_UMASK) {
#define AMD_EVENT_CASE_(name, sel, umask, str)	\
	case PMU_AMD_RAW_EVENT(sel, umask): return PMU_EV_##name;
	PMU_AMD_EVENTS(AMD_EVENT_CASE_)
#undef AMD_EVENT_CASE_
	default:
		return PMU_EV_NONE;
	}
}
