/* SPDX-License-Identifier: MIT */
/*
 * The kernel side of ETW PMC configuration (docs/windows-api.md 4.5-4.9):
 * NtSetSystemInformation(SystemPerformanceTraceInformation) with its
 * EVENT_TRACE_INFORMATION_CLASS sub-classes, KPROFILE_SOURCE, the perfinfo
 * hook IDs, and ntpmu's loggers and the records they buffer.
 */
#ifndef NT_NTWMI_H
#define NT_NTWMI_H

#include "nt/ntdef.h"
#include "nt/ntstatus.h"

typedef ULONG64 TRACEHANDLE, *PTRACEHANDLE;

#define SystemPerformanceTraceInformation	31	/* SYSTEM_INFORMATION_CLASS 0x1F */

typedef enum _EVENT_TRACE_INFORMATION_CLASS {
	EventTraceKernelVersionInformation = 0x00,
	EventTraceGroupMaskInformation = 0x01,
	EventTracePerformanceInformation = 0x02,
	EventTraceTimeProfileInformation = 0x03,
	EventTraceSessionSecurityInformation = 0x04,
	EventTraceSpinlockInformation = 0x05,
	EventTraceStackTracingInformation = 0x06,
	EventTraceExecutiveResourceInformation = 0x07,
	EventTraceHeapTracingInformation = 0x08,
	EventTraceHeapSummaryTracingInformation = 0x09,
	EventTracePoolTagFilterInformation = 0x0A,
	EventTracePebsTracingInformation = 0x0B,
	EventTraceProfileConfigInformation = 0x0C,
	EventTraceProfileSourceListInformation = 0x0D,
	EventTraceProfileEventListInformation = 0x0E,
	EventTraceProfileCounterListInformation = 0x0F,
} EVENT_TRACE_INFORMATION_CLASS;

typedef struct _EVENT_TRACE_PROFILE_COUNTER_INFORMATION {
	EVENT_TRACE_INFORMATION_CLASS EventTraceInformationClass;	/* 0x0C or 0x0F */
	TRACEHANDLE TraceHandle;	/* low 16 bits: logger ID */
	ULONG ProfileSource[ANYSIZE_ARRAY];	/* KPROFILE_SOURCE values, to the end */
} EVENT_TRACE_PROFILE_COUNTER_INFORMATION, EVENT_TRACE_PROFILE_CONFIG_INFORMATION;

/* 0x0E (and 0x0B): hook IDs; alias EVENT_TRACE_PROFILE_EVENT_INFORMATION. */
typedef struct _EVENT_TRACE_SYSTEM_EVENT_INFORMATION {
	EVENT_TRACE_INFORMATION_CLASS EventTraceInformationClass;
	TRACEHANDLE TraceHandle;
	ULONG HookId[ANYSIZE_ARRAY];
} EVENT_TRACE_SYSTEM_EVENT_INFORMATION, EVENT_TRACE_PROFILE_EVENT_INFORMATION;

struct _PROFILE_SOURCE_INFO;

/* 0x0D (query): header; the layout after it is unconfirmed (docs/windows-api.md 4.5). */
typedef struct _EVENT_TRACE_PROFILE_LIST_INFORMATION {
	EVENT_TRACE_INFORMATION_CLASS EventTraceInformationClass;
	ULONG Spare;
	struct _PROFILE_SOURCE_INFO *Profile[1];
} EVENT_TRACE_PROFILE_LIST_INFORMATION;

typedef struct _EVENT_TRACE_TIME_PROFILE_INFORMATION {
	EVENT_TRACE_INFORMATION_CLASS EventTraceInformationClass;
	ULONG ProfileInterval;
} EVENT_TRACE_TIME_PROFILE_INFORMATION;

_Static_assert(sizeof(EVENT_TRACE_INFORMATION_CLASS) == 4, "enum size");
_Static_assert(sizeof(EVENT_TRACE_PROFILE_COUNTER_INFORMATION) == 0x18, "ETPCI size");
_Static_assert(offsetof(EVENT_TRACE_PROFILE_COUNTER_INFORMATION, TraceHandle) == 0x08,
	       "ETPCI.TraceHandle");
_Static_assert(offsetof(EVENT_TRACE_PROFILE_COUNTER_INFORMATION, ProfileSource) == 0x10,
	       "ETPCI.ProfileSource");
_Static_assert(sizeof(EVENT_TRACE_TIME_PROFILE_INFORMATION) == 8, "ETTPI size");
_Static_assert(sizeof(EVENT_TRACE_SYSTEM_EVENT_INFORMATION) == 0x18, "ETSEI size");
_Static_assert(offsetof(EVENT_TRACE_SYSTEM_EVENT_INFORMATION, HookId) == 0x10, "ETSEI.HookId");
_Static_assert(sizeof(EVENT_TRACE_PROFILE_LIST_INFORMATION) == 0x10, "ETPLI header");
_Static_assert(offsetof(EVENT_TRACE_PROFILE_LIST_INFORMATION, Profile) == 0x08, "ETPLI.Profile");

#define ETW_MAX_PROFILING_SOURCES	4
#define ETW_MAX_PMC_EVENTS		4
#define ETW_MAX_PMC_COUNTERS		4	/* original; ntpmu asks the PMU: docs/windows-api.md 4.6.4 */
#define KERNEL_LOGGER_ID		0xFFFF	/* logger ID of the NT Kernel Logger */
#define TRACELOG_GUID_ENABLE		0x0080
#define EVENT_TRACE_USE_PAGED_MEMORY	0x01000000
#define KERNEL_LOGGER_NAMEW		u"NT Kernel Logger"

/* KPROFILE_SOURCE (wdm.h, docs/windows-api.md 4.7); >= 0x19 are the HAL's (docs/windows-api.md 4.8). */
typedef enum _KPROFILE_SOURCE {
	ProfileTime = 0x00,
	ProfileAlignmentFixup = 0x01,
	ProfileTotalIssues = 0x02,
	ProfilePipelineDry = 0x03,
	ProfileLoadInstructions = 0x04,
	ProfilePipelineFrozen = 0x05,
	ProfileBranchInstructions = 0x06,
	ProfileTotalNonissues = 0x07,
	ProfileDcacheMisses = 0x08,
	ProfileIcacheMisses = 0x09,
	ProfileCacheMisses = 0x0A,
	ProfileBranchMispredictions = 0x0B,
	ProfileStoreInstructions = 0x0C,
	ProfileFpInstructions = 0x0D,
	ProfileIntegerInstructions = 0x0E,
	Profile2Issue = 0x0F,
	Profile3Issue = 0x10,
	Profile4Issue = 0x11,
	ProfileSpecialInstructions = 0x12,
	ProfileTotalCycles = 0x13,
	ProfileIcacheIssues = 0x14,
	ProfileDcacheAccesses = 0x15,
	ProfileMemoryBarrierCycles = 0x16,
	ProfileLoadLinkedIssues = 0x17,
	ProfileMaximum = 0x18,
} KPROFILE_SOURCE;

/* Intel "Emon" sources above ProfileMaximum (docs/windows-api.md 4.8). */
#define ProfileUnhaltedCoreCycles		25
#define ProfileInstructionRetired		26
#define ProfileUnhaltedReferenceCycles		27
#define ProfileLLCReference			28
#define ProfileLLCMisses			29
#define ProfileBranchInstructionRetired		30
#define ProfileBranchMispredictsRetired		31

/* Perfinfo hook IDs and the PMC sample payload (docs/windows-api.md 4.9). */
#define EVENT_TRACE_GROUP_IO			0x0100
#define EVENT_TRACE_GROUP_MEMORY		0x0200
#define EVENT_TRACE_GROUP_PROCESS		0x0300
#define EVENT_TRACE_GROUP_FILE			0x0400
#define EVENT_TRACE_GROUP_THREAD		0x0500
#define EVENT_TRACE_GROUP_TCPIP			0x0600
#define EVENT_TRACE_GROUP_UDPIP			0x0800
#define EVENT_TRACE_GROUP_REGISTRY		0x0900
#define EVENT_TRACE_GROUP_PERFINFO		0x0F00
#define PERFINFO_LOG_TYPE_SAMPLED_PROFILE	0x0F2E
#define PERFINFO_LOG_TYPE_PMC_INTERRUPT		0x0F2F
#define PERFINFO_LOG_TYPE_PMC_CONFIG		0x0F30
#define PERFINFO_LOG_TYPE_CONTEXTSWAP		0x0524
#define PERF_PMC_PROFILE			0x20000400
#define TRACE_HEADER_PMC_COUNTERS_MASK		0x0700
#define TRACE_HEADER_PMC_COUNTERS_SHIFT		8

typedef struct _PERFINFO_PMC_SAMPLE_INFORMATION {
	PVOID InstructionPointer;
	ULONG ThreadId;
	USHORT ProfileSource;
	USHORT Reserved;
} PERFINFO_PMC_SAMPLE_INFORMATION;

_Static_assert(sizeof(PERFINFO_PMC_SAMPLE_INFORMATION) == 0x10, "PMC sample size");
_Static_assert(offsetof(PERFINFO_PMC_SAMPLE_INFORMATION, ThreadId) == 0x08, "sample ThreadId");
_Static_assert(offsetof(PERFINFO_PMC_SAMPLE_INFORMATION, ProfileSource) == 0x0c,
	       "sample ProfileSource");

NTSTATUS NTAPI NtSetSystemInformation(ULONG SystemInformationClass, PVOID SystemInformation,
				      ULONG SystemInformationLength);
NTSTATUS NTAPI NtSetIntervalProfile(ULONG Interval, KPROFILE_SOURCE Source);
NTSTATUS NTAPI NtQueryIntervalProfile(KPROFILE_SOURCE Source, PULONG Interval);

/*
 * ntpmu's loggers (not a Windows interface: Windows starts them with
 * StartTrace and an EVENT_TRACE_PROPERTIES the spec does not describe).
 * The name "NT Kernel Logger" gets KERNEL_LOGGER_ID, others IDs from 1;
 * LogFileMode may carry EVENT_TRACE_USE_PAGED_MEMORY; Access is the rights
 * a configuring caller is granted (TRACELOG_GUID_ENABLE to configure PMCs).
 * The TRACEHANDLE is the logger ID.
 */
#define NTPMU_MAX_LOGGERS	8

NTSTATUS ntpmu_logger_start(PCWSTR Name, ULONG LogFileMode, ULONG BufferBytes, ULONG Access,
			    PTRACEHANDLE Handle);
NTSTATUS ntpmu_logger_stop(TRACEHANDLE Handle);

/*
 * A record in a logger buffer.  Records are 8-byte aligned and Size (which
 * includes this header, the payload and PmcCount counter values) steps to
 * the next.  CSwitch records (PERFINFO_LOG_TYPE_CONTEXTSWAP) carry an
 * NTPMU_CSWITCH payload and the raw values of the logger's counter list on
 * that processor, in list order; PMC samples (PERFINFO_LOG_TYPE_PMC_INTERRUPT)
 * a PERFINFO_PMC_SAMPLE_INFORMATION.
 */
typedef struct _NTPMU_TRACE_HEADER {
	USHORT Size;
	USHORT HookId;
	USHORT Processor;
	USHORT PmcCount;		/* ULONG64 values after the payload */
	ULONG ThreadId;			/* running when the record was written */
	ULONG Reserved;
	ULONG64 TimeStamp;		/* TSC */
} NTPMU_TRACE_HEADER;

typedef struct _NTPMU_CSWITCH {
	ULONG NewThreadId;
	ULONG OldThreadId;
	LONG OldThreadWaitReason;	/* KWAIT_REASON, -1: preempted or yielded */
	ULONG Reserved;
} NTPMU_CSWITCH;

_Static_assert(sizeof(NTPMU_TRACE_HEADER) == 0x18, "NTPMU_TRACE_HEADER size");
_Static_assert(sizeof(NTPMU_CSWITCH) == 0x10, "NTPMU_CSWITCH size");

/*
 * The consumer's view of a logger's buffer: *Buffer holds *Used bytes of
 * records (complete ones only); *Lost counts records that did not fit.
 * The buffer stays valid until the logger stops.
 */
NTSTATUS ntpmu_logger_buffer(TRACEHANDLE Handle, const void **Buffer, ULONG *Used, ULONG *Lost);

#endif
