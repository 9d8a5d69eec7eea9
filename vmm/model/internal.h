/*
 * Private helpers shared by the vpmu model files. Not for the VMM: it only
 * sees vpmu.h.
 */
#ifndef VPMU_INTERNAL_H
#define VPMU_INTERNAL_H

#include <stddef.h>

#include "vpmu.h"

/* The counter-select bits matched against the architectural event table. */
#define EVTSEL_EVENT_UMASK	(EVTSEL_EVENT | EVTSEL_UMASK)

/* KVM's baseline EVTSEL reserved mask: bits 63:32 and AnyThread (docs/intel-pmu.md 2.2). */
#define EVTSEL_RSVD_BASE	0xffffffff00200000ULL

/* Per fixed counter: EN_OS, EN_USR and PMI; ANY (4i+2) stays reserved (docs/intel-pmu.md 2.3). */
#define FIXED_CTRL_VALID(i)	(0xbULL << (4 * (i)))

static inline uint64_t width_mask(unsigned int width)
{
	/* Widths are 32..63 (config.c), so the shift is defined. */
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
	return low_bits(cfg->nr_gp) | low_bits(cfg->nr_fixed) << PMC_IDX_FIXED;
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
	vpmu_chk_fn chk;	/* NULL: the plain register's reserved bits, or none with `wr` */
	vpmu_wr_fn wr;		/* NULL: write `reg` if `writable`, else #GP */
	/*
	 * A plain register: a uint64_t in struct vpmu (offsetof, 0: none)
	 * whose writes #GP on any bit of its reserved mask, which is the
	 * struct vpmu field at `rsvd` (derived from the configuration at
	 * reset) or else the constant `rsvd_bits`.
	 */
	size_t reg;
	size_t rsvd;
	uint64_t rsvd_bits;
	bool writable;
	bool controls;		/* a write changes what counts: reprogram after it */
};

/*
 * A vendor's PMU: its MSRs, RESET state and event encodings. The core
 * (counters, status, freeze, PMI, reprogramming) is the same for all.
 */
struct vpmu_vendor {
	const char *name;
	const struct vpmu_msr_range *msr_ranges;
	unsigned int nr_msr_ranges;
	/* The MSR numbers the ranges lie in, for the VMM's MSR filter. */
	const struct vpmu_msr_span *msr_spans;
	unsigned int nr_msr_spans;
	/* RESET values and reserved-bit masks from pmu->cfg. */
	void (*reset)(struct vpmu *pmu);
	enum pmu_arch_event (*decode_event)(uint64_t evtsel);
	enum pmu_arch_event (*fixed_event)(unsigned int idx);
	/* RDPMC with this ECX; the caller has applied the CR4.PCE/CPL rule. */
	int (*rdpmc)(const struct vpmu *pmu, uint32_t ecx, uint64_t *data);
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

/* amd-events.c */
enum pmu_arch_event vpmu_amd_decode_event(uint64_t ctl);

/* intel-rdpmc.c */
int vpmu_intel_rdpmc(const struct vpmu *pmu, uint32_t ecx, uint64_t *data);

/* intel-reset.c, intel-events.c */
void vpmu_intel_reset(struct vpmu *pmu);
enum pmu_arch_event vpmu_decode_event(uint64_t evtsel);

/* The vendor model of a configuration. */
const struct vpmu_vendor *vpmu_vendor_of(const struct vpmu_config *cfg);

/* intel-msr-counters.c */
int vpmu_rd_gp_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data);
void vpmu_wr_pmc(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_chk_a_pmc(const struct vpmu *pmu, unsigned int idx, uint64_t data);
void vpmu_wr_pmc_full(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_evtsel(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_chk_evtsel(const struct vpmu *pmu, unsigned int idx, uint64_t data);
void vpmu_wr_evtsel(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data);
void vpmu_wr_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t data);

/* intel-msr-global.c */
int vpmu_rd_zero(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_chk_global_ovf_ctrl(const struct vpmu *pmu, unsigned int idx, uint64_t data);
void vpmu_wr_global_ovf_ctrl(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_chk_global_status_set(const struct vpmu *pmu, unsigned int idx, uint64_t data);
void vpmu_wr_global_status_set(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_global_inuse(struct vpmu *pmu, unsigned int idx, uint64_t *data);

/* intel-msr-misc.c */
int vpmu_rd_perf_capabilities(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_rd_debugctl(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_chk_debugctl(const struct vpmu *pmu, unsigned int idx, uint64_t data);
void vpmu_wr_debugctl(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_misc_enable(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_chk_misc_enable(const struct vpmu *pmu, unsigned int idx, uint64_t data);
void vpmu_wr_misc_enable(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_chk_ds_area(const struct vpmu *pmu, unsigned int idx, uint64_t data);

#endif
