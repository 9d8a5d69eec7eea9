/*
 * Private helpers shared by the vpmu model files. Not for the VMM: it only
 * sees vpmu.h.
 */
#ifndef VPMU_INTERNAL_H
#define VPMU_INTERNAL_H

#include "vpmu.h"

/* The counter-select bits matched against the architectural event table. */
#define EVTSEL_EVENT_UMASK	(EVTSEL_EVENT | EVTSEL_UMASK)

/* KVM's baseline EVTSEL reserved mask: bits 63:32 and AnyThread (spec 2.2). */
#define EVTSEL_RSVD_BASE	0xffffffff00200000ULL

/* Per fixed counter: EN_OS, EN_USR and PMI; ANY (4i+2) stays reserved (spec 2.3). */
#define FIXED_CTRL_VALID(i)	(0xbULL << (4 * (i)))

static inline uint64_t width_mask(unsigned int width)
{
	/* Widths are 32..63 (config.c), so the shift is defined. */
	return BIT_ULL(width) - 1;
}

static inline bool cpl_allowed(bool os, bool usr, unsigned int cpl)
{
	/* Spec 3.1: OS counts at CPL 0, USR at CPL 1, 2 and 3. */
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

enum pmu_arch_event vpmu_decode_event(uint64_t evtsel);

/*
 * MSR handlers, called by the msr.c dispatch table only once the MSR is
 * known to exist; `idx` is the offset from the first MSR of the range.
 */
typedef int (*vpmu_rd_fn)(struct vpmu *pmu, unsigned int idx, uint64_t *data);
typedef int (*vpmu_wr_fn)(struct vpmu *pmu, unsigned int idx, uint64_t data);

/* msr-counters.c */
int vpmu_rd_gp_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_wr_pmc(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_wr_a_pmc(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_evtsel(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_wr_evtsel(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_wr_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t data);

/* msr-global.c */
int vpmu_rd_zero(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_wr_global_ovf_ctrl(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_wr_global_status_set(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_global_inuse(struct vpmu *pmu, unsigned int idx, uint64_t *data);

/* msr-misc.c */
int vpmu_rd_perf_capabilities(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_rd_debugctl(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_wr_debugctl(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_rd_misc_enable(struct vpmu *pmu, unsigned int idx, uint64_t *data);
int vpmu_wr_misc_enable(struct vpmu *pmu, unsigned int idx, uint64_t data);
int vpmu_wr_ds_area(struct vpmu *pmu, unsigned int idx, uint64_t data);

#endif
