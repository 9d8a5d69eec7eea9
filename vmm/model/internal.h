/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private helpers shared by the vpmu model files. Not for the VMM: it only
 * sees vpmu.h.
 */
#ifndef VPMU_INTERNAL_H
#define VPMU_INTERNAL_H

#include <stddef.h>

#include "vpmu.h"

static inline uint64_t width_mask(unsigned int width)
{
	/* Widths are 32..63 (intel.c; 48 in amd.c), so the shift is defined. */
	return BIT_ULL(width) - 1;
}

static inline bool cpl_allowed(bool os, bool usr, unsigned int cpl)
{
	/* docs/intel-pmu.md 3.1: OS counts at CPL 0, USR at CPL 1, 2 and 3. */
	return cpl == 0 ? os : usr;
}

/* Bits 0..n-1 set; n <= 32 here. */
static inline uint64_t low_bits(unsigned int n)
{
	return n ? ~0ULL >> (64 - n) : 0;
}

/* Bits of the counters that exist, in the global PMC index layout. */
static inline uint64_t vpmu_counter_bits(const struct vpmu_config *cfg)
{
	return low_bits(cfg->nr_gp) | (uint64_t)vpmu_fixed_counters(cfg) << PMC_IDX_FIXED;
}

/* 0 for CPL 0 (the OS bits), 1 for CPL 1-3 (the USR bits): docs/intel-pmu.md 3.1. */
static inline unsigned int vpmu_level(unsigned int cpl)
{
	return cpl != 0;
}

/*
 * MSR handlers, called by msr.c only once the MSR is known to exist; `idx`
 * is the offset from the first MSR of the range. A write is checked first
 * (VPMU_OK or VPMU_GP, nothing changes), then committed (cannot fail).
 */
typedef int (*vpmu_rd_fn)(struct vpmu *pmu, unsigned int idx, uint64_t *data);
typedef int (*vpmu_chk_fn)(const struct vpmu *pmu, unsigned int idx, uint64_t data);
typedef void (*vpmu_wr_fn)(struct vpmu *pmu, unsigned int idx, uint64_t data);

/* A plain register's row fields (see struct vpmu_msr_range). */
#define REG(field)		.reg = offsetof(struct vpmu, field)

/* One row per MSR range a vendor model owns (its table: intel.c, amd.c). */
struct vpmu_msr_range {
	uint32_t first;
	uint32_t count;
	bool (*exists)(const struct vpmu *pmu, unsigned int idx);	/* NULL: never */
	vpmu_rd_fn rd;		/* NULL: read the plain register at `reg` */
	vpmu_chk_fn chk;	/* NULL: the reserved mask below (none: nothing reserved) */
	vpmu_wr_fn wr;		/* NULL: write `reg` if `writable`, else #GP */
	/*
	 * A plain register: a uint64_t in struct vpmu (offsetof, 0: none).
	 * Without `chk`, a write #GPs on any bit of the reserved mask, which
	 * is the struct vpmu field at `rsvd` (derived from the configuration
	 * by the vendor's refresh) or else the constant `rsvd_bits`.
	 */
	size_t reg;
	size_t rsvd;
	uint64_t rsvd_bits;
	bool writable;
	bool controls;		/* a write changes what counts: reprogram after it */
};

/*
 * A vendor's PMU, after Linux KVM's struct kvm_pmu_ops (arch/x86/kvm/pmu.h):
 * what differs between Intel (intel.c) and AMD (amd.c). The core (counters, status, PMI requests, reprogramming, MSR
 * dispatch) is the same for both and asks pmu->caps, never the version.
 */
struct vpmu_vendor {
	const char *name;
	/* vpmu_config_validate() for this vendor: defaults, ranges; -EINVAL. */
	int (*validate)(struct vpmu_config *cfg);
	/* pmu->caps and the reserved-bit masks from pmu->cfg (KVM: refresh). */
	void (*refresh)(struct vpmu *pmu);
	/* RESET values, after refresh (KVM: reset). */
	void (*reset)(struct vpmu *pmu);
	const struct vpmu_msr_range *msr_ranges;
	unsigned int nr_msr_ranges;
	/* The MSR numbers the ranges lie in, for the VMM's MSR filter. */
	const struct vpmu_msr_span *msr_spans;
	unsigned int nr_msr_spans;
	/* The event a GP counter's control selects; the event of fixed counter idx. */
	enum pmu_arch_event (*decode_event)(const struct vpmu *pmu, uint64_t ctl);
	enum pmu_arch_event (*fixed_event)(unsigned int idx);
	/* RDPMC with this ECX; the caller has applied the CR4.PCE/CPL rule. */
	int (*rdpmc)(const struct vpmu *pmu, uint32_t ecx, uint64_t *data);
	/*
	 * At a PMI request, freeze as the PMU's freeze-on-PMI controls say;
	 * true if the counters' enables changed. NULL: the PMU has none.
	 */
	bool (*freeze_on_pmi)(struct vpmu *pmu);
};

extern const struct vpmu_vendor vpmu_intel;
extern const struct vpmu_vendor vpmu_amd;

/*
 * The other vendor's PMU MSRs, in each vendor's table with no `exists`: a
 * guest that touches them gets the #GP its CPU would give, not KVM's
 * answer (KVM reads 0 and ignores writes for some P6 and K7 counter MSRs
 * whatever the guest's vendor). DEBUGCTL and MISC_ENABLE are not PMU MSRs
 * on AMD, and stay KVM's there.
 */
#define VPMU_FOREIGN(msr, n)	{ .first = (msr), .count = (n) }
#define VPMU_INTEL_PMU_SPAN	{ MSR_IA32_PMC0, MSR_IA32_DS_AREA }
#define VPMU_INTEL_PMU_ONLY_ROWS						\
	VPMU_FOREIGN(MSR_IA32_PMC0, VPMU_MAX_GP),				\
	VPMU_FOREIGN(MSR_IA32_PERFEVTSEL0, VPMU_MAX_GP),			\
	VPMU_FOREIGN(MSR_IA32_FIXED_CTR0, VPMU_MAX_FIXED),			\
	VPMU_FOREIGN(MSR_PERF_METRICS, 1),					\
	VPMU_FOREIGN(MSR_IA32_PERF_CAPABILITIES, 1),				\
	VPMU_FOREIGN(MSR_IA32_FIXED_CTR_CTRL, 6),	/* 0x38D-0x392 */	\
	VPMU_FOREIGN(MSR_IA32_PEBS_ENABLE, 2),					\
	VPMU_FOREIGN(MSR_PEBS_LD_LAT_THRESHOLD, 2),				\
	VPMU_FOREIGN(MSR_IA32_A_PMC0, VPMU_MAX_GP),				\
	VPMU_FOREIGN(MSR_IA32_DS_AREA, 1)
#define VPMU_AMD_PMU_SPANS							\
	{ MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET }, \
	{ MSR_K7_EVNTSEL0, MSR_F15H_PERF_CTL0 + 2 * AMD_NR_CORE_COUNTERS - 1 }
#define VPMU_AMD_PMU_ROWS							\
	VPMU_FOREIGN(MSR_K7_EVNTSEL0, 2 * AMD_NR_LEGACY_COUNTERS),		\
	VPMU_FOREIGN(MSR_F15H_PERF_CTL0, 2 * AMD_NR_CORE_COUNTERS),		\
	VPMU_FOREIGN(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 4)

/* Intel's event decoding on a core (intel.c), also for the event-table test. */
enum pmu_arch_event vpmu_intel_decode_event(enum pmu_core core, uint64_t evtsel);

/* The vendor model of a configuration; NULL for an unknown vendor. */
const struct vpmu_vendor *vpmu_vendor_of(const struct vpmu_config *cfg);

/* Row helpers both vendors' tables use (msr.c). */
bool vpmu_has_gp(const struct vpmu *pmu, unsigned int idx);
int vpmu_rd_zero(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_rd_gp_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_rd_gp_ctl(struct vpmu *pmu, unsigned int idx, uint64_t *data);

#endif
