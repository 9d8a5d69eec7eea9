/* SPDX-License-Identifier: MIT */
/*
 * HAL event buffers: the ResourceTypeEventBuffer resource of
 * HalAllocateHardwareCounters (windows-api docs/windows-api.md 2.2, Windows 10 1903+).
 * The owner gets a PEBS buffer on each of its processors; when a buffer
 * holds EventThreshold records the PMI (GLOBAL_STATUS bit 62, intel-pmu
 * docs/windows-api.md 4) calls its handler with (buffer, entry size, number of entries,
 * owner), and the buffer starts over.  The owner programs the counters and
 * IA32_PEBS_ENABLE itself, as with the other resources.
 *
 * Choices (the spec is silent):
 *   - CustomEventBufferEntrySize must be 0 ("set to zero"), EventThreshold
 *     at least 1, the handler non-NULL, one event-buffer descriptor per
 *     list: otherwise STATUS_INVALID_PARAMETER; no PEBS (MISC_ENABLE)
 *     STATUS_NOT_SUPPORTED.
 *   - Entry size: 0xC8 for format 3; for adaptive formats the size
 *     PEBS_DATA_CFG gives when the buffer is allocated (program it first;
 *     records of counters without Adaptive_Record are smaller and the
 *     threshold then comes later).  The buffer holds EventThreshold records
 *     of the largest size, so a record never straddles the end.
 *   - A processor with a control area (SystemProcessorProfileControlArea)
 *     or another event buffer conflicts: STATUS_INSUFFICIENT_RESOURCES.
 */
#include "ntpmu_internal.h"
#include "x86-pmu/msr.h"

#define DS_AREA_SIZE	0x200	/* the management area of every format */
#define REC_FMT3	0xc8
#define REC_BASIC	0x20	/* adaptive groups (intel-pmu docs/windows-api.md 4.4) */
#define REC_MEMINFO	0x20
#define REC_GPRS	0x90
#define REC_XMMS	0x100
#define REC_MAX		(REC_BASIC + REC_MEMINFO + REC_GPRS + REC_XMMS)
#define CACHE_LINE	64

NTSTATUS ntpmu_evbuf_parse(const PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION *c, bool *taken)
{
	if (*taken || !c->OverflowHandler || c->CustomEventBufferEntrySize || !c->EventThreshold)
		return STATUS_INVALID_PARAMETER;
	if (!ntpmu_pebs_supported())
		return STATUS_NOT_SUPPORTED;
	*taken = true;
	return STATUS_SUCCESS;
}

static ULONG entry_size(void)
{
	uint64_t caps = 0, cfg = 0;
	ULONG size = REC_BASIC;

	ntpmu.ops->rdmsr(ntpmu.ctx, MSR_IA32_PERF_CAPABILITIES, &caps);
	if (((caps & PERF_CAP_PEBS_FORMAT) >> PERF_CAP_PEBS_FORMAT_SHIFT) < 4)
		return REC_FMT3;
	ntpmu.ops->rdmsr(ntpmu.ctx, MSR_PEBS_DATA_CFG, &cfg);
	if (cfg & PEBS_DATACFG_MEMINFO)
		size += REC_MEMINFO;
	if (cfg & PEBS_DATACFG_GPRS)
		size += REC_GPRS;
	if (cfg & PEBS_DATACFG_XMMS)
		size += REC_XMMS;
	return size;
}

/* One processor's DS area + buffer; NULL if out of memory. */
static void *buffer_alloc(struct ntpmu_owner *o, PEBS_DS_SAVE_AREA64 **ds)
{
	size_t bytes = (size_t)o->eb.EventThreshold * REC_MAX;
	uint8_t *raw, *base;

	if (bytes / REC_MAX != o->eb.EventThreshold)
		return NULL;
	raw = ntpmu.ops->zalloc(ntpmu.ctx, DS_AREA_SIZE + bytes + CACHE_LINE - 1);
	if (!raw)
		return NULL;
	*ds = (void *)(((uintptr_t)raw + CACHE_LINE - 1) & ~(uintptr_t)(CACHE_LINE - 1));
	base = (uint8_t *)*ds + DS_AREA_SIZE;
	(*ds)->PebsBufferBase = (uintptr_t)base;
	(*ds)->PebsIndex = (uintptr_t)base;
	(*ds)->PebsAbsoluteMaximum = (uintptr_t)base + bytes;
	(*ds)->PebsInterruptThreshold = (uintptr_t)base + (uint64_t)o->eb.EventThreshold *
								 o->eb_entry_size;
	return raw;
}

int ntpmu_evbuf_alloc(struct ntpmu_owner *o)
{
	unsigned int c;

	o->eb_entry_size = entry_size();
	o->eb_cpu = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*o->eb_cpu));
	if (!o->eb_cpu)
		return -1;
	for (c = 0; c < ntpmu.nr_cpus; c++) {
		if (!(o->cpus >> c & 1))
			continue;
		o->eb_cpu->alloc[c] = buffer_alloc(o, &o->eb_cpu->ds[c]);
		if (!o->eb_cpu->alloc[c]) {
			ntpmu_evbuf_free(o);
			return -1;
		}
	}
	return 0;
}

void ntpmu_evbuf_free(struct ntpmu_owner *o)
{
	unsigned int c;

	if (!o->eb_cpu)
		return;
	for (c = 0; c < NTPMU_MAX_CPUS; c++)
		if (o->eb_cpu->alloc[c])
			ntpmu.ops->free(ntpmu.ctx, o->eb_cpu->alloc[c]);
	ntpmu.ops->free(ntpmu.ctx, o->eb_cpu);
	o->eb_cpu = NULL;
}

bool ntpmu_evbuf_conflicts(const struct ntpmu_cpu_state *cs)
{
	return cs->eb_owner || cs->pebs_area;
}

static void ds_program(void *arg)
{
	struct ntpmu_owner *o = arg;
	unsigned int c = ntpmu.ops->cpu_id(ntpmu.ctx);

	ntpmu.ops->wrmsr(ntpmu.ctx, MSR_IA32_DS_AREA, (uintptr_t)o->eb_cpu->ds[c]);
}

static void ds_clear(void *arg)
{
	(void)arg;
	ntpmu.ops->wrmsr(ntpmu.ctx, MSR_IA32_PEBS_ENABLE, 0);
	ntpmu.ops->wrmsr(ntpmu.ctx, MSR_IA32_DS_AREA, 0);
}

/* Outside the lock: another processor may be waiting for it with interrupts off. */
void ntpmu_evbuf_install(struct ntpmu_owner *o)
{
	unsigned int c;

	for (c = 0; c < ntpmu.nr_cpus; c++)
		if (o->cpus >> c & 1)
			ntpmu.ops->run_on_cpu(ntpmu.ctx, c, ds_program, o);
}

void ntpmu_evbuf_remove(struct ntpmu_owner *o)
{
	unsigned int c;

	for (c = 0; c < ntpmu.nr_cpus; c++)
		if (o->cpus >> c & 1)
			ntpmu.ops->run_on_cpu(ntpmu.ctx, c, ds_clear, NULL);
	ntpmu_evbuf_free(o);
}

/* In the PMI, this processor: deliver a buffer that reached its threshold. */
void ntpmu_evbuf_pmi(struct ntpmu_cpu_state *cs, uint64_t status)
{
	struct ntpmu_owner *o = __atomic_load_n(&cs->eb_owner, __ATOMIC_ACQUIRE);
	PEBS_DS_SAVE_AREA64 *ds;
	uint64_t used;

	if (!o || !(status & GLOBAL_STATUS_BUFFER_OVF))
		return;
	ds = o->eb_cpu->ds[ntpmu.ops->cpu_id(ntpmu.ctx)];
	used = ds->PebsIndex - ds->PebsBufferBase;
	o->eb.OverflowHandler((PVOID)(uintptr_t)ds->PebsBufferBase, o->eb_entry_size,
			      used / o->eb_entry_size, o->handle);
	ds->PebsIndex = ds->PebsBufferBase;
}
