/* SPDX-License-Identifier: MIT */
/*
 * The ntdll layer under the kernel32 thread-profiling calls (docs/windows-api.md 3.4, 3.5):
 * the Rtl* routines return NTSTATUS, which kernel32 maps to Win32 codes with
 * RtlNtStatusToDosError.  THREAD_PERFORMANCE_DATA is the per-thread block the
 * kernel updates and the user-mode reader reads; its address is the
 * PerformanceDataHandle.
 */
#ifndef NT_NTRTL_H
#define NT_NTRTL_H

#include "nt/ntdef.h"
#include "nt/ntstatus.h"
#include "nt/winbase.h"

#define ThreadCounterProfiling	32	/* THREADINFOCLASS */

typedef struct _COUNTER_READING {
	HARDWARE_COUNTER_TYPE Type;
	ULONG Index;
	ULONG64 Start;
	ULONG64 Total;
} COUNTER_READING, *PCOUNTER_READING;

typedef struct _THREAD_PERFORMANCE_DATA {
	USHORT Size;			/* 0x1C0 */
	USHORT Version;			/* 1 */
	PROCESSOR_NUMBER ProcessorNumber;
	ULONG ContextSwitches;
	ULONG HwCountersCount;
	ULONG64 UpdateCount;		/* generation: changes on every update */
	ULONG64 WaitReasonBitMap;
	ULONG64 HardwareCounters;
	COUNTER_READING CycleTime;
	COUNTER_READING HwCounters[MAX_HW_COUNTERS];
} THREAD_PERFORMANCE_DATA, *PTHREAD_PERFORMANCE_DATA;

typedef struct _THREAD_PROFILING_INFORMATION {
	ULONG64 HardwareCounters;
	ULONG Flags;
	ULONG Enable;
	PTHREAD_PERFORMANCE_DATA PerformanceData;
} THREAD_PROFILING_INFORMATION, *PTHREAD_PROFILING_INFORMATION;

_Static_assert(sizeof(COUNTER_READING) == 0x18, "COUNTER_READING size");
_Static_assert(offsetof(COUNTER_READING, Index) == 0x04, "CR.Index");
_Static_assert(offsetof(COUNTER_READING, Start) == 0x08, "CR.Start");
_Static_assert(offsetof(COUNTER_READING, Total) == 0x10, "CR.Total");
_Static_assert(sizeof(THREAD_PERFORMANCE_DATA) == 0x1c0, "THREAD_PERFORMANCE_DATA size");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, ProcessorNumber) == 0x04, "TPD.ProcessorNumber");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, ContextSwitches) == 0x08, "TPD.ContextSwitches");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, HwCountersCount) == 0x0c, "TPD.HwCountersCount");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, UpdateCount) == 0x10, "TPD.UpdateCount");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, WaitReasonBitMap) == 0x18, "TPD.WaitReasonBitMap");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, HardwareCounters) == 0x20, "TPD.HardwareCounters");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, CycleTime) == 0x28, "TPD.CycleTime");
_Static_assert(offsetof(THREAD_PERFORMANCE_DATA, HwCounters) == 0x40, "TPD.HwCounters");
_Static_assert(sizeof(THREAD_PROFILING_INFORMATION) == 0x18, "THREAD_PROFILING_INFORMATION size");
_Static_assert(offsetof(THREAD_PROFILING_INFORMATION, Enable) == 0x0c, "TPI.Enable");
_Static_assert(offsetof(THREAD_PROFILING_INFORMATION, PerformanceData) == 0x10, "TPI.PerformanceData");

NTSTATUS NTAPI RtlEnableThreadProfiling(HANDLE ThreadHandle, ULONG Flags, ULONG64 HardwareCounters,
					PVOID *PerformanceDataHandle);
NTSTATUS NTAPI RtlDisableThreadProfiling(PVOID PerformanceDataHandle);
NTSTATUS NTAPI RtlQueryThreadProfiling(HANDLE ThreadHandle, PBOOLEAN Enabled);
NTSTATUS NTAPI RtlReadThreadProfilingData(HANDLE PerformanceDataHandle, ULONG Flags,
					  PPERFORMANCE_DATA PerformanceData);
ULONG NTAPI RtlNtStatusToDosError(NTSTATUS Status);

#endif
