/*
 * AMD event decoding: a PERF_CTL's 12-bit EventSelect (bits 7:0 and 35:32)
 * and UMask matched against the AMD rows of the event table
 * (include/pmu/events.h), and the host/guest qualifiers.
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

/*
 * HostOnly (41) and GuestOnly (40) qualify counting by SVM mode. pmuvm's
 * guests never run SVM guests of their own (EFER.SVME stays 0), and with
 * SVM off a counter with only one of the two set counts nothing (Linux
 * arch/x86/events/amd/core.c, amd_pmu_disable_virt(): "If someone sets up
 * a guest-only counter when SVM is disabled ... the counter will not count
 * anything", and it clears HostOnly so that host-only counting works);
 * both set is the same as neither (amd_core_hw_config()).
 */
bool vpmu_amd_gp_counts(uint64_t ctl)
{
	return !(ctl & AMD_EVTSEL_GUESTONLY) == !(ctl & AMD_EVTSEL_HOSTONLY);
}
