/* SPDX-License-Identifier: MIT */
/*
 * Kernel-mode counter interfaces: thread-profiling counter configuration
 * (docs/windows-api.md 1) and HAL counter arbitration (docs/windows-api.md 2), with the
 * x64 layouts the spec gives.
 */
#ifndef NT_NTDDK_H
#define NT_NTDDK_H

#include "nt/ntdef.h"
#include "nt/ntstatus.h"

typedef struct _HARDWARE_COUNTER {
	HARDWARE_COUNTER_TYPE Type;	/* PMCCounter */
	ULONG Reserved;
	ULONG64 Index;			/* RDPMC index: GP n = n, fixed n = 0x40000000|n */
} HARDWARE_COUNTER, *PHARDWARE_COUNTER;

_Static_assert(sizeof(HARDWARE_COUNTER) == 0x10, "HARDWARE_COUNTER size");
_Static_assert(offsetof(HARDWARE_COUNTER, Type) == 0x00, "HARDWARE_COUNTER.Type");
_Static_assert(offsetof(HARDWARE_COUNTER, Reserved) == 0x04, "HARDWARE_COUNTER.Reserved");
_Static_assert(offsetof(HARDWARE_COUNTER, Index) == 0x08, "HARDWARE_COUNTER.Index");

NTKERNELAPI NTSTATUS NTAPI
KeSetHardwareCounterConfiguration(PHARDWARE_COUNTER CounterArray, ULONG Count);
NTKERNELAPI NTSTATUS NTAPI
KeQueryHardwareCounterConfiguration(PHARDWARE_COUNTER CounterArray, ULONG MaximumCount,
				    PULONG Count);

typedef enum _PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR_TYPE {
	ResourceTypeSingle = 0,
	ResourceTypeRange = 1,
	ResourceTypeExtendedCounterConfiguration = 2,
	ResourceTypeOverflow = 3,
	ResourceTypeEventBuffer = 4,
	ResourceTypeIdenitificationTag = 5,	/* sic, as in the WDK */
	ResourceTypeMax = 6
} PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR_TYPE;

typedef VOID PHYSICAL_COUNTER_OVERFLOW_HANDLER(ULONGLONG OverflowBits, HANDLE OwningHandle);
typedef PHYSICAL_COUNTER_OVERFLOW_HANDLER *PPHYSICAL_COUNTER_OVERFLOW_HANDLER;
typedef VOID PHYSICAL_COUNTER_EVENT_BUFFER_OVERFLOW_HANDLER(PVOID EventBuffer, SIZE_T EntrySize,
							    SIZE_T NumberOfEntries,
							    HANDLE OwningHandle);
typedef PHYSICAL_COUNTER_EVENT_BUFFER_OVERFLOW_HANDLER
	*PPHYSICAL_COUNTER_EVENT_BUFFER_OVERFLOW_HANDLER;

typedef struct _PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION {
	PPHYSICAL_COUNTER_EVENT_BUFFER_OVERFLOW_HANDLER OverflowHandler;
	ULONG CustomEventBufferEntrySize;
	ULONG EventThreshold;
} PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION;

typedef struct _PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR {
	PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR_TYPE Type;
	ULONG Flags;			/* none defined: 0 */
	union {
		ULONG CounterIndex;
		struct {
			ULONG Begin;
			ULONG End;
		} Range;
		PPHYSICAL_COUNTER_OVERFLOW_HANDLER OverflowHandler;
		PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION EventBufferConfiguration;
		ULONG IdentificationTag;
	} u;
} PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR, *PPHYSICAL_COUNTER_RESOURCE_DESCRIPTOR;

typedef struct _PHYSICAL_COUNTER_RESOURCE_LIST {
	ULONG Count;
	PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR Descriptors[ANYSIZE_ARRAY];
} PHYSICAL_COUNTER_RESOURCE_LIST, *PPHYSICAL_COUNTER_RESOURCE_LIST;

_Static_assert(sizeof(PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR_TYPE) == 4, "enum size");
_Static_assert(sizeof(PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION) == 0x10, "EB config size");
_Static_assert(offsetof(PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION, OverflowHandler) == 0x00,
	       "EB config OverflowHandler");
_Static_assert(offsetof(PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION,
			CustomEventBufferEntrySize) == 0x08, "EB config entry size");
_Static_assert(offsetof(PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION, EventThreshold) == 0x0c,
	       "EB config EventThreshold");
_Static_assert(sizeof(PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR) == 0x18, "descriptor size");
_Static_assert(offsetof(PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR, Type) == 0x00, "descriptor Type");
_Static_assert(offsetof(PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR, Flags) == 0x04, "descriptor Flags");
_Static_assert(offsetof(PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR, u) == 0x08, "descriptor u");
_Static_assert(offsetof(PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR, u.Range.End) == 0x0c,
	       "descriptor u.Range.End");
_Static_assert(sizeof(PHYSICAL_COUNTER_RESOURCE_LIST) == 0x20, "resource list size with [1]");
_Static_assert(offsetof(PHYSICAL_COUNTER_RESOURCE_LIST, Descriptors) == 0x08,
	       "resource list Descriptors");

NTHALAPI NTSTATUS NTAPI
HalAllocateHardwareCounters(PGROUP_AFFINITY GroupAffinty, ULONG GroupCount,
			    PPHYSICAL_COUNTER_RESOURCE_LIST ResourceList,
			    PHANDLE CounterSetHandle);
NTHALAPI NTSTATUS NTAPI HalFreeHardwareCounters(HANDLE CounterSetHandle);

/* KWAIT_REASON (wdm.h): bit numbers of PERFORMANCE_DATA.WaitReasonBitMap. */
typedef enum _KWAIT_REASON {
	Executive, FreePage, PageIn, PoolAllocation, DelayExecution, Suspended,
	UserRequest, WrExecutive, WrFreePage, WrPageIn, WrPoolAllocation,
	WrDelayExecution, WrSuspended, WrUserRequest, WrEventPair, WrQueue,
	WrLpcReceive, WrLpcReply, WrVirtualMemory, WrPageOut, WrRendezvous,
	WrKeyedEvent, WrTerminated, WrProcessInSwap, WrCpuRateControl,
	WrCalloutStack, WrKernel, WrResource, WrPushLock, WrMutex, WrQuantumEnd,
	WrDispatchInt, WrPreempted, WrYieldExecution, WrFastMutex, WrGuardedMutex,
	WrRundown, WrAlertByThreadId, WrDeferredPreempt
} KWAIT_REASON;

_Static_assert(WrQuantumEnd == 30 && WrPreempted == 32 && WrDeferredPreempt == 38,
	       "KWAIT_REASON numbering");

#endif
