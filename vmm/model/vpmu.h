/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vpmu: a software model of an x86 PMU, Intel's architectural PMU
 * (versions 1-5, PEBS: intel.c) or AMD's core counters (legacy, core
 * extension, PerfMonV2: amd.c), over one vendor-neutral core.
 *
 * Pure C with no KVM or OS dependency: the VMM drives it through the MSR
 * accessors and feeds it event counts from counting sources; unit tests drive
 * it the same way in-process.
 *
 * Index spaces (the same three as Linux KVM):
 *   - MSR number: Intel 0xC1+x / 0x4C1+x (PMCx), 0x186+x (PERFEVTSELx),
 *     0x309+i (FIXED_CTRi); AMD 0xC0010000+x / 0xC0010004+x (legacy),
 *     0xC0010200+2x / +2x+1 (PERF_CTLx / PERF_CTRx).
 *   - RDPMC index: ECX[15:0] = x for GP counters, ECX[30] set + i for fixed.
 *   - Global PMC index: bit x for GP counter x, bit 32+i for fixed counter i, the
 *     layout of GLOBAL_CTRL, GLOBAL_STATUS and the overflow bitmaps below.
 */
#ifndef VPMU_H
#define VPMU_H

#include <stdbool.h>
#include <stdint.h>

#include "x86-pmu/events.h"
#include "x86-pmu/msr.h"
#include "model/event_filter.h"

#define VPMU_MAX_GP	8
#define VPMU_MAX_FIXED	4
/* CPUID.0AH:EBX has 32 bits: a longer event vector names nothing more. */
#define VPMU_MAX_EVENT_VECTOR_LEN	32

/* Return values of the MSR and RDPMC accessors. */
enum {
	VPMU_OK = 0,
	VPMU_GP = 1,		/* the guest gets #GP(0) */
};

/* Whose PMU the model is (docs/machine.md, "CPU vendor and PMU"). */
enum vpmu_vendor_id {
	VPMU_VENDOR_INTEL,	/* the architectural PMU, versions 1-5 */
	VPMU_VENDOR_AMD,	/* core counters: 1 legacy/core extension, 2 PerfMonV2 */
};

struct vpmu_config {
	enum vpmu_vendor_id vendor;
	unsigned int version;		/* 0 (no PMU) or 1..5 (AMD: 1..2) */
	unsigned int nr_gp;		/* 1..8 (0 only with version 0) */
	unsigned int gp_width;		/* bits, 32..64; default 48 */
	unsigned int nr_fixed;		/* 0..4, CPUID.0AH:EDX[4:0]; forced to 0 for version 1 */
	/*
	 * Version 5: CPUID.0AH:ECX, fixed counters that exist beyond the first
	 * nr_fixed (SDM vol. 2A, CPUID leaf 0AH: counter i exists if ECX[i] or
	 * EDX[4:0] > i); 0 before version 5.  vpmu_fixed_counters() is the union.
	 */
	uint32_t fixed_bitmap;
	unsigned int fixed_width;	/* bits; default 48 */
	bool full_width_write;		/* PERF_CAPABILITIES.FW_WRITE and 0x4C1+ */
	bool pdcm;			/* PERF_CAPABILITIES exists (CPUID.1:ECX.PDCM) */
	bool pebs;			/* DS/PEBS advertised */
	unsigned int pebs_format;	/* 3, 4 or 5 when pebs */
	bool pebs_baseline;		/* adaptive PEBS (format >= 4) */
	/* Bitmask over enum pmu_arch_event: what the active sources can produce. */
	uint32_t available_events;
	/*
	 * Enumeration only (docs/counting.md, "Architectural events the CPUID
	 * leaves out"): CPUID.0AH:EAX[31:24], the length of the EBX event
	 * vector (0..32; 0 is meaningful, so vpmu_config_default() sets it),
	 * and EBX bits set on top of the events the sources cannot produce.
	 * Neither changes what counts.
	 */
	unsigned int event_vector_len;
	uint32_t events_unavailable;
};

/* The fixed counters a configuration has, bit i for counter i (SDM vol. 2A, CPUID leaf 0AH). */
static inline uint32_t vpmu_fixed_counters(const struct vpmu_config *cfg)
{
	return (cfg->nr_fixed ? ~0u >> (32 - cfg->nr_fixed) : 0) | cfg->fixed_bitmap;
}

/* One past the highest fixed counter: loops over fixed counters stop here. */
static inline unsigned int vpmu_fixed_span(const struct vpmu_config *cfg)
{
	uint32_t fixed = vpmu_fixed_counters(cfg);

	return fixed ? 32 - (unsigned int)__builtin_clz(fixed) : 0;
}

static inline bool vpmu_fixed_exists(const struct vpmu_config *cfg, unsigned int idx)
{
	return idx < 32 && (vpmu_fixed_counters(cfg) >> idx & 1);
}

struct vpmu_pmc {
	uint64_t value;		/* always masked to the counter width */
	uint64_t ctl;		/* PERFEVTSELx for GP counters; unused for fixed */
	bool edge_prev;		/* previous condition, for EVTSEL.E */
};

/*
 * What the configuration's PMU has beyond its counters, as its vendor
 * model derives it at init (the refresh op): the vendor-neutral core tests
 * these, never a version number.
 */
struct vpmu_caps {
	/*
	 * GLOBAL_CTRL gates every counter, GLOBAL_STATUS and its clear MSR
	 * exist: Intel v2+ (docs/intel-pmu.md 3.1), AMD PerfMonV2.
	 */
	bool global_ctrl;
	/* Intel v4+: GLOBAL_STATUS_SET and GLOBAL_INUSE (docs/intel-pmu.md 2.7, 2.8). */
	bool global_status_set;
	/* Intel v4+: the streamlined freeze, CTR_Frz stops every counter (docs/intel-pmu.md 3.6). */
	bool ctr_frz;
	/* DEBUGCTL's freeze-on-PMI bits are writable: Intel v2+ with PDCM (docs/intel-pmu.md 2.9). */
	bool freeze_on_pmi;
	/* AMD's core extension: six counters at 0xC0010200 (APM vol. 2 13.2). */
	bool core_ext;
	/* Intel: the core whose model-specific event encodings the PMU decodes (events.h). */
	enum pmu_core core;
};

struct vpmu_vendor;

struct vpmu {
	struct vpmu_config cfg;
	const struct vpmu_vendor *vendor;	/* MSRs, reset, event encodings */
	struct vpmu_caps caps;
	uint64_t gp_mask;		/* (1 << gp_width) - 1 */
	uint64_t fixed_mask;

	struct vpmu_pmc gp[VPMU_MAX_GP];
	struct vpmu_pmc fixed[VPMU_MAX_FIXED];

	uint64_t fixed_ctr_ctrl;
	uint64_t global_ctrl;
	uint64_t global_status;
	uint64_t debugctl;
	uint64_t misc_enable;
	uint64_t perf_capabilities;
	uint64_t pebs_enable;
	uint64_t pebs_data_cfg;
	uint64_t pebs_ld_lat;
	uint64_t ds_area;

	/* Reserved-bit masks derived from cfg at init ("all reserved" first). */
	uint64_t evtsel_rsvd;
	uint64_t fixed_ctr_ctrl_rsvd;
	uint64_t global_ctrl_rsvd;
	uint64_t global_ovf_ctrl_rsvd;
	uint64_t global_status_set_rsvd;
	uint64_t pebs_enable_rsvd;
	uint64_t debugctl_rsvd;

	/* Outputs for the VMM, consumed with the take_* calls. */
	bool pmi_pending;
	uint64_t overflows;		/* global-index bits overflowed since last take */
	uint64_t pebs_armed;		/* PEBS counters that wrapped, awaiting their assist */

	/* The operator's event filter (filter.h); NULL allows everything. */
	const struct vpmu_filter *filter;

	/*
	 * Derived from the controls by vpmu_reprogram(), for counting: per
	 * level (0: CPL 0, 1: CPL 1-3) and event, the global-index bits of the
	 * counters counting it; per level, the events some counter counts.
	 */
	uint64_t counting[2][PMU_EV_NR];
	uint32_t events_at[2];
	uint64_t pmi_counters;		/* INT / fixed PMI set: an overflow requests a PMI */
	uint32_t unavailable_enabled;	/* events enabled on some counter but not available */
	uint64_t edge_counters;		/* counting with EVTSEL.E, edge still to come */

	/* Statistics for the report. */
	uint64_t nr_pmis_requested;
	uint64_t nr_overflows;
};

/*
 * Fills in defaults for fields left 0 where 0 is invalid for the vendor and
 * version (nr_gp, the widths, pebs_format), normalises (v0: no counters;
 * Intel v1: no fixed counters; FW_WRITE needs PDCM; AMD: no PDCM) and checks
 * ranges; -EINVAL if invalid, or for an unknown vendor.
 */
int vpmu_config_validate(struct vpmu_config *cfg);

/*
 * Intel's full default configuration for `version` (0..5): 8 GP and 3 fixed
 * counters (none for v1), 48-bit widths, PDCM and FW_WRITE from v2, every
 * architectural event available, no PEBS.  vpmu_config_validate() cannot
 * default the version or the booleans because 0/false are meaningful there.
 */
void vpmu_config_default(struct vpmu_config *cfg, unsigned int version);
/* The same for the AMD model: version 2 (PerfMonV2) or 1, six 48-bit counters. */
void vpmu_config_default_amd(struct vpmu_config *cfg, unsigned int version);

/* RESET state (docs/intel-pmu.md 2 reset column). cfg must be validated. */
void vpmu_init(struct vpmu *pmu, const struct vpmu_config *cfg);

/*
 * Attaches an event filter (NULL: none) after vpmu_init(), which clears it.
 * The filter must outlive the model; it is only read.
 */
void vpmu_set_filter(struct vpmu *pmu, const struct vpmu_filter *filter);

/* Guest RDMSR/WRMSR of a PMU MSR: VPMU_OK or VPMU_GP. */
int vpmu_rdmsr(struct vpmu *pmu, uint32_t msr, uint64_t *data);
int vpmu_wrmsr(struct vpmu *pmu, uint32_t msr, uint64_t data);

/*
 * The same write in two steps: the check changes nothing (VPMU_OK or
 * VPMU_GP); the commit, only after VPMU_OK, cannot fail. Between them the
 * VMM counts the WRMSR itself with the counters as they were.
 */
struct vpmu_msr_range;
struct vpmu_checked_write {
	const struct vpmu_msr_range *row;	/* the MSR's row in the vendor's table */
	unsigned int idx;
};
int vpmu_wrmsr_check(const struct vpmu *pmu, uint32_t msr, uint64_t data,
		     struct vpmu_checked_write *w);
void vpmu_wrmsr_commit(struct vpmu *pmu, const struct vpmu_checked_write *w, uint64_t data);

/*
 * True for every MSR number the configuration's vendor model owns (answers,
 * or #GPs); all of them lie in the spans vpmu_msr_spans() lists.
 */
struct vpmu_msr_span {
	uint32_t first, last;
};
bool vpmu_msr_is_pmu(const struct vpmu_config *cfg, uint32_t msr);
unsigned int vpmu_msr_spans(const struct vpmu_config *cfg, const struct vpmu_msr_span **spans);

/*
 * Recomputes which counters count what after a change made outside the
 * MSR accessors (they do it themselves), e.g. a test setting GLOBAL_STATUS.
 */
void vpmu_reprogram(struct vpmu *pmu);

/*
 * RDPMC with this ECX; the caller has already applied the CR4.PCE/CPL rule.
 * VPMU_GP, *data untouched, for every ECX without a PMU (version 0).
 */
int vpmu_rdpmc(struct vpmu *pmu, uint32_t ecx, uint64_t *data);
/*
 * Has a GP counter from index `first_gp` on, or a fixed one from
 * `first_fixed` on, a value or a control that is not zero?
 */
bool vpmu_counters_set_from(const struct vpmu *pmu, unsigned int first_gp,
			    unsigned int first_fixed);

/*
 * CPUID values for this configuration: leaf 0xA in full, and the PMU bits of
 * leaf 1 (PDCM, DS, DTES64) applied on top of the host's ECX/EDX.
 */
void vpmu_cpuid_0a(const struct vpmu_config *cfg, uint32_t *eax, uint32_t *ebx,
		   uint32_t *ecx, uint32_t *edx);
void vpmu_cpuid_01(const struct vpmu_config *cfg, uint32_t *ecx, uint32_t *edx);
/* AMD's: 0x80000001 ECX (PerfCtrExtCore) and leaf 0x80000022 (PerfMonV2). */
void vpmu_cpuid_80000001(const struct vpmu_config *cfg, uint32_t *ecx);
void vpmu_cpuid_80000022(const struct vpmu_config *cfg, uint32_t *eax, uint32_t *ebx,
			 uint32_t *ecx, uint32_t *edx);

/*
 * Counting.  A source reports that `n` occurrences of architectural event `ev`
 * happened while the vCPU ran at privilege level `cpl` (0..3).  Every counter
 * that is enabled, programmed with that event and passes the OS/USR filter
 * advances; a counter wrapping past its width sets its GLOBAL_STATUS bit and,
 * with INT/PMI set, requests one PMI for the whole call.
 */
void vpmu_count(struct vpmu *pmu, enum pmu_arch_event ev, uint64_t n, unsigned int cpl);

/*
 * One occurrence of each event in `events` (bits of enum pmu_arch_event),
 * all at one point in time: what one retired instruction adds (instructions,
 * branches and their kinds). One pass over the counters; one PMI for all.
 */
void vpmu_count_each(struct vpmu *pmu, uint32_t events, unsigned int cpl);

/*
 * Occurrences of `ev` at `cpl` until the first counter counting it wraps, or
 * UINT64_MAX if no enabled counter counts it.  Sources use it to schedule the
 * overflow point (a timer, or when to stop stepping).
 */
uint64_t vpmu_events_to_overflow(const struct vpmu *pmu, enum pmu_arch_event ev,
				 unsigned int cpl);

/* True if any enabled counter counts `ev` at some privilege level. */
bool vpmu_counts_event(const struct vpmu *pmu, enum pmu_arch_event ev);

/* Bit ev set for every event some enabled counter counts (the run loop's test). */
static inline uint32_t vpmu_counted_events(const struct vpmu *pmu)
{
	return pmu->events_at[0] | pmu->events_at[1];
}

/* The same for occurrences at `cpl` only (OS: CPL 0, USR: CPL 1-3). */
static inline uint32_t vpmu_counted_events_at(const struct vpmu *pmu, unsigned int cpl)
{
	return pmu->events_at[cpl != 0];
}

/*
 * True if the enabled counters that count `ev` at CPL 0 are not the same as
 * those that count it at CPL 1-3: which level an occurrence had matters.
 */
static inline bool vpmu_event_level_matters(const struct vpmu *pmu, enum pmu_arch_event ev)
{
	return pmu->counting[0][ev] != pmu->counting[1][ev];
}

/*
 * A PMI request from outside the counters (e.g. the PEBS threshold, which
 * sets GLOBAL_STATUS bit 62): ORs `status` into GLOBAL_STATUS, requests a
 * PMI and applies freeze-on-PMI exactly as a counter overflow does.
 */
void vpmu_request_pmi(struct vpmu *pmu, uint64_t status);

/*
 * Host-initiated (VMM, not guest) write of GLOBAL_STATUS, e.g. to restore
 * state: VPMU_GP without a GLOBAL_STATUS, or for a bit it does not have.
 */
int vpmu_set_global_status_host(struct vpmu *pmu, uint64_t data);

/* Returns and clears the pending-PMI request. */
bool vpmu_take_pmi(struct vpmu *pmu);

/* Returns and clears the global-index bits that overflowed since the last call. */
uint64_t vpmu_take_overflows(struct vpmu *pmu);

/*
 * PEBS (docs/intel-pmu.md 4.2, vmm/pebs): a wrap of a counter enabled in PEBS_ENABLE arms
 * it; the armed set stays until the VMM performs the assist, which takes it,
 * reloads each armed counter (clearing its GLOBAL_STATUS bit) and, at the
 * threshold, calls vpmu_request_pmi(GLOBAL_STATUS_BUFFER_OVF).
 */
uint64_t vpmu_take_pebs_armed(struct vpmu *pmu);
void vpmu_pebs_reload(struct vpmu *pmu, unsigned int idx, uint64_t value);
/* Adaptive_Record of the counter at global index `idx` (EVTSEL 34, FIXED_CTR_CTRL 32+4i). */
bool vpmu_pebs_adaptive(const struct vpmu *pmu, unsigned int idx);

/*
 * The event GP counter idx is programmed with, in its vendor's encoding
 * (PMU_EV_NONE if none); the event of Intel's fixed counter idx (AMD has
 * no fixed counters).
 */
enum pmu_arch_event vpmu_gp_event(const struct vpmu *pmu, unsigned int idx);
enum pmu_arch_event vpmu_fixed_event(unsigned int idx);

#endif
