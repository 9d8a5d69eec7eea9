/*
 * User-mode ETW PMC configuration (spec 4.1-4.4): TraceSetInformation and
 * TraceQueryInformation for the PMC classes, with their structures.
 */
#ifndef NT_EVNTRACE_H
#define NT_EVNTRACE_H

#include "nt/ntdef.h"
#include "nt/ntwmi.h"
#include "nt/winerror.h"

#define WMIAPI

typedef enum _TRACE_INFO_CLASS {
	GuidQueryList = 0,
	GuidQueryInfo = 1,
	GuidQueryProcess = 2,
	StackTracingInfo = 3,
	SystemTraceEnableFlagsInfo = 4,
	TraceSampledProfileIntervalInfo = 5,
	TraceProfileSourceConfigInfo = 6,
	TraceProfileSourceListInfo = 7,
	TracePmcEventListInfo = 8,
	TracePmcCounterListInfo = 9,
	TraceSetDisallowList = 10,
	TraceVersionInfo = 11,
	TraceMaxPmcCounterQuery = 22,
	TracePmcCounterOwners = 25,
	TracePmcSessionInformation = 27,
	MaxTraceSetInfoClass = 29,
} TRACE_INFO_CLASS, TRACE_QUERY_INFO_CLASS;

typedef struct _TRACE_PROFILE_INTERVAL {
	ULONG Source;
	ULONG Interval;
} TRACE_PROFILE_INTERVAL;

typedef struct _PROFILE_SOURCE_INFO {
	ULONG NextEntryOffset;		/* 0: last entry */
	ULONG Source;
	ULONG MinInterval;
	ULONG MaxInterval;
	ULONG64 Reserved;
	WCHAR Description[ANYSIZE_ARRAY];	/* NUL-terminated */
} PROFILE_SOURCE_INFO;

typedef struct _CLASSIC_EVENT_ID {
	GUID EventGuid;
	UCHAR Type;
	UCHAR Reserved[7];
} CLASSIC_EVENT_ID;

typedef enum _ETW_PMC_COUNTER_OWNER_TYPE {
	EtwPmcOwnerFree,
	EtwPmcOwnerUntagged,
	EtwPmcOwnerTagged,
	EtwPmcOwnerTaggedWithSource,
} ETW_PMC_COUNTER_OWNER_TYPE;

typedef struct _ETW_PMC_COUNTER_OWNER {
	ETW_PMC_COUNTER_OWNER_TYPE OwnerType;
	ULONG ProfileSource;
	ULONG OwnerTag;
} ETW_PMC_COUNTER_OWNER;

typedef struct _ETW_PMC_COUNTER_OWNERSHIP_STATUS {
	ULONG ProcessorNumber;
	ULONG NumberOfCounters;
	ETW_PMC_COUNTER_OWNER CounterOwners[ANYSIZE_ARRAY];
} ETW_PMC_COUNTER_OWNERSHIP_STATUS;

typedef struct _ETW_PMC_SESSION_INFO {
	ULONG NextEntryOffset;
	USHORT LoggerId;
	USHORT Reserved;
	ULONG ProfileSourceCount;
	ULONG HookIdCount;
	/* ULONG ProfileSources[]; USHORT HookIds[]; */
} ETW_PMC_SESSION_INFO;

/* EVENT_HEADER_EXTENDED_DATA_ITEM types (spec 4.3). */
#define EVENT_HEADER_EXT_TYPE_PEBS_INDEX	7
#define EVENT_HEADER_EXT_TYPE_PMC_COUNTERS	8

_Static_assert(sizeof(TRACE_INFO_CLASS) == 4, "enum size");
_Static_assert(sizeof(ETW_PMC_COUNTER_OWNER) == 0x0c, "ETW_PMC_COUNTER_OWNER size");
_Static_assert(offsetof(ETW_PMC_COUNTER_OWNERSHIP_STATUS, CounterOwners) == 8,
	       "ownership status header");
_Static_assert(sizeof(ETW_PMC_SESSION_INFO) == 0x10, "ETW_PMC_SESSION_INFO header");
_Static_assert(offsetof(ETW_PMC_SESSION_INFO, ProfileSourceCount) == 0x08,
	       "ETW_PMC_SESSION_INFO.ProfileSourceCount");
_Static_assert(sizeof(TRACE_PROFILE_INTERVAL) == 8, "TRACE_PROFILE_INTERVAL size");
_Static_assert(offsetof(PROFILE_SOURCE_INFO, Source) == 0x04, "PSI.Source");
_Static_assert(offsetof(PROFILE_SOURCE_INFO, MinInterval) == 0x08, "PSI.MinInterval");
_Static_assert(offsetof(PROFILE_SOURCE_INFO, MaxInterval) == 0x0c, "PSI.MaxInterval");
_Static_assert(offsetof(PROFILE_SOURCE_INFO, Reserved) == 0x10, "PSI.Reserved");
_Static_assert(offsetof(PROFILE_SOURCE_INFO, Description) == 0x18, "PSI.Description");
_Static_assert(sizeof(PROFILE_SOURCE_INFO) == 0x20, "PSI size with [1]");
_Static_assert(sizeof(CLASSIC_EVENT_ID) == 0x18, "CLASSIC_EVENT_ID size");

ULONG WMIAPI TraceSetInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
				 PVOID TraceInformation, ULONG InformationLength);
ULONG WMIAPI TraceQueryInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
				   PVOID TraceInformation, ULONG InformationLength,
				   PULONG ReturnLength);

#endif
