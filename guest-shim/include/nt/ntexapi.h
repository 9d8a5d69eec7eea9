/* SPDX-License-Identifier: MIT */
/*
 * NtSetSystemInformation(SystemProcessorProfileControlArea): the PEBS
 * control area of the current processor (docs/windows-api.md 5).  The area
 * is Intel's 64-bit DS buffer-management area, the one IA32_DS_AREA points
 * to; the 0xA0 layout is Windows 10 1903 and later.
 */
#ifndef NT_NTEXAPI_H
#define NT_NTEXAPI_H

#include "nt/ntdef.h"
#include "nt/ntstatus.h"

#define SystemProcessorProfileControlArea	0x81	/* SYSTEM_INFORMATION_CLASS */

typedef struct _PEBS_DS_SAVE_AREA32 {
	ULONG BtsBufferBase, BtsIndex, BtsAbsoluteMaximum, BtsInterruptThreshold;
	ULONG PebsBufferBase, PebsIndex, PebsAbsoluteMaximum, PebsInterruptThreshold;
	ULONGLONG PebsGpCounterReset[8];
	ULONGLONG PebsFixedCounterReset[4];
} PEBS_DS_SAVE_AREA32;

typedef struct _PEBS_DS_SAVE_AREA64 {
	ULONGLONG BtsBufferBase, BtsIndex, BtsAbsoluteMaximum, BtsInterruptThreshold;
	ULONGLONG PebsBufferBase, PebsIndex, PebsAbsoluteMaximum, PebsInterruptThreshold;
	ULONGLONG PebsGpCounterReset[8];
	ULONGLONG PebsFixedCounterReset[4];
} PEBS_DS_SAVE_AREA64;

typedef union _PEBS_DS_SAVE_AREA {
	PEBS_DS_SAVE_AREA32 As32Bit;
	PEBS_DS_SAVE_AREA64 As64Bit;
} PEBS_DS_SAVE_AREA;

typedef struct _PROCESSOR_PROFILE_CONTROL_AREA {
	PEBS_DS_SAVE_AREA PebsDsSaveArea;
} PROCESSOR_PROFILE_CONTROL_AREA, *PPROCESSOR_PROFILE_CONTROL_AREA;

typedef struct _SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA {
	PPROCESSOR_PROFILE_CONTROL_AREA ProcessorProfileControlArea;	/* output */
	BOOLEAN Allocate;						/* input */
} SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA, *PSYSTEM_PROCESSOR_PROFILE_CONTROL_AREA;

_Static_assert(sizeof(PEBS_DS_SAVE_AREA32) == 0x80, "PEBS_DS_SAVE_AREA32 size");
_Static_assert(offsetof(PEBS_DS_SAVE_AREA32, PebsGpCounterReset) == 0x20, "DS32 GP resets");
_Static_assert(offsetof(PEBS_DS_SAVE_AREA32, PebsFixedCounterReset) == 0x60, "DS32 fixed resets");
_Static_assert(sizeof(PEBS_DS_SAVE_AREA64) == 0xa0, "PEBS_DS_SAVE_AREA64 size");
_Static_assert(offsetof(PEBS_DS_SAVE_AREA64, PebsBufferBase) == 0x20, "DS64 PebsBufferBase");
_Static_assert(offsetof(PEBS_DS_SAVE_AREA64, PebsInterruptThreshold) == 0x38, "DS64 threshold");
_Static_assert(offsetof(PEBS_DS_SAVE_AREA64, PebsGpCounterReset) == 0x40, "DS64 GP resets");
_Static_assert(offsetof(PEBS_DS_SAVE_AREA64, PebsFixedCounterReset) == 0x80, "DS64 fixed resets");
_Static_assert(sizeof(PROCESSOR_PROFILE_CONTROL_AREA) == 0xa0, "PROCESSOR_PROFILE_CONTROL_AREA size");
_Static_assert(sizeof(SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA) == 0x10, "SPPCA size");
_Static_assert(offsetof(SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA, Allocate) == 0x08, "SPPCA.Allocate");

/* SystemProcessorProfileControlArea (ntpmu_pebs.c) and SystemPerformanceTraceInformation (ntpmu_etw.c). */
NTSTATUS NTAPI NtSetSystemInformation(ULONG SystemInformationClass, PVOID SystemInformation,
				      ULONG SystemInformationLength);

#endif
