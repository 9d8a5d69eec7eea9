/*
 * MSR dispatch. One table row per MSR range this model owns; a row says
 * whether a given MSR exists for the configuration and who reads and writes
 * it. Anything that does not exist, or has no handler for the access (a
 * read-only MSR written, a write-only one read), is #GP.
 *
 * Version 0 is a CPU without a PMU, so every PMU MSR #GPs there, including
 * 0xC1/0xC2/0x186/0x187 that KVM's legacy P6 path would accept (kvm-vpmu
 * section 0). Only MISC_ENABLE and DEBUGCTL exist on every CPU.
 */
#include <stddef.h>

#include "internal.h"

struct vpmu_msr_range {
	uint32_t first;
	uint32_t count;
	bool (*exists)(const struct vpmu *pmu, unsigned int idx);	/* NULL: never */
	vpmu_rd_fn rd;		/* NULL: read the plain register at `reg` */
	vpmu_wr_fn wr;		/* NULL: write `reg` if `writable`, else #GP */
	/*
	 * A plain register: a uint64_t in struct vpmu (offsetof, 0: none)
	 * whose writes #GP on any bit of its reserved mask, which is the
	 * struct vpmu field at `rsvd` (derived from the configuration by
	 * reset.c) or else the constant `rsvd_bits`.
	 */
	size_t reg;
	size_t rsvd;
	uint64_t rsvd_bits;
	bool writable;
};

#define RANGE(msr, n, exists_fn) .first = (msr), .count = (n), .exists = (exists_fn)
#define REG(field)		.reg = offsetof(struct vpmu, field)
#define RW_REG(field, mask)	REG(field), .rsvd = offsetof(struct vpmu, mask), .writable = true
#define RW_REG_VALID(field, valid) REG(field), .rsvd_bits = ~(uint64_t)(valid), .writable = true

static bool always(const struct vpmu *pmu, unsigned int idx)
{
	return true;
}

static bool has_gp(const struct vpmu *pmu, unsigned int idx)
{
	return idx < pmu->cfg.nr_gp;
}

/* 0x4C1+ needs FW_WRITE, which validate already tied to PDCM (kvm-vpmu 1.2). */
static bool has_a_pmc(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.full_width_write && has_gp(pmu, idx);
}

/* nr_fixed is 0 below v2, so this also hides the fixed counters of v0/v1. */
static bool has_fixed(const struct vpmu *pmu, unsigned int idx)
{
	return idx < pmu->cfg.nr_fixed;
}

static bool has_v2(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.version >= 2;
}

static bool has_v4(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.version >= 4;
}

static bool has_pdcm(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.pdcm;
}

/* DS_AREA, PEBS_ENABLE and LD_LAT come with CPUID DS and a PEBS format. */
static bool has_pebs(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.pebs;
}

static bool has_pebs_baseline(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.pebs_baseline;
}

static const struct vpmu_msr_range msr_ranges[] = {
	{ RANGE(MSR_IA32_PMC0, VPMU_MAX_GP, has_gp), .rd = vpmu_rd_gp_ctr, .wr = vpmu_wr_pmc },
	{ RANGE(MSR_IA32_PERFEVTSEL0, VPMU_MAX_GP, has_gp), .rd = vpmu_rd_evtsel, .wr = vpmu_wr_evtsel },
	{ RANGE(MSR_IA32_MISC_ENABLE, 1, always), .rd = vpmu_rd_misc_enable, .wr = vpmu_wr_misc_enable },
	{ RANGE(MSR_IA32_DEBUGCTL, 1, always), .rd = vpmu_rd_debugctl, .wr = vpmu_wr_debugctl },
	{ RANGE(MSR_IA32_FIXED_CTR0, VPMU_MAX_FIXED, has_fixed), .rd = vpmu_rd_fixed_ctr, .wr = vpmu_wr_fixed_ctr },
	/* PERF_CAPABILITIES[15] (PERF_METRICS) is never advertised. */
	{ RANGE(MSR_PERF_METRICS, 1, NULL) },
	{ RANGE(MSR_IA32_PERF_CAPABILITIES, 1, has_pdcm), .rd = vpmu_rd_perf_capabilities },
	{ RANGE(MSR_IA32_FIXED_CTR_CTRL, 1, has_v2), RW_REG(fixed_ctr_ctrl, fixed_ctr_ctrl_rsvd) },
	/* Read-only to the guest (spec 2.4); 0x390/0x391 change it. */
	{ RANGE(MSR_IA32_PERF_GLOBAL_STATUS, 1, has_v2), REG(global_status) },
	{ RANGE(MSR_IA32_PERF_GLOBAL_CTRL, 1, has_v2), RW_REG(global_ctrl, global_ctrl_rsvd) },
	{ RANGE(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1, has_v2), .rd = vpmu_rd_zero, .wr = vpmu_wr_global_ovf_ctrl },
	{ RANGE(MSR_IA32_PERF_GLOBAL_STATUS_SET, 1, has_v4), .rd = vpmu_rd_zero, .wr = vpmu_wr_global_status_set },
	{ RANGE(MSR_IA32_PERF_GLOBAL_INUSE, 1, has_v4), .rd = vpmu_rd_global_inuse },
	{ RANGE(MSR_IA32_PEBS_ENABLE, 1, has_pebs), RW_REG(pebs_enable, pebs_enable_rsvd) },
	{ RANGE(MSR_PEBS_DATA_CFG, 1, has_pebs_baseline), RW_REG_VALID(pebs_data_cfg, PEBS_DATACFG_VALID) },
	/* Bits 63:16 are reserved (spec 2.13). */
	{ RANGE(MSR_PEBS_LD_LAT_THRESHOLD, 1, has_pebs), RW_REG_VALID(pebs_ld_lat, PEBS_LD_LAT_VALID) },
	/* MSR_PEBS_FRONTEND is model-specific; a software PMU omits it (spec 2.14). */
	{ RANGE(MSR_PEBS_FRONTEND, 1, NULL) },
	{ RANGE(MSR_IA32_A_PMC0, VPMU_MAX_GP, has_a_pmc), .rd = vpmu_rd_gp_ctr, .wr = vpmu_wr_a_pmc },
	{ RANGE(MSR_IA32_DS_AREA, 1, has_pebs), .wr = vpmu_wr_ds_area, REG(ds_area) },
};

static const struct vpmu_msr_range *find_range(uint32_t msr)
{
	size_t i;

	for (i = 0; i < sizeof(msr_ranges) / sizeof(msr_ranges[0]); i++)
		if (msr - msr_ranges[i].first < msr_ranges[i].count)
			return &msr_ranges[i];
	return NULL;
}

/* The range row if `msr` exists for this configuration, else NULL. */
static const struct vpmu_msr_range *lookup(const struct vpmu *pmu, uint32_t msr)
{
	const struct vpmu_msr_range *r = find_range(msr);

	if (!r || !r->exists || !r->exists(pmu, msr - r->first))
		return NULL;
	return r;
}

bool vpmu_msr_is_pmu(uint32_t msr)
{
	return find_range(msr) != NULL;
}

static uint64_t *reg_ptr(struct vpmu *pmu, size_t off)
{
	return (uint64_t *)((char *)pmu + off);
}

int vpmu_rdmsr(struct vpmu *pmu, uint32_t msr, uint64_t *data)
{
	const struct vpmu_msr_range *r = lookup(pmu, msr);

	/* Every MSR that exists is readable; write-only ones read as 0. */
	if (!r)
		return VPMU_GP;
	if (!r->rd) {
		*data = *reg_ptr(pmu, r->reg);
		return VPMU_OK;
	}
	return r->rd(pmu, msr - r->first, data);
}

int vpmu_wrmsr(struct vpmu *pmu, uint32_t msr, uint64_t data)
{
	const struct vpmu_msr_range *r = lookup(pmu, msr);
	uint64_t rsvd;

	if (r && r->wr)
		return r->wr(pmu, msr - r->first, data);
	if (!r || !r->writable)
		return VPMU_GP;
	rsvd = r->rsvd ? *reg_ptr(pmu, r->rsvd) : r->rsvd_bits;
	if (data & rsvd)
		return VPMU_GP;
	*reg_ptr(pmu, r->reg) = data;
	return VPMU_OK;
}
