/* SPDX-License-Identifier: MIT */
/*
 * KPROFILE_SOURCE values and the architectural events behind them (spec
 * 4.7-4.8, the Intel "Emon" HAL table), with their sampling intervals
 * (NtSetIntervalProfile / NtQueryIntervalProfile, docs/windows-api.md 4.10).
 *
 * A source exists only while the PMU can produce it: an architectural PMU
 * with GP counters, the event inside CPUID.0AH:EAX[31:24] and its
 * CPUID.0AH:EBX bit clear (docs/windows-api.md 4.8, last column).  CPUID is read on every
 * lookup, so the answer is the processor's, not a copy.  Sources 32-36
 * (LbrInserts, the *Fixed ones, TimerFixed) have no confirmed encoding
 * (docs/windows-api.md 8.3) and are not offered; ProfileTime is the timer, not a PMC.
 */
#include "ntpmu_etw.h"
#include "x86-pmu/cpuid.h"
#include "x86-pmu/events.h"

#define NTPMU_DEFAULT_INTERVAL	65536u		/* docs/windows-api.md 4.8 [Obs] */
#define NTPMU_MIN_INTERVAL	4096u
#define NTPMU_MAX_INTERVAL	2147483647u
#define NTPMU_TIMER_INTERVAL	10000u		/* 100 ns units: 1 ms */
#define NTPMU_NR_SOURCE_IDS	32

static const struct ntpmu_source sources[] = {
	{ ProfileTotalIssues, "TotalIssues", PMU_EV_INSTRUCTIONS, PMU_EVENT_INSTRUCTIONS },
	{ ProfileBranchInstructions, "BranchInstructions", PMU_EV_BRANCHES, PMU_EVENT_BRANCHES },
	{ ProfileCacheMisses, "CacheMisses", PMU_EV_LLC_MISSES, PMU_EVENT_LLC_MISSES },
	{ ProfileBranchMispredictions, "BranchMispredictions", PMU_EV_BRANCH_MISSES,
	  PMU_EVENT_BRANCH_MISSES },
	{ ProfileTotalCycles, "TotalCycles", PMU_EV_CORE_CYCLES, PMU_EVENT_CORE_CYCLES },
	{ ProfileUnhaltedCoreCycles, "UnhaltedCoreCycles", PMU_EV_CORE_CYCLES,
	  PMU_EVENT_CORE_CYCLES },
	{ ProfileInstructionRetired, "InstructionRetired", PMU_EV_INSTRUCTIONS,
	  PMU_EVENT_INSTRUCTIONS },
	{ ProfileUnhaltedReferenceCycles, "UnhaltedReferenceCycles", PMU_EV_REF_CYCLES,
	  PMU_EVENT_REF_CYCLES },
	{ ProfileLLCReference, "LLCReference", PMU_EV_LLC_REFERENCES, PMU_EVENT_LLC_REFERENCES },
	{ ProfileLLCMisses, "LLCMisses", PMU_EV_LLC_MISSES, PMU_EVENT_LLC_MISSES },
	{ ProfileBranchInstructionRetired, "BranchInstructionRetired", PMU_EV_BRANCHES,
	  PMU_EVENT_BRANCHES },
	{ ProfileBranchMispredictsRetired, "BranchMispredictsRetired", PMU_EV_BRANCH_MISSES,
	  PMU_EVENT_BRANCH_MISSES },
};

/* Current intervals by source ID; 0 = the default. */
static ULONG intervals[NTPMU_NR_SOURCE_IDS];
static ULONG timer_interval;

bool ntpmu_event_available(unsigned int event)
{
	uint32_t r[4];

	if (!ntpmu.version || !ntpmu.nr_gp)
		return false;
	/* AMD enumerates no events: the ones it encodes (events.h) exist. */
	if (ntpmu.amd)
		return ntpmu_event_select((int)event) != 0;
	ntpmu.ops->cpuid(ntpmu.ctx, CPUID_LEAF_PMU, 0, r);
	if (event >= CPUID_0A_EAX_EVLEN(r[0]))
		return false;
	return !(r[1] >> event & 1);
}

const struct ntpmu_source *ntpmu_source_table(unsigned int *n)
{
	*n = sizeof(sources) / sizeof(sources[0]);
	return sources;
}

const struct ntpmu_source *ntpmu_source_find(ULONG id)
{
	size_t i;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (sources[i].id == id)
			return ntpmu_event_available((unsigned int)sources[i].event) ?
			       &sources[i] : NULL;
	return NULL;
}

unsigned int ntpmu_etw_max_counters(void)
{
	return ntpmu.nr_gp < NTPMU_ETW_MAX_PMC ? ntpmu.nr_gp : NTPMU_ETW_MAX_PMC;
}

ULONG ntpmu_source_interval(ULONG id)
{
	if (id == ProfileTime)
		return timer_interval ? timer_interval : NTPMU_TIMER_INTERVAL;
	if (id >= NTPMU_NR_SOURCE_IDS || !ntpmu_source_find(id))
		return 0;
	return intervals[id] ? intervals[id] : NTPMU_DEFAULT_INTERVAL;
}

void ntpmu_source_reset(void)
{
	__builtin_memset(intervals, 0, sizeof(intervals));
	timer_interval = 0;
}

/*
 * Always STATUS_SUCCESS (docs/windows-api.md 4.10): the HAL clamps a PMC interval into
 * [4096, 2147483647] and ignores sources it lacks; callers re-query.  There
 * are no privileges in the guest, so no STATUS_PRIVILEGE_NOT_HELD.  A new
 * interval applies to profile configurations made after it.
 */
NTSTATUS NTAPI NtSetIntervalProfile(ULONG Interval, KPROFILE_SOURCE Source)
{
	unsigned long flags = ntpmu_lock();

	if (Source == ProfileTime) {
		timer_interval = Interval ? Interval : NTPMU_TIMER_INTERVAL;
	} else if ((ULONG)Source < NTPMU_NR_SOURCE_IDS && ntpmu_source_find(Source)) {
		if (Interval < NTPMU_MIN_INTERVAL)
			Interval = NTPMU_MIN_INTERVAL;
		if (Interval > NTPMU_MAX_INTERVAL)
			Interval = NTPMU_MAX_INTERVAL;
		intervals[Source] = Interval;
	}
	ntpmu_unlock(flags);
	return STATUS_SUCCESS;
}

/* An unsupported source reports 0, still STATUS_SUCCESS (docs/windows-api.md 4.10). */
NTSTATUS NTAPI NtQueryIntervalProfile(KPROFILE_SOURCE Source, PULONG Interval)
{
	unsigned long flags;

	if (!Interval)
		return STATUS_ACCESS_VIOLATION;
	flags = ntpmu_lock();
	*Interval = ntpmu_source_interval(Source);
	ntpmu_unlock(flags);
	return STATUS_SUCCESS;
}
