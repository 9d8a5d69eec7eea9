/* SPDX-License-Identifier: MIT */
/*
 * ReadThreadProfilingData's ntdll half (docs/windows-api.md 3.5): runs in the profiled
 * thread, possibly at CPL3, so it takes no lock and makes no kernel call: it
 * reads the thread's block and the live counters with RDPMC and RDTSC, as
 * Windows does, and retries while the block's UpdateCount moves (the thread
 * was switched out and in during the read).
 *
 * Checks in Windows' order: Size, Version, Flags; then the handle, which
 * must be the calling thread's block (STATUS_INVALID_HANDLE otherwise; a
 * NULL PerformanceData is STATUS_INVALID_PARAMETER_3).  An RDPMC that faults
 * (user RDPMC not enabled) gives STATUS_PRIVILEGED_INSTRUCTION.
 */
#include "ntpmu_internal.h"

/* One consistent pass; false if RDPMC faulted. */
static bool read_pass(const THREAD_PERFORMANCE_DATA *b, ULONG flags, PERFORMANCE_DATA *pd)
{
	ULONG i;

	pd->CycleTime = b->CycleTime.Total - b->CycleTime.Start + ntpmu.ops->rdtsc(ntpmu.ctx);
	if (flags & READ_THREAD_PROFILING_FLAG_DISPATCHING) {
		pd->ContextSwitchCount = b->ContextSwitches;
		pd->WaitReasonBitMap |= __atomic_exchange_n(
			&((THREAD_PERFORMANCE_DATA *)b)->WaitReasonBitMap, 0, __ATOMIC_RELAXED);
	}
	if (!(flags & READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS))
		return true;
	for (i = 0; i < b->HwCountersCount && i < MAX_HW_COUNTERS; i++) {
		const COUNTER_READING *r = &b->HwCounters[i];
		uint64_t now;

		if (!(b->HardwareCounters >> i & 1))
			continue;
		if (ntpmu.ops->rdpmc(ntpmu.ctx, r->Index, &now))
			return false;
		pd->HwCounters[i].Type = PMCCounter;
		pd->HwCounters[i].Reserved = 0;
		/* 32-bit delta, exactly as the Windows reader computes it. */
		pd->HwCounters[i].Value = r->Total + (ULONG)((ULONG)now - (ULONG)r->Start);
	}
	pd->HwCountersCount = (BYTE)b->HwCountersCount;
	return true;
}

NTSTATUS NTAPI RtlReadThreadProfilingData(HANDLE PerformanceDataHandle, ULONG Flags,
					  PPERFORMANCE_DATA PerformanceData)
{
	struct ntpmu_thread *t;
	const THREAD_PERFORMANCE_DATA *b;
	uint64_t gen;
	DWORD retries = 0;

	if (!PerformanceData)
		return STATUS_INVALID_PARAMETER_3;
	if (PerformanceData->Size != sizeof(PERFORMANCE_DATA))
		return STATUS_INVALID_BUFFER_SIZE;
	if (PerformanceData->Version != PERFORMANCE_DATA_VERSION)
		return STATUS_INVALID_PARAMETER_3;
	if (Flags & ~(ULONG)(READ_THREAD_PROFILING_FLAG_DISPATCHING |
			     READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS))
		return STATUS_INVALID_PARAMETER_2;
	t = ntpmu_current_profile();
	if (!t || PerformanceDataHandle != &t->blk)
		return STATUS_INVALID_HANDLE;

	b = &t->blk;
	PerformanceData->WaitReasonBitMap = 0;
	for (;;) {
		gen = __atomic_load_n(&b->UpdateCount, __ATOMIC_ACQUIRE);
		if (!read_pass(b, Flags, PerformanceData))
			return STATUS_PRIVILEGED_INSTRUCTION;
		if (__atomic_load_n(&b->UpdateCount, __ATOMIC_ACQUIRE) == gen)
			break;
		retries++;
	}
	PerformanceData->RetryCount = retries;
	return STATUS_SUCCESS;
}
