/* SPDX-License-Identifier: MIT */
/*
 * NtSetSystemInformation: the classes ntpmu implements, each in its own
 * file; any other SYSTEM_INFORMATION_CLASS is STATUS_INVALID_INFO_CLASS.
 */
#include "nt/ntwmi.h"
#include "ntpmu_internal.h"

NTSTATUS NTAPI NtSetSystemInformation(ULONG SystemInformationClass, PVOID SystemInformation,
				      ULONG SystemInformationLength)
{
	switch (SystemInformationClass) {
	case SystemProcessorProfileControlArea:
		return ntpmu_pebs_set_information(SystemInformation, SystemInformationLength);
	case SystemPerformanceTraceInformation:
		return ntpmu_etw_set_information(SystemInformation, SystemInformationLength);
	default:
		return STATUS_INVALID_INFO_CLASS;
	}
}
