/* SPDX-License-Identifier: MIT */
/*
 * Perflib V2 consumer API (docs/windows-api.md 6), with the x64 layouts
 * the spec gives.  Every block is 8-byte aligned and padded.
 */
#ifndef NT_PERFLIB_H
#define NT_PERFLIB_H

#include "nt/ntdef.h"
#include "nt/winerror.h"

#define WINAPI

#define PERF_WILDCARD_COUNTER	0xFFFFFFFF
#define PERF_WILDCARD_INSTANCE	u"*"
#define PERF_AGGREGATE_INSTANCE	u"_Total"
#define PERF_MAX_INSTANCE_NAME	1024

#define PERF_COUNTERSET_SINGLE_INSTANCE		0
#define PERF_COUNTERSET_MULTI_INSTANCES		2
#define PERF_COUNTERSET_SINGLE_AGGREGATE	4
#define PERF_COUNTERSET_MULTI_AGGREGATE		6
#define PERF_COUNTERSET_SINGLE_AGGREGATE_HISTORY 12
#define PERF_COUNTERSET_INSTANCE_AGGREGATE	22

#define PERF_AGGREGATE_UNDEFINED	0
#define PERF_AGGREGATE_TOTAL		1
#define PERF_AGGREGATE_AVG		2
#define PERF_AGGREGATE_MIN		3
#define PERF_AGGREGATE_MAX		4
#define PERF_DETAIL_NOVICE		100
#define PERF_DETAIL_ADVANCED		200

typedef enum _PerfRegInfoType {
	PERF_REG_COUNTERSET_STRUCT = 1,
	PERF_REG_COUNTER_STRUCT,
	PERF_REG_COUNTERSET_NAME_STRING,
	PERF_REG_COUNTERSET_HELP_STRING,
	PERF_REG_COUNTER_NAME_STRINGS,
	PERF_REG_COUNTER_HELP_STRINGS,
	PERF_REG_PROVIDER_NAME,
	PERF_REG_PROVIDER_GUID,
	PERF_REG_COUNTERSET_ENGLISH_NAME,
	PERF_REG_COUNTER_ENGLISH_NAMES,
} PerfRegInfoType;

typedef struct _PERF_COUNTERSET_REG_INFO {
	GUID CounterSetGuid;
	ULONG CounterSetType;
	ULONG DetailLevel;
	ULONG NumCounters;
	ULONG InstanceType;
	/* PERF_COUNTER_REG_INFO[NumCounters] */
} PERF_COUNTERSET_REG_INFO;

typedef struct _PERF_COUNTER_REG_INFO {
	ULONG CounterId;
	ULONG Type;
	ULONGLONG Attrib;
	ULONG DetailLevel;
	LONG DefaultScale;
	ULONG BaseCounterId;	/* IDs: 0xFFFFFFFF = none */
	ULONG PerfTimeId;
	ULONG PerfFreqId;
	ULONG MultiId;
	ULONG AggregateFunc;
	ULONG Reserved;
} PERF_COUNTER_REG_INFO;

typedef struct _STRING_BUFFER_HEADER {
	DWORD dwSize;
	DWORD dwCounters;
} PERF_STRING_BUFFER_HEADER;

typedef struct _STRING_COUNTER_HEADER {
	DWORD dwCounterId;
	DWORD dwOffset;		/* from the buffer start; 0xFFFFFFFF = NULL */
} PERF_STRING_COUNTER_HEADER;

_Static_assert(PERF_REG_COUNTER_ENGLISH_NAMES == 10, "PerfRegInfoType numbering");
_Static_assert(sizeof(PERF_COUNTERSET_REG_INFO) == 0x20, "PERF_COUNTERSET_REG_INFO size");
_Static_assert(offsetof(PERF_COUNTERSET_REG_INFO, InstanceType) == 0x1c, "PCRI.InstanceType");
_Static_assert(sizeof(PERF_COUNTER_REG_INFO) == 0x30, "PERF_COUNTER_REG_INFO size");
_Static_assert(offsetof(PERF_COUNTER_REG_INFO, Attrib) == 0x08, "PCRI.Attrib");
_Static_assert(offsetof(PERF_COUNTER_REG_INFO, DetailLevel) == 0x10, "PCRI.DetailLevel");
_Static_assert(sizeof(PERF_STRING_BUFFER_HEADER) == 8, "PERF_STRING_BUFFER_HEADER size");
_Static_assert(sizeof(PERF_STRING_COUNTER_HEADER) == 8, "PERF_STRING_COUNTER_HEADER size");

typedef enum _PerfCounterDataType {
	PERF_ERROR_RETURN = 0,
	PERF_SINGLE_COUNTER = 1,
	PERF_MULTIPLE_COUNTERS = 2,
	PERF_MULTIPLE_INSTANCES = 4,
	PERF_COUNTERSET = 6,
} PerfCounterDataType;

typedef struct _PERF_COUNTER_IDENTIFIER {
	GUID CounterSetGuid;
	ULONG Status;		/* out: Win32 result for this block */
	ULONG Size;		/* block size incl. name and padding, multiple of 8 */
	ULONG CounterId;	/* or PERF_WILDCARD_COUNTER */
	ULONG InstanceId;	/* or 0xFFFFFFFF: no filter */
	ULONG Index;		/* out (PerfQueryCounterInfo): position of its data */
	ULONG Reserved;
	/* WCHAR InstanceName[] NUL-terminated, padding */
} PERF_COUNTER_IDENTIFIER, *PPERF_COUNTER_IDENTIFIER;

typedef struct _PERF_DATA_HEADER {
	ULONG dwTotalSize;
	ULONG dwNumCounters;
	LONGLONG PerfTimeStamp;
	LONGLONG PerfTime100NSec;
	LONGLONG PerfFreq;
	struct {
		WORD wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute, wSecond, wMilliseconds;
	} SystemTime;
} PERF_DATA_HEADER, *PPERF_DATA_HEADER;

typedef struct _PERF_COUNTER_HEADER {
	ULONG dwStatus;
	PerfCounterDataType dwType;
	ULONG dwSize;		/* incl. payload, multiple of 8 */
	ULONG Reserved;
} PERF_COUNTER_HEADER;

typedef struct _PERF_COUNTER_DATA {
	ULONG dwDataSize;
	ULONG dwSize;		/* incl. data and padding */
} PERF_COUNTER_DATA;

typedef struct _PERF_MULTI_COUNTERS {
	ULONG dwSize;
	ULONG dwCounters;	/* DWORD CounterIds[dwCounters] follow, padded to 8 */
} PERF_MULTI_COUNTERS;

typedef struct _PERF_MULTI_INSTANCES {
	ULONG dwTotalSize;
	ULONG dwInstances;
} PERF_MULTI_INSTANCES;

typedef struct _PERF_INSTANCE_HEADER {
	ULONG Size;		/* incl. name and padding */
	ULONG InstanceId;
	/* WCHAR Name[] NUL-terminated, padding to 8 */
} PERF_INSTANCE_HEADER, *PPERF_INSTANCE_HEADER;

_Static_assert(sizeof(PerfCounterDataType) == 4, "enum size");
_Static_assert(sizeof(PERF_COUNTER_IDENTIFIER) == 0x28, "PCI size");
_Static_assert(offsetof(PERF_COUNTER_IDENTIFIER, Status) == 0x10, "PCI.Status");
_Static_assert(offsetof(PERF_COUNTER_IDENTIFIER, Size) == 0x14, "PCI.Size");
_Static_assert(offsetof(PERF_COUNTER_IDENTIFIER, CounterId) == 0x18, "PCI.CounterId");
_Static_assert(offsetof(PERF_COUNTER_IDENTIFIER, InstanceId) == 0x1c, "PCI.InstanceId");
_Static_assert(offsetof(PERF_COUNTER_IDENTIFIER, Index) == 0x20, "PCI.Index");
_Static_assert(offsetof(PERF_COUNTER_IDENTIFIER, Reserved) == 0x24, "PCI.Reserved");
_Static_assert(sizeof(PERF_DATA_HEADER) == 0x30, "PDH size");
_Static_assert(offsetof(PERF_DATA_HEADER, PerfTimeStamp) == 0x08, "PDH.PerfTimeStamp");
_Static_assert(offsetof(PERF_DATA_HEADER, PerfTime100NSec) == 0x10, "PDH.PerfTime100NSec");
_Static_assert(offsetof(PERF_DATA_HEADER, PerfFreq) == 0x18, "PDH.PerfFreq");
_Static_assert(offsetof(PERF_DATA_HEADER, SystemTime) == 0x20, "PDH.SystemTime");
_Static_assert(sizeof(PERF_COUNTER_HEADER) == 0x10, "PCH size");
_Static_assert(offsetof(PERF_COUNTER_HEADER, dwType) == 0x04, "PCH.dwType");
_Static_assert(offsetof(PERF_COUNTER_HEADER, dwSize) == 0x08, "PCH.dwSize");
_Static_assert(sizeof(PERF_COUNTER_DATA) == 8, "PERF_COUNTER_DATA size");
_Static_assert(sizeof(PERF_MULTI_COUNTERS) == 8, "PERF_MULTI_COUNTERS size");
_Static_assert(sizeof(PERF_MULTI_INSTANCES) == 8, "PERF_MULTI_INSTANCES size");
_Static_assert(sizeof(PERF_INSTANCE_HEADER) == 8, "PERF_INSTANCE_HEADER size");

ULONG WINAPI PerfOpenQueryHandle(LPCWSTR szMachine, HANDLE *phQuery);
ULONG WINAPI PerfCloseQueryHandle(HANDLE hQuery);
ULONG WINAPI PerfAddCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters);
ULONG WINAPI PerfDeleteCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters,
				DWORD cbCounters);
ULONG WINAPI PerfQueryCounterInfo(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters,
				  DWORD cbCounters, LPDWORD pcbCountersActual);
ULONG WINAPI PerfQueryCounterData(HANDLE hQuery, PPERF_DATA_HEADER pCounterBlock,
				  DWORD cbCounterBlock, LPDWORD pcbCounterBlockActual);
ULONG WINAPI PerfEnumerateCounterSet(LPCWSTR szMachine, LPGUID pCounterSetIds,
				     DWORD cCounterSetIds, LPDWORD pcCounterSetIdsActual);
ULONG WINAPI PerfEnumerateCounterSetInstances(LPCWSTR szMachine, LPCGUID pCounterSetId,
					      PPERF_INSTANCE_HEADER pInstances, DWORD cbInstances,
					      LPDWORD pcbInstancesActual);

/*
 * ntpmu's counterset: hardware counters, one instance per processor (ID =
 * processor number, name its decimal number), one counter per architectural
 * event the PMU can produce (ID = the CPUID.0AH:EBX bit, enum pmu_arch_event).
 * {5d3f1e8a-9c2b-4b7e-a1f0-6e0a0c5b7d21}, chosen for ntpmu.
 */
#define NTPMU_PERF_COUNTERSET_GUID \
	{ 0x5d3f1e8a, 0x9c2b, 0x4b7e, { 0xa1, 0xf0, 0x6e, 0x0a, 0x0c, 0x5b, 0x7d, 0x21 } }

#endif
