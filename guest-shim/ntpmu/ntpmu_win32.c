/* SPDX-License-Identifier: MIT */
/*
 * kernel32's thread-profiling calls: the Rtl* routine's NTSTATUS mapped to a
 * Win32 error code (docs/windows-api.md 3.4, mapping table docs/windows-api.md 7.1).
 */
#include "ntpmu_internal.h"

static const struct {
	NTSTATUS status;
	ULONG error;
} dos_errors[] = {
	{ STATUS_SUCCESS, ERROR_SUCCESS },
	{ STATUS_BUFFER_OVERFLOW, ERROR_MORE_DATA },
	{ STATUS_UNSUCCESSFUL, ERROR_GEN_FAILURE },
	{ STATUS_NOT_IMPLEMENTED, ERROR_INVALID_FUNCTION },
	{ STATUS_INVALID_INFO_CLASS, ERROR_INVALID_PARAMETER },
	{ STATUS_INFO_LENGTH_MISMATCH, ERROR_BAD_LENGTH },
	{ STATUS_ACCESS_VIOLATION, ERROR_NOACCESS },
	{ STATUS_INVALID_HANDLE, ERROR_INVALID_HANDLE },
	{ STATUS_INVALID_PARAMETER, ERROR_INVALID_PARAMETER },
	{ STATUS_NO_MEMORY, ERROR_NOT_ENOUGH_MEMORY },
	{ STATUS_ACCESS_DENIED, ERROR_ACCESS_DENIED },
	{ STATUS_BUFFER_TOO_SMALL, ERROR_INSUFFICIENT_BUFFER },
	{ STATUS_PRIVILEGE_NOT_HELD, ERROR_PRIVILEGE_NOT_HELD },
	{ STATUS_INSUFFICIENT_RESOURCES, ERROR_NO_SYSTEM_RESOURCES },
	{ STATUS_MEMORY_NOT_ALLOCATED, ERROR_INVALID_ADDRESS },
	{ STATUS_NOT_SUPPORTED, ERROR_NOT_SUPPORTED },
	{ STATUS_INVALID_PARAMETER_1, ERROR_INVALID_PARAMETER },
	{ STATUS_INVALID_PARAMETER_2, ERROR_INVALID_PARAMETER },
	{ STATUS_INVALID_PARAMETER_3, ERROR_INVALID_PARAMETER },
	{ STATUS_INVALID_PARAMETER_4, ERROR_INVALID_PARAMETER },
	{ STATUS_INVALID_BUFFER_SIZE, ERROR_INVALID_USER_BUFFER },
	{ STATUS_ADDRESS_ALREADY_EXISTS, ERROR_DUP_NAME },
	{ STATUS_WMI_INSTANCE_NOT_FOUND, ERROR_WMI_INSTANCE_NOT_FOUND },
	{ STATUS_WMI_ALREADY_ENABLED, ERROR_WMI_ALREADY_ENABLED },
};

/* Statuses without a mapping give ERROR_MR_MID_NOT_FOUND, as on Windows. */
ULONG NTAPI RtlNtStatusToDosError(NTSTATUS Status)
{
	size_t i;

	for (i = 0; i < sizeof(dos_errors) / sizeof(dos_errors[0]); i++)
		if (dos_errors[i].status == Status)
			return dos_errors[i].error;
	return ERROR_MR_MID_NOT_FOUND;
}

DWORD APIENTRY EnableThreadProfiling(HANDLE ThreadHandle, DWORD Flags, DWORD64 HardwareCounters,
				     HANDLE *PerformanceDataHandle)
{
	return RtlNtStatusToDosError(RtlEnableThreadProfiling(ThreadHandle, Flags, HardwareCounters,
							      PerformanceDataHandle));
}

DWORD APIENTRY DisableThreadProfiling(HANDLE PerformanceDataHandle)
{
	return RtlNtStatusToDosError(RtlDisableThreadProfiling(PerformanceDataHandle));
}

DWORD APIENTRY QueryThreadProfiling(HANDLE ThreadHandle, PBOOLEAN Enabled)
{
	return RtlNtStatusToDosError(RtlQueryThreadProfiling(ThreadHandle, Enabled));
}

DWORD APIENTRY ReadThreadProfilingData(HANDLE PerformanceDataHandle, DWORD Flags,
				       PPERFORMANCE_DATA PerformanceData)
{
	return RtlNtStatusToDosError(RtlReadThreadProfilingData(PerformanceDataHandle, Flags,
								PerformanceData));
}
