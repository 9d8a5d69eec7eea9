/* SPDX-License-Identifier: MIT */
/*
 * Windows base types with their x64 (LLP64) sizes, for code written against
 * the Windows counter interfaces (Microsoft's documentation of these calls):
 * ULONG is 32 bits, pointers, HANDLE, SIZE_T and KAFFINITY are 64, enums 32.
 * Usable hosted and freestanding: only <stdint.h>/<stddef.h>.
 */
#ifndef NT_NTDEF_H
#define NT_NTDEF_H

#include <stddef.h>
#include <stdint.h>

#define NTAPI
#define NTKERNELAPI
#define NTHALAPI
#define APIENTRY
#define ANYSIZE_ARRAY	1

typedef void		VOID;
typedef void		*PVOID;
typedef uint8_t		UCHAR, BYTE, BOOLEAN, *PBOOLEAN;
typedef uint16_t	USHORT, WORD;
typedef uint32_t	ULONG, DWORD, *PULONG;
typedef int32_t		LONG;
typedef uint64_t	ULONG64, ULONGLONG, DWORD64;
typedef uintptr_t	ULONG_PTR, SIZE_T, KAFFINITY;
typedef intptr_t	LONG_PTR;
typedef void		*HANDLE, **PHANDLE;
typedef LONG		NTSTATUS;
typedef int64_t		LONGLONG;
/* UTF-16 code unit: write literals as u"..." (wchar_t is 32 bits here). */
typedef uint16_t	WCHAR, *PWSTR;
typedef const uint16_t	*PCWSTR, *LPCWSTR;
typedef DWORD		*LPDWORD;

typedef struct _GUID {
	ULONG Data1;
	USHORT Data2;
	USHORT Data3;
	UCHAR Data4[8];
} GUID, *LPGUID;
typedef const GUID *LPCGUID;

#define TRUE	1
#define FALSE	0

#define NT_SUCCESS(s)	((NTSTATUS)(s) >= 0)

/* The pseudo handle GetCurrentThread()/NtCurrentThread() return. */
#define NtCurrentThread()	((HANDLE)(LONG_PTR)-2)

typedef struct _GROUP_AFFINITY {	/* docs/windows-api.md 2.2 */
	KAFFINITY Mask;
	USHORT Group;
	USHORT Reserved[3];
} GROUP_AFFINITY, *PGROUP_AFFINITY;

typedef struct _PROCESSOR_NUMBER {
	USHORT Group;
	UCHAR Number;
	UCHAR Reserved;
} PROCESSOR_NUMBER;

/* In both winnt.h and ntddk.h (docs/windows-api.md 1.1). */
#define MAX_HW_COUNTERS			16
#define THREAD_PROFILING_FLAG_DISPATCH	0x00000001

typedef enum _HARDWARE_COUNTER_TYPE {
	PMCCounter,
	MaxHardwareCounterType
} HARDWARE_COUNTER_TYPE, *PHARDWARE_COUNTER_TYPE;

_Static_assert(sizeof(ULONG) == 4 && sizeof(HANDLE) == 8 && sizeof(KAFFINITY) == 8,
	       "x64 LLP64 sizes");
_Static_assert(sizeof(HARDWARE_COUNTER_TYPE) == 4, "enums are 32 bits");
_Static_assert(sizeof(GROUP_AFFINITY) == 0x10, "GROUP_AFFINITY size");
_Static_assert(offsetof(GROUP_AFFINITY, Group) == 0x08, "GROUP_AFFINITY.Group");
_Static_assert(offsetof(GROUP_AFFINITY, Reserved) == 0x0a, "GROUP_AFFINITY.Reserved");
_Static_assert(sizeof(PROCESSOR_NUMBER) == 4, "PROCESSOR_NUMBER size");
_Static_assert(sizeof(GUID) == 0x10, "GUID size");

#endif
