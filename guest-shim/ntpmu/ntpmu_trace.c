/* SPDX-License-Identifier: MIT */
/*
 * TraceSetInformation / TraceQueryInformation for the PMC classes (docs/windows-api.md 4.4,
 * sechost of Windows 10; Win32 codes through RtlNtStatusToDosError).
 *
 * Set:   5 TraceSampledProfileIntervalInfo, 6 TraceProfileSourceConfigInfo
 *        (kernel 0x0C), 8 TracePmcEventListInfo (kernel 0x0E),
 *        9 TracePmcCounterListInfo (kernel 0x0F).
 * Query: 5, 7 TraceProfileSourceListInfo, 22 TraceMaxPmcCounterQuery,
 *        25 TracePmcCounterOwners, 27 TracePmcSessionInformation
 *        (ntpmu_trace_pmc.c, with their rules).
 * Anything else is ERROR_NOT_SUPPORTED.
 *
 * Status precedence for set 8 (docs/windows-api.md 4.4):
 *   1. length not whole CLASSIC_EVENT_IDs (0x18), or more than
 *      ETW_MAX_PMC_EVENTS (4) of them            ERROR_INCORRECT_SIZE
 *   2. no entries with a buffer, or entries with a NULL buffer (choice)
 *                                                ERROR_INVALID_PARAMETER
 *   3. the kernel list cannot be allocated       ERROR_OUTOFMEMORY
 *   4. the kernel's 0x0E answer (ntpmu_etw.c), which refuses a logger
 *      other than the NT Kernel Logger           ERROR_INVALID_PARAMETER
 * A known class GUID becomes hook ID (group << 8 | Type); unknown GUIDs
 * are dropped without error (possibly leaving an empty list, which is
 * forwarded: counters then ride on no event).
 *
 * Choices: the per-call source cap of classes 6 and 9 is 8, the Windows 10
 * 1703 ETW_MAX_PMC_COUNTERS (docs/windows-api.md 4.4 note and 8.7 leave the current value
 * open), so larger PMUs are limited by the kernel rule (the PMU's count);
 * class 5 with ProfileTime stores the timer interval through
 * NtSetIntervalProfile (there is no timer profiling to configure); a too
 * small query buffer for class 7 is ERROR_BAD_LENGTH with the size needed
 * in *ReturnLength.
 */
#include "ntpmu_etw.h"

#define TRACE_MAX_PMC_SOURCES	8
#define TIMER_MIN_INTERVAL	1221u		/* docs/windows-api.md 4.8 [Obs] */
#define TIMER_MAX_INTERVAL	1000000u
#define PMC_MIN_INTERVAL	4096u
#define PMC_MAX_INTERVAL	2147483647u

static ULONG set_interval(TRACEHANDLE h, PVOID info, ULONG len)
{
	TRACE_PROFILE_INTERVAL ti;

	if (h)
		return ERROR_INVALID_PARAMETER;
	if (len != sizeof(ti))
		return ERROR_BAD_LENGTH;
	if (!info)
		return ERROR_INVALID_PARAMETER;
	__builtin_memcpy(&ti, info, sizeof(ti));
	return RtlNtStatusToDosError(NtSetIntervalProfile(ti.Interval, (KPROFILE_SOURCE)ti.Source));
}

static ULONG set_sources(TRACEHANDLE h, EVENT_TRACE_INFORMATION_CLASS cls, PVOID info, ULONG len)
{
	EVENT_TRACE_PROFILE_COUNTER_INFORMATION *k;
	ULONG klen, n = len / sizeof(ULONG);
	NTSTATUS st;

	if (len % sizeof(ULONG) || n > TRACE_MAX_PMC_SOURCES)
		return ERROR_INCORRECT_SIZE;
	if (!n || !info)
		return ERROR_INVALID_PARAMETER;
	klen = (ULONG)offsetof(EVENT_TRACE_PROFILE_COUNTER_INFORMATION, ProfileSource) + len;
	k = ntpmu.ops->zalloc(ntpmu.ctx, klen);
	if (!k)
		return ERROR_OUTOFMEMORY;
	k->EventTraceInformationClass = cls;
	k->TraceHandle = h;
	__builtin_memcpy(k->ProfileSource, info, len);
	st = NtSetSystemInformation(SystemPerformanceTraceInformation, k, klen);
	ntpmu.ops->free(ntpmu.ctx, k);
	return RtlNtStatusToDosError(st);
}

static const struct classic_group {
	GUID guid;
	USHORT group;
} classic_groups[] = {
	{ NTPMU_DISKIO_GUID, EVENT_TRACE_GROUP_IO },
	{ NTPMU_PAGEFAULT_GUID, EVENT_TRACE_GROUP_MEMORY },
	{ NTPMU_PROCESS_GUID, EVENT_TRACE_GROUP_PROCESS },
	{ NTPMU_FILEIO_GUID, EVENT_TRACE_GROUP_FILE },
	{ NTPMU_THREAD_GUID, EVENT_TRACE_GROUP_THREAD },
	{ NTPMU_TCPIP_GUID, EVENT_TRACE_GROUP_TCPIP },
	{ NTPMU_UDPIP_GUID, EVENT_TRACE_GROUP_UDPIP },
	{ NTPMU_REGISTRY_GUID, EVENT_TRACE_GROUP_REGISTRY },
	{ NTPMU_PERFINFO_GUID, EVENT_TRACE_GROUP_PERFINFO },
};

/* The group of a known class GUID, -1 if unknown. */
static int classic_group(const GUID *g)
{
	unsigned int i;

	for (i = 0; i < sizeof(classic_groups) / sizeof(classic_groups[0]); i++)
		if (!__builtin_memcmp(&classic_groups[i].guid, g, sizeof(*g)))
			return classic_groups[i].group;
	return -1;
}

static ULONG set_event_list(TRACEHANDLE h, PVOID info, ULONG len)
{
	EVENT_TRACE_SYSTEM_EVENT_INFORMATION *k;
	const ULONG hdr = (ULONG)offsetof(EVENT_TRACE_SYSTEM_EVENT_INFORMATION, HookId);
	ULONG n = len / sizeof(CLASSIC_EVENT_ID), kept = 0, i;
	NTSTATUS st;

	if (len % sizeof(CLASSIC_EVENT_ID) || n > ETW_MAX_PMC_EVENTS)
		return ERROR_INCORRECT_SIZE;
	if (!n != !info)
		return ERROR_INVALID_PARAMETER;
	k = ntpmu.ops->zalloc(ntpmu.ctx, hdr + n * sizeof(ULONG));
	if (!k)
		return ERROR_OUTOFMEMORY;
	k->EventTraceInformationClass = EventTraceProfileEventListInformation;
	k->TraceHandle = h;
	for (i = 0; i < n; i++) {
		CLASSIC_EVENT_ID e;
		int group;

		__builtin_memcpy(&e, (const uint8_t *)info + i * sizeof(e), sizeof(e));
		group = classic_group(&e.EventGuid);
		if (group >= 0)
			k->HookId[kept++] = (ULONG)group | e.Type;
	}
	st = NtSetSystemInformation(SystemPerformanceTraceInformation, k, hdr + kept * sizeof(ULONG));
	ntpmu.ops->free(ntpmu.ctx, k);
	return RtlNtStatusToDosError(st);
}

ULONG WMIAPI TraceSetInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
				 PVOID TraceInformation, ULONG InformationLength)
{
	switch (InformationClass) {
	case TraceSampledProfileIntervalInfo:
		return set_interval(SessionHandle, TraceInformation, InformationLength);
	case TraceProfileSourceConfigInfo:
		return set_sources(SessionHandle, EventTraceProfileConfigInformation,
				   TraceInformation, InformationLength);
	case TracePmcEventListInfo:
		return set_event_list(SessionHandle, TraceInformation, InformationLength);
	case TracePmcCounterListInfo:
		return set_sources(SessionHandle, EventTraceProfileCounterListInformation,
				   TraceInformation, InformationLength);
	default:
		return ERROR_NOT_SUPPORTED;
	}
}

static ULONG query_interval(TRACEHANDLE h, PVOID info, ULONG len, PULONG ret)
{
	TRACE_PROFILE_INTERVAL ti;

	if (h)
		return ERROR_INVALID_PARAMETER;
	if (ret)
		*ret = sizeof(ti);
	if (len != sizeof(ti))
		return ERROR_BAD_LENGTH;
	if (!info)
		return ERROR_INVALID_PARAMETER;
	__builtin_memcpy(&ti, info, sizeof(ti));
	NtQueryIntervalProfile((KPROFILE_SOURCE)ti.Source, &ti.Interval);
	__builtin_memcpy(info, &ti, sizeof(ti));
	return ERROR_SUCCESS;
}

static size_t cstrlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static ULONG entry_size(const char *name)
{
	return ((ULONG)offsetof(PROFILE_SOURCE_INFO, Description) +
		((ULONG)cstrlen(name) + 1) * sizeof(WCHAR) + 7) & ~7u;
}

/* Write one entry at p if it fits in [p, end); its size either way. */
static ULONG put_entry(uint8_t *p, const uint8_t *end, ULONG id, const char *name,
		       ULONG min, ULONG max)
{
	ULONG size = entry_size(name), i;
	PROFILE_SOURCE_INFO e = { .NextEntryOffset = size, .Source = id,
				  .MinInterval = min, .MaxInterval = max };

	if (!p || (size_t)(end - p) < size)
		return size;
	__builtin_memset(p, 0, size);
	__builtin_memcpy(p, &e, offsetof(PROFILE_SOURCE_INFO, Description));
	for (i = 0; name[i]; i++) {
		WCHAR c = (WCHAR)name[i];

		__builtin_memcpy(p + offsetof(PROFILE_SOURCE_INFO, Description) + i * 2, &c, 2);
	}
	return size;
}

/* ProfileTime, then each PMC source the PMU can produce (docs/windows-api.md 4.8). */
static ULONG query_sources(TRACEHANDLE h, PVOID info, ULONG len, PULONG ret)
{
	uint8_t *p = info, *end = p ? p + len : NULL, *last = NULL;
	const struct ntpmu_source *tab;
	unsigned int n, i;
	ULONG need;

	if (h)
		return ERROR_INVALID_PARAMETER;
	tab = ntpmu_source_table(&n);
	need = entry_size("Timer");
	for (i = 0; i < n; i++)
		if (ntpmu_source_find(tab[i].id))
			need += entry_size(tab[i].name);
	if (ret)
		*ret = need;
	if (!p || len < need)
		return ERROR_BAD_LENGTH;
	last = p;
	p += put_entry(p, end, ProfileTime, "Timer", TIMER_MIN_INTERVAL, TIMER_MAX_INTERVAL);
	for (i = 0; i < n; i++) {
		if (!ntpmu_source_find(tab[i].id))
			continue;
		last = p;
		p += put_entry(p, end, tab[i].id, tab[i].name, PMC_MIN_INTERVAL, PMC_MAX_INTERVAL);
	}
	/* The last entry says so with NextEntryOffset 0. */
	__builtin_memset(last, 0, sizeof(ULONG));
	return ERROR_SUCCESS;
}

static ULONG query_max_counters(PVOID info, ULONG len, PULONG ret)
{
	ULONG max = ntpmu_etw_max_counters();

	if (ret)
		*ret = sizeof(ULONG);
	if (len < sizeof(ULONG))
		return ERROR_BAD_LENGTH;
	if (!info)
		return ERROR_INVALID_PARAMETER;
	__builtin_memcpy(info, &max, sizeof(max));
	return ERROR_SUCCESS;
}

ULONG WMIAPI TraceQueryInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
				   PVOID TraceInformation, ULONG InformationLength,
				   PULONG ReturnLength)
{
	switch (InformationClass) {
	case TraceSampledProfileIntervalInfo:
		return query_interval(SessionHandle, TraceInformation, InformationLength,
				      ReturnLength);
	case TraceProfileSourceListInfo:
		return query_sources(SessionHandle, TraceInformation, InformationLength,
				     ReturnLength);
	case TraceMaxPmcCounterQuery:
		return query_max_counters(TraceInformation, InformationLength, ReturnLength);
	case TracePmcCounterOwners:
		return ntpmu_trace_query_owners(TraceInformation, InformationLength, ReturnLength);
	case TracePmcSessionInformation:
		return ntpmu_trace_query_sessions(TraceInformation, InformationLength,
						  ReturnLength);
	default:
		return ERROR_NOT_SUPPORTED;
	}
}
