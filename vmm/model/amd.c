/*
 * The AMD model's MSRs (AMD64 APM vol. 2 13.2, "Core Performance Monitor
 * Counters"), with the write rules of Linux KVM's AMD vPMU
 * (arch/x86/kvm/svm/pmu.c, arch/x86/kvm/pmu.c), which differ from Intel's:
 * a write to a reserved bit of PERF_CTL, to GLOBAL_CTL or to read-only
 * GLOBAL_STATUS is dropped, never #GP.
 *
 * Version 1 is the legacy set (PERF_CTL0-3 at 0xC0010000, PERF_CTR0-3 at
 * 0xC0010004) and, with the core extension (CPUID 0x80000001 ECX[23],
 * six counters), the interleaved CTL/CTR pairs at 0xC0010200-0xC001020B
 * that the legacy MSRs alias. Version 2 is PerfMonV2 (CPUID 0x80000022):
 * the core extension plus the global control and status MSRs.
 */
#include "internal.h"

#define RANGE(msr, n, exists_fn) .first = (msr), .count = (n), .exists = (exists_fn)

/* The core extension comes with six counters, and always with PerfMonV2. */
static bool amd_core_ext(const struct vpmu *pmu)
{
	return pmu->cfg.version >= 2 || pmu->cfg.nr_gp == AMD_NR_CORE_COUNTERS;
}

static bool has_legacy(const struct vpmu *pmu, unsigned int idx)
{
	return idx < pmu->cfg.nr_gp;
}

/* 0xC0010200 + 2n is PERF_CTLn, + 2n + 1 is PERF_CTRn. */
static bool has_core_pair(const struct vpmu *pmu, unsigned int idx)
{
	return amd_core_ext(pmu) && idx / 2 < pmu->cfg.nr_gp;
}

static bool has_v2(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.version >= 2;
}

static int rd_ctl(struct vpmu *pmu, unsigned int i, uint64_t *data)
{
	*data = pmu->gp[i].ctl;
	return VPMU_OK;
}

/*
 * Reserved bits are dropped, not #GP (KVM amd_pmu_set_msr()). They include
 * HostOnly and GuestOnly (41, 40): a guest without SVM of its own counts
 * as if neither were set.
 */
static void wr_ctl(struct vpmu *pmu, unsigned int i, uint64_t data)
{
	pmu->gp[i].ctl = data & ~AMD_EVTSEL_RSVD;
	pmu->gp[i].edge_prev = false;
}

static int rd_ctr(struct vpmu *pmu, unsigned int i, uint64_t *data)
{
	*data = pmu->gp[i].value & pmu->gp_mask;
	return VPMU_OK;
}

/* Bits past the counter's 48 are dropped (KVM pmc_write_counter()). */
static void wr_ctr(struct vpmu *pmu, unsigned int i, uint64_t data)
{
	pmu->gp[i].value = data & pmu->gp_mask;
}

static int rd_pair(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	return idx & 1 ? rd_ctr(pmu, idx / 2, data) : rd_ctl(pmu, idx / 2, data);
}

static void wr_pair(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	if (idx & 1)
		wr_ctr(pmu, idx / 2, data);
	else
		wr_ctl(pmu, idx / 2, data);
}

/* Read-only: a guest write is ignored (KVM: "Per PPR, Read-only MSR"). */
static void wr_ignore(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
}

static int rd_zero(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = 0;
	return VPMU_OK;
}

static void wr_global_ctl(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->global_ctrl = data & ~pmu->global_ctrl_rsvd;
}

/* Write 1 to clear; reads 0. */
static void wr_status_clr(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->global_status &= ~data;
}

/* Write 1 to set, counter bits only; reads 0. Setting a bit requests no PMI. */
static void wr_status_set(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->global_status |= data & ~pmu->global_status_set_rsvd;
}

static const struct vpmu_msr_range amd_msr_ranges[] = {
	{ RANGE(MSR_K7_EVNTSEL0, AMD_NR_LEGACY_COUNTERS, has_legacy), .rd = rd_ctl,
	  .wr = wr_ctl, .controls = true },
	{ RANGE(MSR_K7_PERFCTR0, AMD_NR_LEGACY_COUNTERS, has_legacy), .rd = rd_ctr,
	  .wr = wr_ctr },
	{ RANGE(MSR_F15H_PERF_CTL0, 2 * AMD_NR_CORE_COUNTERS, has_core_pair), .rd = rd_pair,
	  .wr = wr_pair, .controls = true },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 1, has_v2), REG(global_status),
	  .wr = wr_ignore },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 1, has_v2), REG(global_ctrl),
	  .wr = wr_global_ctl, .controls = true },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, 1, has_v2), .rd = rd_zero,
	  .wr = wr_status_clr },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, 1, has_v2), .rd = rd_zero,
	  .wr = wr_status_set },
	VPMU_INTEL_PMU_ONLY_ROWS,
};

static const struct vpmu_msr_span amd_msr_spans[] = {
	{ MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET },
	{ MSR_K7_EVNTSEL0, MSR_F15H_PERF_CTL0 + 2 * AMD_NR_CORE_COUNTERS - 1 },
	VPMU_INTEL_PMU_SPAN,
};

/*
 * RESET: counters and controls 0; with PerfMonV2, GLOBAL_CTL enables every
 * counter, so software written for version 1 still counts (KVM
 * kvm_pmu_refresh(): "At RESET, both Intel and AMD CPUs set all enable
 * bits for general purpose counters").
 */
static void amd_reset(struct vpmu *pmu)
{
	uint64_t counters = low_bits(pmu->cfg.nr_gp);

	pmu->global_ctrl_rsvd = ~counters;
	pmu->global_status_set_rsvd = ~counters;
	if (pmu->cfg.version >= 2)
		pmu->global_ctrl = counters;
}

/* ECX is the counter index, 0 .. nr_gp - 1 (KVM amd_rdpmc_ecx_to_pmc()). */
static int amd_rdpmc(const struct vpmu *pmu, uint32_t ecx, uint64_t *data)
{
	if (ecx >= pmu->cfg.nr_gp)
		return VPMU_GP;
	*data = pmu->gp[ecx].value & pmu->gp_mask;
	return VPMU_OK;
}

static enum pmu_arch_event amd_no_fixed_event(unsigned int idx)
{
	return PMU_EV_NONE;
}

const struct vpmu_vendor vpmu_amd = {
	.name = "amd",
	.msr_ranges = amd_msr_ranges,
	.nr_msr_ranges = sizeof(amd_msr_ranges) / sizeof(amd_msr_ranges[0]),
	.msr_spans = amd_msr_spans,
	.nr_msr_spans = sizeof(amd_msr_spans) / sizeof(amd_msr_spans[0]),
	.reset = amd_reset,
	.decode_event = vpmu_amd_decode_event,
	.fixed_event = amd_no_fixed_event,
	.rdpmc = amd_rdpmc,
};
