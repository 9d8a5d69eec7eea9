/* SPDX-License-Identifier: MIT */
/*
 * User-mode thread profiling (kernel32, docs/windows-api.md 3): PERFORMANCE_DATA and
 * the four calls.  They return Win32 error codes, not BOOL.
 */
#ifndef NT_WINBASE_H
#define NT_WINBASE_H

#include "nt/ntdef.h"
#include "nt/winerror.h"

#define READ_THREAD_PROFILING_FLAG_DISPATCHING		0x00000001
#define READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS	0x00000002
#define PERFORMANCE_DATA_VERSION			1

typedef struct _HARDWARE_COUNTER_DATA {
	HARDWARE_COUNTER_TYPE Type;
	DWORD Reserved;
	DWORD64 Value;
} HARDWARE_COUNTER_DATA, *PHARDWARE_COUNTER_DATA;

typedef struct _PERFORMANCE_DATA {
	WORD Size;		/* in: sizeof(PERFORMANCE_DATA) */
	BYTE Version;		/* in: PERFORMANCE_DATA_VERSION */
	BYTE HwCountersCount;
	DWORD ContextSwitchCount;
	DWORD64 WaitReasonBitMap;
	DWORD64 CycleTime;
	DWORD RetryCount;
	DWORD Reserved;
	HARDWARE_COUNTER_DATA HwCounters[MAX_HW_COUNTERS];
} PERFORMANCE_DATA, *PPERFORMANCE_DATA;

_Static_assert(sizeof(HARDWARE_COUNTER_DATA) == 0x10, "HARDWARE_COUNTER_DATA size");
_Static_assert(offsetof(HARDWARE_COUNTER_DATA, Reserved) == 0x04, "HCD.Reserved");
_Static_assert(offsetof(HARDWARE_COUNTER_DATA, Value) == 0x08, "HCD.Value");
_Static_assert(sizeof(PERFORMANCE_DATA) == 0x120, "PERFORMANCE_DATA size");
_Static_assert(offsetof(PERFORMANCE_DATA, Version) == 0x02, "PD.Version");
_Static_assert(offsetof(PERFORMANCE_DATA, HwCountersCount) == 0x03, "PD.HwCountersCount");
_Static_assert(offsetof(PERFORMANCE_DATA, ContextSwitchCount) == 0x04, "PD.ContextSwitchCount");
_Static_assert(offsetof(PERFORMANCE_DATA, WaitReasonBitMap) == 0x08, "PD.WaitReasonBitMap");
_Static_assert(offsetof(PERFORMANCE_DATA, CycleTime) == 0x10, "PD.CycleTime");
_Static_assert(offsetof(PERFORMANCE_DATA, RetryCount) == 0x18, "PD.RetryCount");
_Static_assert(offsetof(PERFORMANCE_DATA, Reserved) == 0x1c, "PD.Reserved");
_Static_assert(offsetof(PERFORMANCE_DATA, HwCounters) == 0x20, "PD.HwCounters");

DWORD APIENTRY EnableThreadProfiling(HANDLE ThreadHandle, DWORD Flags, DWORD64 HardwareCounters,
				     HANDLE *PerformanceDataHandle);
DWORD APIENTRY DisableThreadProfiling(HANDLE PerformanceDataHandle);
DWORD APIENTRY QueryThreadProfiling(HANDLE ThreadHandle, PBOOLEAN Enabled);
DWORD APIENTRY ReadThreadProfilingData(HANDLE PerformanceDataHandle, DWORD Flags,
				       PPERFORMANCE_DATA PerformanceData);

#endif
