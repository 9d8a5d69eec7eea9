/* SPDX-License-Identifier: MIT */
/*
 * NtSetSystemInformation(SystemProcessorProfileControlArea)
 * (docs/windows-api.md 5) and the PEBS buffer reader (ntpmu/pebs.h).
 *
 * The control area is allocated before anything is checked, as Windows
 * does, zeroed and cache-aligned; installing it programs IA32_DS_AREA on
 * the current processor, removing it clears IA32_PEBS_ENABLE and
 * IA32_DS_AREA first so no assist can write through a freed area.
 * Support is IA32_MISC_ENABLE's "perfmon available" set and "PEBS
 * unavailable" clear.  Windows also requires an Intel CPUID vendor; that
 * check is left out because pmuvm gives an Intel PMU to guests on any host,
 * whose vendor string the guest sees.
 */
#include "ntpmu_internal.h"
#include <ntpmu/pebs.h>
#include "x86-pmu/msr.h"

#define CACHE_LINE	64

bool ntpmu_pebs_supported(void)
{
	uint64_t misc;

	if (ntpmu.ops->rdmsr(ntpmu.ctx, MSR_IA32_MISC_ENABLE, &misc))
		return false;
	return (misc & MISC_ENABLE_EMON) && !(misc & MISC_ENABLE_PEBS_UNAVAIL);
}

static NTSTATUS area_allocate(PSYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s)
{
	void *raw = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(PROCESSOR_PROFILE_CONTROL_AREA) +
					     CACHE_LINE - 1);
	PPROCESSOR_PROFILE_CONTROL_AREA area;
	struct ntpmu_cpu_state *cpu;
	NTSTATUS status = STATUS_SUCCESS;
	unsigned long flags;

	if (!raw) {
		s->ProcessorProfileControlArea = NULL;
		return STATUS_INSUFFICIENT_RESOURCES;
	}
	area = (void *)(((uintptr_t)raw + CACHE_LINE - 1) & ~(uintptr_t)(CACHE_LINE - 1));

	/* The body runs on one processor: the lock keeps this thread here. */
	flags = ntpmu_lock();
	cpu = &ntpmu.cpu[ntpmu.ops->cpu_id(ntpmu.ctx)];
	if (!ntpmu_pebs_supported()) {
		s->ProcessorProfileControlArea = NULL;
		status = STATUS_NOT_SUPPORTED;
	} else if (cpu->pebs_area) {
		s->ProcessorProfileControlArea = cpu->pebs_area;
		status = STATUS_ADDRESS_ALREADY_EXISTS;
	} else if (cpu->eb_owner) {
		/* A HAL event buffer owns this processor's DS area (ntpmu_evbuf.c). */
		s->ProcessorProfileControlArea = NULL;
		status = STATUS_INSUFFICIENT_RESOURCES;
	} else if (ntpmu.ops->wrmsr(ntpmu.ctx, MSR_IA32_DS_AREA, (uintptr_t)area)) {
		s->ProcessorProfileControlArea = NULL;
		status = STATUS_NOT_SUPPORTED;
	} else {
		cpu->pebs_area = area;
		cpu->pebs_alloc = raw;
		s->ProcessorProfileControlArea = area;
		raw = NULL;
	}
	ntpmu_unlock(flags);
	if (raw)
		ntpmu.ops->free(ntpmu.ctx, raw);
	return status;
}

/* Detaches this CPU's area; returns the allocation to free, NULL if none. */
static void *area_detach(struct ntpmu_cpu_state *cpu)
{
	void *raw = cpu->pebs_alloc;

	if (!cpu->pebs_area)
		return NULL;
	ntpmu.ops->wrmsr(ntpmu.ctx, MSR_IA32_PEBS_ENABLE, 0);
	ntpmu.ops->wrmsr(ntpmu.ctx, MSR_IA32_DS_AREA, 0);
	cpu->pebs_area = NULL;
	cpu->pebs_alloc = NULL;
	return raw;
}

static NTSTATUS area_free(PSYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s)
{
	unsigned long flags;
	void *raw;

	s->ProcessorProfileControlArea = NULL;
	flags = ntpmu_lock();
	raw = area_detach(&ntpmu.cpu[ntpmu.ops->cpu_id(ntpmu.ctx)]);
	ntpmu_unlock(flags);
	if (!raw)
		return STATUS_MEMORY_NOT_ALLOCATED;
	ntpmu.ops->free(ntpmu.ctx, raw);
	return STATUS_SUCCESS;
}

NTSTATUS ntpmu_pebs_set_information(PVOID SystemInformation, ULONG SystemInformationLength)
{
	PSYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = SystemInformation;

	if (SystemInformationLength != sizeof(*s))
		return STATUS_INFO_LENGTH_MISMATCH;
	if (!s)
		return STATUS_ACCESS_VIOLATION;
	if (!ntpmu.ops) {
		s->ProcessorProfileControlArea = NULL;
		return STATUS_NOT_SUPPORTED;
	}
	return s->Allocate ? area_allocate(s) : area_free(s);
}

/* ntpmu_exit(): every processor's area, as if each had freed its own. */
void ntpmu_pebs_reset(void)
{
	unsigned int i;

	for (i = 0; i < NTPMU_MAX_CPUS; i++) {
		if (!ntpmu.cpu[i].pebs_alloc)
			continue;
		ntpmu.ops->free(ntpmu.ctx, ntpmu.cpu[i].pebs_alloc);
		ntpmu.cpu[i].pebs_area = NULL;
		ntpmu.cpu[i].pebs_alloc = NULL;
	}
}

static ULONG64 rec_q(const uint8_t *rec, unsigned int off)
{
	ULONG64 v;

	__builtin_memcpy(&v, rec + off, sizeof(v));
	return v;
}

/* Format 3 (0xc8 bytes): legacy register order at 0x10. */
static void parse_fmt3(const uint8_t *rec, struct ntpmu_pebs_sample *s)
{
	static const unsigned char arch_slot[16] = { 0, 2, 3, 1, 7, 6, 4, 5,
						     8, 9, 10, 11, 12, 13, 14, 15 };
	unsigned int i;

	s->Rflags = rec_q(rec, 0x00);
	s->Ip = rec_q(rec, 0x08);
	for (i = 0; i < 16; i++)
		s->Gpr[i] = rec_q(rec, 0x10 + 8 * arch_slot[i]);
	s->HasGprs = TRUE;
	s->Counters = rec_q(rec, 0x90);
	s->EventingIp = rec_q(rec, 0xb0);
	s->Tsc = rec_q(rec, 0xc0);
}

/* Adaptive (formats 4, 5): Basic, then MemInfo and GPR groups if present. */
static void parse_adaptive(const uint8_t *rec, struct ntpmu_pebs_sample *s)
{
	ULONG64 hdr = rec_q(rec, 0x00);
	unsigned int off = 0x20, i;

	s->EventingIp = rec_q(rec, 0x08);
	s->Counters = rec_q(rec, 0x10);
	s->Tsc = rec_q(rec, 0x18);
	if (hdr & PEBS_DATACFG_MEMINFO)
		off += 0x20;
	if (!(hdr & PEBS_DATACFG_GPRS))
		return;
	s->Rflags = rec_q(rec, off);
	s->Ip = rec_q(rec, off + 8);
	for (i = 0; i < 16; i++)
		s->Gpr[i] = rec_q(rec, off + 0x10 + 8 * i);
	s->HasGprs = TRUE;
}

int ntpmu_pebs_read(const PROCESSOR_PROFILE_CONTROL_AREA *area,
		    struct ntpmu_pebs_sample *out, unsigned int max)
{
	const PEBS_DS_SAVE_AREA64 *ds = &area->PebsDsSaveArea.As64Bit;
	ULONG64 pos = ds->PebsBufferBase, end = ds->PebsIndex, size;
	unsigned int fmt, n = 0;
	uint64_t caps;

	if (ntpmu.ops->rdmsr(ntpmu.ctx, MSR_IA32_PERF_CAPABILITIES, &caps))
		return -1;
	fmt = (unsigned int)((caps & PERF_CAP_PEBS_FORMAT) >> PERF_CAP_PEBS_FORMAT_SHIFT);
	if (fmt < 3)
		return -1;
	while (pos < end && n < max) {
		const uint8_t *rec = (const uint8_t *)(uintptr_t)pos;

		size = fmt == 3 ? 0xc8 : rec_q(rec, 0) >> 48;
		if (size < 0x20 || size > end - pos)
			return -1;
		__builtin_memset(&out[n], 0, sizeof(out[n]));
		if (fmt == 3)
			parse_fmt3(rec, &out[n]);
		else
			parse_adaptive(rec, &out[n]);
		n++;
		pos += size;
	}
	return (int)n;
}
