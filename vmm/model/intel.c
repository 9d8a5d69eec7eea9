/*
 * The Intel model's MSRs: one table row per MSR range; a row says whether a
 * given MSR exists for the configuration and who reads, checks and writes
 * it (dispatch: msr.c). Anything that does not exist, or has no handler for
 * the access (a read-only MSR written), is #GP.
 *
 * Version 0 is a CPU without a PMU, so every PMU MSR #GPs there, including
 * 0xC1/0xC2/0x186/0x187 that KVM's legacy P6 path would accept (kvm-vpmu
 * section 0). Only MISC_ENABLE and DEBUGCTL exist on every CPU.
 */
#include "internal.h"

#define RANGE(msr, n, exists_fn) .first = (msr), .count = (n), .exists = (exists_fn)
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

/* 0x4C1+ needs FW_WRITE, which validate already tied to PDCM (docs/kvm-vpmu.md 1.2). */
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

static const struct vpmu_msr_range intel_msr_ranges[] = {
	{ RANGE(MSR_IA32_PMC0, VPMU_MAX_GP, has_gp), .rd = vpmu_rd_gp_ctr, .wr = vpmu_wr_pmc },
	{ RANGE(MSR_IA32_PERFEVTSEL0, VPMU_MAX_GP, has_gp), .rd = vpmu_rd_evtsel,
	  .chk = vpmu_chk_evtsel, .wr = vpmu_wr_evtsel, .controls = true },
	{ RANGE(MSR_IA32_MISC_ENABLE, 1, always), .rd = vpmu_rd_misc_enable,
	  .chk = vpmu_chk_misc_enable, .wr = vpmu_wr_misc_enable },
	{ RANGE(MSR_IA32_DEBUGCTL, 1, always), .rd = vpmu_rd_debugctl, .chk = vpmu_chk_debugctl,
	  .wr = vpmu_wr_debugctl },
	{ RANGE(MSR_IA32_FIXED_CTR0, VPMU_MAX_FIXED, has_fixed), .rd = vpmu_rd_fixed_ctr,
	  .wr = vpmu_wr_fixed_ctr },
	/* PERF_CAPABILITIES[15] (PERF_METRICS) is never advertised. */
	{ RANGE(MSR_PERF_METRICS, 1, NULL) },
	{ RANGE(MSR_IA32_PERF_CAPABILITIES, 1, has_pdcm), .rd = vpmu_rd_perf_capabilities },
	{ RANGE(MSR_IA32_FIXED_CTR_CTRL, 1, has_v2), RW_REG(fixed_ctr_ctrl, fixed_ctr_ctrl_rsvd),
	  .controls = true },
	/* Read-only to the guest (docs/intel-pmu.md 2.4); 0x390/0x391 change it. */
	{ RANGE(MSR_IA32_PERF_GLOBAL_STATUS, 1, has_v2), REG(global_status) },
	{ RANGE(MSR_IA32_PERF_GLOBAL_CTRL, 1, has_v2), RW_REG(global_ctrl, global_ctrl_rsvd),
	  .controls = true },
	/* Clearing or setting CTR_Frz (v4) unfreezes or freezes the counters. */
	{ RANGE(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1, has_v2), .rd = vpmu_rd_zero,
	  .chk = vpmu_chk_global_ovf_ctrl, .wr = vpmu_wr_global_ovf_ctrl, .controls = true },
	{ RANGE(MSR_IA32_PERF_GLOBAL_STATUS_SET, 1, has_v4), .rd = vpmu_rd_zero,
	  .chk = vpmu_chk_global_status_set, .wr = vpmu_wr_global_status_set, .controls = true },
	{ RANGE(MSR_IA32_PERF_GLOBAL_INUSE, 1, has_v4), .rd = vpmu_rd_global_inuse },
	{ RANGE(MSR_IA32_PEBS_ENABLE, 1, has_pebs), RW_REG(pebs_enable, pebs_enable_rsvd) },
	{ RANGE(MSR_PEBS_DATA_CFG, 1, has_pebs_baseline), RW_REG_VALID(pebs_data_cfg, PEBS_DATACFG_VALID) },
	/* Bits 63:16 are reserved (docs/intel-pmu.md 2.13). */
	{ RANGE(MSR_PEBS_LD_LAT_THRESHOLD, 1, has_pebs), RW_REG_VALID(pebs_ld_lat, PEBS_LD_LAT_VALID) },
	/* MSR_PEBS_FRONTEND is model-specific; a software PMU omits it (docs/intel-pmu.md 2.14). */
	{ RANGE(MSR_PEBS_FRONTEND, 1, NULL) },
	{ RANGE(MSR_IA32_A_PMC0, VPMU_MAX_GP, has_a_pmc), .rd = vpmu_rd_gp_ctr,
	  .chk = vpmu_chk_a_pmc, .wr = vpmu_wr_pmc_full },
	{ RANGE(MSR_IA32_DS_AREA, 1, has_pebs), REG(ds_area), .chk = vpmu_chk_ds_area,
	  .writable = true },
	VPMU_AMD_PMU_ROWS,
};


/* 0xC1 (IA32_PMC0) .. 0x600 (IA32_DS_AREA) */
static const struct vpmu_msr_span intel_msr_spans[] = {
	VPMU_INTEL_PMU_SPAN,
	VPMU_AMD_PMU_SPANS,
};

const struct vpmu_vendor vpmu_intel = {
	.name = "intel",
	.msr_ranges = intel_msr_ranges,
	.nr_msr_ranges = sizeof(intel_msr_ranges) / sizeof(intel_msr_ranges[0]),
	.msr_spans = intel_msr_spans,
	.nr_msr_spans = sizeof(intel_msr_spans) / sizeof(intel_msr_spans[0]),
	.reset = vpmu_intel_reset,
	.decode_event = vpmu_decode_event,
	.fixed_event = vpmu_fixed_event,
	.rdpmc = vpmu_intel_rdpmc,
};
