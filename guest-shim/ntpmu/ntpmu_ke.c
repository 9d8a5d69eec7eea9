/* SPDX-License-Identifier: MIT */
/*
 * KeSetHardwareCounterConfiguration / KeQueryHardwareCounterConfiguration
 * (docs/windows-api.md 1.2-1.3; Windows docs, KeSetHardwareCounterConfiguration).
 *
 * The configuration is one global list of counter indices, copied in (low 32
 * bits of Index; Type and Reserved are not validated, docs/windows-api.md 1.2 [Dc]), used
 * by every processor with its own counters.  Count = 0 is the empty
 * configuration and the boot default.
 *
 * Status precedence of the set call:
 *   1. no architectural PMU                      STATUS_NOT_IMPLEMENTED
 *   2. Count > MAX_HW_COUNTERS                   STATUS_INVALID_PARAMETER
 *   3. Count > 0 and CounterArray NULL           STATUS_INVALID_PARAMETER
 *   4. counters in use                           STATUS_WMI_ALREADY_ENABLED:
 *      - thread profiling is enabled on some thread ("call this routine only
 *        when thread profiling is disabled"; any Count, since the profiled
 *        threads read the configured counters);
 *      - Count > 0 while a non-empty configuration is installed (docs/windows-api.md 1.2
 *        [Dc] step 2: replace it by first setting the empty one);
 *      - Count > 0 and a configured counter is held by a HalAllocate-
 *        HardwareCounters owner on any processor.
 * The NOT_IMPLEMENTED answer comes first because on an unsupported machine
 * the routine is not there at all (docs/windows-api.md 1.2: architectures
 * without support).
 */
#include "ntpmu_internal.h"

NTSTATUS NTAPI KeSetHardwareCounterConfiguration(PHARDWARE_COUNTER CounterArray, ULONG Count)
{
	uint64_t bits = 0;
	unsigned long flags;
	NTSTATUS st = STATUS_SUCCESS;
	ULONG i;

	if (!ntpmu.version)
		return STATUS_NOT_IMPLEMENTED;
	if (Count > MAX_HW_COUNTERS)
		return STATUS_INVALID_PARAMETER;
	if (Count && !CounterArray)
		return STATUS_INVALID_PARAMETER;
	for (i = 0; i < Count; i++) {
		int bit = ntpmu_counter_bit((ULONG)CounterArray[i].Index);

		if (bit >= 0)
			bits |= 1ULL << bit;
	}

	flags = ntpmu_lock();
	if (ntpmu.nr_profiled)
		st = STATUS_WMI_ALREADY_ENABLED;
	else if (Count && ntpmu.config_count)
		st = STATUS_WMI_ALREADY_ENABLED;
	else if (bits & ntpmu_hal_owned_any())
		st = STATUS_WMI_ALREADY_ENABLED;
	if (st == STATUS_SUCCESS) {
		for (i = 0; i < Count; i++)
			ntpmu.config_index[i] = (ULONG)CounterArray[i].Index;
		ntpmu.config_count = Count;
		ntpmu.config_bits = bits;
	}
	ntpmu_unlock(flags);
	return st;
}

/*
 * *Count is written first, always (docs/windows-api.md 1.3 [Dc]); a too-small buffer gets
 * the required count and nothing else.
 */
NTSTATUS NTAPI KeQueryHardwareCounterConfiguration(PHARDWARE_COUNTER CounterArray,
						   ULONG MaximumCount, PULONG Count)
{
	unsigned long flags;
	NTSTATUS st = STATUS_SUCCESS;
	ULONG i;

	if (!ntpmu.version)
		return STATUS_NOT_IMPLEMENTED;
	if (!Count)
		return STATUS_INVALID_PARAMETER;

	flags = ntpmu_lock();
	*Count = ntpmu.config_count;
	if (ntpmu.config_count > MaximumCount) {
		st = STATUS_BUFFER_TOO_SMALL;
	} else if (ntpmu.config_count && !CounterArray) {
		st = STATUS_INVALID_PARAMETER;
	} else {
		for (i = 0; i < ntpmu.config_count; i++) {
			CounterArray[i].Type = PMCCounter;
			CounterArray[i].Reserved = 0;
			CounterArray[i].Index = ntpmu.config_index[i];
		}
	}
	ntpmu_unlock(flags);
	return st;
}
