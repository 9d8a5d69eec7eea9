/* SPDX-License-Identifier: MIT */
/* ntpmu core state shared by its files. */
#ifndef NTPMU_INTERNAL_H
#define NTPMU_INTERNAL_H

#include "nt/ntddk.h"
#include "nt/ntexapi.h"
#include "nt/ntrtl.h"
#include "ntpmu_platform.h"
#include "x86-pmu/msr.h"

#define NTPMU_FIXED_BIT		32	/* global-status bit of fixed counter 0 */
#define NTPMU_RDPMC_FIXED	0x40000000u

/* Full-PMU handles: ++counter in [0x80000000, 0xBFFFFFFF] (docs/windows-api.md 2.4). */
#define NTPMU_FULL_HANDLE_FIRST	0x80000000u
#define NTPMU_FULL_HANDLE_END	0xC0000000u

/* One HalAllocateHardwareCounters grant. */
struct ntpmu_owner {
	struct ntpmu_owner *next;
	HANDLE handle;
	uint64_t cpus;			/* processors of group 0 */
	uint64_t counters;		/* global-status bits */
	bool overflow;			/* owns the overflow interrupt */
	PPHYSICAL_COUNTER_OVERFLOW_HANDLER handler;
	ULONG tag;
	/* ResourceTypeEventBuffer (ntpmu_evbuf.c): a PEBS buffer per processor. */
	bool evbuf;
	PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION eb;
	ULONG eb_entry_size;
	struct ntpmu_evbuf *eb_cpu;	/* the buffers, per processor */
};

struct ntpmu_evbuf {
	void *alloc[NTPMU_MAX_CPUS];
	PEBS_DS_SAVE_AREA64 *ds[NTPMU_MAX_CPUS];
};

struct ntpmu_cpu_state {
	uint64_t owned;			/* counters granted to HAL owners */
	bool ovf_taken;			/* the overflow interrupt is granted */
	/* Copied from the overflow owner: the PMI reads them without the lock. */
	PPHYSICAL_COUNTER_OVERFLOW_HANDLER ovf_handler;
	HANDLE ovf_handle;
	uint64_t ovf_counters;
	bool user_rdpmc;
	/* SystemProcessorProfileControlArea (ntpmu_pebs.c): cache-aligned area, its allocation. */
	void *pebs_area;
	void *pebs_alloc;
	struct ntpmu_owner *eb_owner;	/* the HAL event-buffer owner, read by the PMI */
};

/* Per-thread profiling state; the block comes first: handle == &blk. */
struct ntpmu_thread {
	THREAD_PERFORMANCE_DATA blk;
	struct ntpmu_thread *next;	/* every profiled thread, for ntpmu_exit() */
	void *thread;
	ULONG flags;
	uint64_t active;		/* bits i of blk.HardwareCounters we read */
	uint64_t width_mask[MAX_HW_COUNTERS];
};

struct ntpmu_state {
	const struct ntpmu_platform_ops *ops;
	void *ctx;

	bool amd;			/* AMD's core counters (ntpmu_msr.c), else Intel's */
	/* nr_fixed: one past the highest of fixed_counters (bit i: fixed counter i exists). */
	unsigned int version, nr_gp, nr_fixed, gp_width, fixed_width;
	uint32_t fixed_counters;
	uint64_t gp_mask, fixed_mask;	/* counter widths */
	uint64_t present;		/* global-status bits of existing counters */
	unsigned int nr_cpus;
	uint64_t all_cpus;

	struct ntpmu_cpu_state cpu[NTPMU_MAX_CPUS];
	struct ntpmu_owner *owners;
	uint32_t full_handle;

	/* KeSetHardwareCounterConfiguration (docs/windows-api.md 1.2) */
	ULONG config_count;
	ULONG config_index[MAX_HW_COUNTERS];
	uint64_t config_bits;		/* present counters it names */

	struct ntpmu_thread *profiled;
	unsigned int nr_profiled;
	void *profile_app;		/* the one profiling application */
};

extern struct ntpmu_state ntpmu;

static inline unsigned long ntpmu_lock(void)
{
	return ntpmu.ops->lock(ntpmu.ctx);
}

static inline void ntpmu_unlock(unsigned long flags)
{
	ntpmu.ops->unlock(ntpmu.ctx, flags);
}

/*
 * The PMU's MSRs by CPU vendor: Intel's architectural PMU
 * (docs/intel-pmu.md 2) or AMD's core counters with PerfMonV2 (AMD64 APM
 * vol. 2 13.2), which Windows also profiles with.
 */
static inline uint32_t ntpmu_msr_evtsel(unsigned int gp)
{
	return ntpmu.amd ? MSR_F15H_PERF_CTL0 + 2 * gp : MSR_IA32_PERFEVTSEL0 + gp;
}

static inline uint32_t ntpmu_msr_ctr(unsigned int gp)
{
	return ntpmu.amd ? MSR_F15H_PERF_CTR0 + 2 * gp : MSR_IA32_PMC0 + gp;
}

/*
 * A counter's value: -interval counts up to the wrap on either vendor
 * (Intel's legacy PMCx sign-extend bit 31 of a write; AMD's take 48 bits).
 */
static inline void ntpmu_ctr_write(unsigned int gp, int64_t value)
{
	ntpmu.ops->wrmsr(ntpmu.ctx, ntpmu_msr_ctr(gp),
			 ntpmu.amd ? (uint64_t)value & ntpmu.gp_mask : (uint32_t)value);
}

static inline uint32_t ntpmu_msr_global_ctrl(void)
{
	return ntpmu.amd ? MSR_AMD64_PERF_CNTR_GLOBAL_CTL : MSR_IA32_PERF_GLOBAL_CTRL;
}

static inline uint32_t ntpmu_msr_global_status(void)
{
	return ntpmu.amd ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS : MSR_IA32_PERF_GLOBAL_STATUS;
}

/* Write 1 to clear: GLOBAL_OVF_CTRL (Intel), PerfCntrGlobalStatusClr (AMD). */
static inline uint32_t ntpmu_msr_status_clear(void)
{
	return ntpmu.amd ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR : MSR_IA32_PERF_GLOBAL_OVF_CTRL;
}

/* The event-select bits of an event (enum pmu_arch_event); 0 if this PMU has none. */
uint64_t ntpmu_event_select(int ev);

/* Global-status bit of an RDPMC-style counter index; -1 if no such counter. */
int ntpmu_counter_bit(ULONG index);
/* Counters held by HAL owners on any processor. */
uint64_t ntpmu_hal_owned_any(void);
void ntpmu_hal_reset(void);
/* Stop every logger and close every Perflib query (ntpmu_exit()). */
void ntpmu_etw_reset(void);
void ntpmu_perflib_reset(void);
void ntpmu_thread_reset(void);
void ntpmu_pebs_reset(void);

/* IA32_MISC_ENABLE: perfmon available and PEBS not unavailable (ntpmu_pebs.c). */
bool ntpmu_pebs_supported(void);

/* NtSetSystemInformation's classes (ntpmu_sysinfo.c dispatches). */
NTSTATUS ntpmu_pebs_set_information(PVOID info, ULONG length);
NTSTATUS ntpmu_etw_set_information(PVOID info, ULONG length);

/* HAL event buffers (ntpmu_evbuf.c). */
NTSTATUS ntpmu_evbuf_parse(const PHYSICAL_COUNTER_EVENT_BUFFER_CONFIGURATION *c, bool *taken);
int ntpmu_evbuf_alloc(struct ntpmu_owner *o);
void ntpmu_evbuf_free(struct ntpmu_owner *o);
bool ntpmu_evbuf_conflicts(const struct ntpmu_cpu_state *cs);
void ntpmu_evbuf_install(struct ntpmu_owner *o);
void ntpmu_evbuf_remove(struct ntpmu_owner *o);
void ntpmu_evbuf_pmi(struct ntpmu_cpu_state *cs, uint64_t status);
/* The profiling state of the current thread, NULL if none; CPL3-safe. */
struct ntpmu_thread *ntpmu_current_profile(void);

#endif
