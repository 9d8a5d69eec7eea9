/* SPDX-License-Identifier: MIT */
/*
 * User-mode ETW PMC configuration (docs/windows-api.md 4.1-4.4): TraceSetInformation and
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

/*
 * Classic kernel event classes TracePmcEventListInfo knows (initializers):
 * the hook ID is (EVENT_TRACE_GROUP_x | Type) (docs/windows-api.md 4.4 Set 8; ntwmi.h
 * groups); other GUIDs are dropped.
 */
#define NTPMU_DISKIO_GUID	{ 0x3d6fa8d4, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define NTPMU_PAGEFAULT_GUID	{ 0x3d6fa8d3, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define NTPMU_PROCESS_GUID	{ 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define NTPMU_FILEIO_GUID	{ 0x90cbdc39, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } }
#define NTPMU_THREAD_GUID	{ 0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define NTPMU_TCPIP_GUID	{ 0x9a280ac0, 0xc8e0, 0x11d1, { 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2 } }
#define NTPMU_UDPIP_GUID	{ 0xbf3a50c5, 0xa9c9, 0x4988, { 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80 } }
#define NTPMU_REGISTRY_GUID	{ 0xae53722e, 0xc863, 0x11d2, { 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1 } }
#define NTPMU_PERFINFO_GUID	{ 0xce1dbfb4, 0x137e, 0x4da6, { 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } }
#define CSWITCH_EVENT_TYPE	36	/* Thread class: 0x0524 */
#define PMC_INTERRUPT_EVENT_TYPE 47	/* PerfInfo class: 0x0F2F */

/* EVENT_HEADER_EXTENDED_DATA_ITEM types (docs/windows-api.md 4.3). */
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
