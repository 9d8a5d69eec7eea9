/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The AMD model: the core performance counters (AMD64 APM vol. 2 13.2,
 * "Core Performance Monitor Counters"), with the write rules of Linux
 * KVM's AMD vPMU (arch/x86/kvm/svm/pmu.c, arch/x86/kvm/pmu.c), which differ
 * from Intel's: a write to a reserved bit of PERF_CTL, to GLOBAL_CTL or to
 * read-only GLOBAL_STATUS is dropped, never #GP. Its configuration,
 * capabilities, RESET state, CPUID bits, event encodings, MSRs and RDPMC;
 * the rest is the core's.
 *
 * Version 1 is the legacy set (PERF_CTL0-3 at 0xC0010000, PERF_CTR0-3 at
 * 0xC0010004) and, with the core extension (CPUID 0x80000001 ECX[23],
 * six counters), the interleaved CTL/CTR pairs at 0xC0010200-0xC001020B
 * that the legacy MSRs alias. Version 2 is PerfMonV2 (CPUID 0x80000022):
 * the core extension plus the global control and status MSRs. There are
 * no fixed counters, no PERF_CAPABILITIES and no PEBS.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "x86-pmu/cpuid.h"

/* ---- configuration and capabilities -------------------------------------- */

void vpmu_config_default_amd(struct vpmu_config *cfg, unsigned int version)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->vendor = VPMU_VENDOR_AMD;
	cfg->version = version;
	if (!version)
		return;
	cfg->nr_gp = AMD_NR_CORE_COUNTERS;
	cfg->gp_width = AMD_COUNTER_WIDTH;
	cfg->available_events = low_bits(PMU_EV_NR);
}

/*
 * KVM amd_pmu_refresh(): version 1 is four legacy counters or, with the
 * core extension, six; version 2 (PerfMonV2) has one to six core
 * counters. Counters are 48 bits wide.
 */
static int amd_validate(struct vpmu_config *cfg)
{
	/* Intel's CPUID.0AH fields: AMD has no fixed counters or event vector. */
	if (cfg->version > 2 || cfg->pebs || cfg->nr_fixed || cfg->fixed_bitmap ||
	    cfg->event_vector_len || cfg->events_unavailable)
		return -EINVAL;
	cfg->pdcm = false;
	cfg->full_width_write = false;
	cfg->fixed_width = 0;
	if (!cfg->version) {
		cfg->nr_gp = 0;
		cfg->gp_width = 0;
		return 0;
	}
	if (!cfg->nr_gp)
		cfg->nr_gp = AMD_NR_CORE_COUNTERS;
	if (!cfg->gp_width)
		cfg->gp_width = AMD_COUNTER_WIDTH;
	if (cfg->gp_width != AMD_COUNTER_WIDTH || cfg->nr_gp > AMD_NR_CORE_COUNTERS)
		return -EINVAL;
	if (cfg->version == 1 && cfg->nr_gp != AMD_NR_LEGACY_COUNTERS &&
	    cfg->nr_gp != AMD_NR_CORE_COUNTERS)
		return -EINVAL;
	return 0;
}

/* PerfMonV2: the global control and status MSRs (CPUID 0x80000022 EAX[0]). */
static bool amd_perfmon_v2(const struct vpmu_config *cfg)
{
	return cfg->version >= 2;
}

/* The core extension comes with six counters, and always with PerfMonV2. */
static bool amd_core_ext(const struct vpmu_config *cfg)
{
	return cfg->version &&
	       (amd_perfmon_v2(cfg) || cfg->nr_gp == AMD_NR_CORE_COUNTERS);
}

/*
 * GLOBAL_CTL, GLOBAL_STATUS and its clear and set MSRs have one bit per
 * counter; anything else written is dropped (KVM amd_pmu_refresh()).
 */
static void amd_refresh(struct vpmu *pmu)
{
	uint64_t counters = low_bits(pmu->cfg.nr_gp);

	pmu->caps.global_ctrl = amd_perfmon_v2(&pmu->cfg);
	pmu->caps.core_ext = amd_core_ext(&pmu->cfg);
	pmu->global_ctrl_rsvd = ~counters;
	pmu->global_ovf_ctrl_rsvd = ~counters;
	pmu->global_status_set_rsvd = ~counters;
}

/*
 * RESET: counters and controls 0; with PerfMonV2, GLOBAL_CTL enables every
 * counter, so software written for version 1 still counts (KVM
 * kvm_pmu_refresh(): "At RESET, both Intel and AMD CPUs set all enable
 * bits for general purpose counters").
 */
static void amd_reset(struct vpmu *pmu)
{
	if (pmu->caps.global_ctrl)
		pmu->global_ctrl = low_bits(pmu->cfg.nr_gp);
}

/* ---- CPUID --------------------------------------------------------------- */

/*
 * AMD64 APM vol. 3 appendix E, KVM amd_pmu_refresh(): 0x80000001 ECX[23]
 * PerfCtrExtCore for the six-counter core extension, and leaf 0x80000022
 * for PerfMonV2 (EAX[0]) with the number of core counters (EBX[3:0]). Any
 * other configuration, the Intel model's included, clears them: a guest
 * never sees the other vendor's PMU.
 */
void vpmu_cpuid_80000001(const struct vpmu_config *cfg, uint32_t *ecx)
{
	*ecx &= ~CPUID_8000_0001_ECX_PERFCTR_CORE;
	if (cfg->vendor == VPMU_VENDOR_AMD && amd_core_ext(cfg))
		*ecx |= CPUID_8000_0001_ECX_PERFCTR_CORE;
}

void vpmu_cpuid_80000022(const struct vpmu_config *cfg, uint32_t *eax, uint32_t *ebx,
			 uint32_t *ecx, uint32_t *edx)
{
	*eax = *ebx = *ecx = *edx = 0;
	if (cfg->vendor != VPMU_VENDOR_AMD || !amd_perfmon_v2(cfg))
		return;
	*eax = CPUID_8000_0022_EAX_PERFMON_V2;
	*ebx = cfg->nr_gp;
}

/* ---- events -------------------------------------------------------------- */

/*
 * A PERF_CTL's 12-bit EventSelect (bits 7:0 and 35:32) and UMask matched
 * against the AMD rows of the event table (include/x86-pmu/events.h).
 */
#define AMD_EVENT_UMASK	(EVTSEL_EVENT | EVTSEL_UMASK | AMD_EVTSEL_EVENT_HI)

static enum pmu_arch_event amd_decode_event(const struct vpmu *pmu, uint64_t ctl)
{
	switch (ctl & AMD_EVENT_UMASK) {
#define AMD_EVENT_CASE_(name, sel, umask, str)	\
	case PMU_AMD_RAW_EVENT(sel, umask): return PMU_EV_##name;
	PMU_AMD_EVENTS(AMD_EVENT_CASE_)
#undef AMD_EVENT_CASE_
	default:
		return PMU_EV_NONE;
	}
}

static enum pmu_arch_event amd_no_fixed_event(unsigned int idx)
{
	return PMU_EV_NONE;
}

/* ---- MSRs ---------------------------------------------------------------- */

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

/* Bits past the counter's 48 are dropped (KVM pmc_write_counter()). */
static void wr_ctr(struct vpmu *pmu, unsigned int i, uint64_t data)
{
	pmu->gp[i].value = data & pmu->gp_mask;
}

/* 0xC0010200 + 2n is PERF_CTLn, + 2n + 1 is PERF_CTRn. */
static bool has_core_pair(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->caps.core_ext && vpmu_has_gp(pmu, idx / 2);
}

static int rd_pair(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	return idx & 1 ? vpmu_rd_gp_ctr(pmu, idx / 2, data) : vpmu_rd_gp_ctl(pmu, idx / 2, data);
}

static void wr_pair(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	if (idx & 1)
		wr_ctr(pmu, idx / 2, data);
	else
		wr_ctl(pmu, idx / 2, data);
}

static bool has_perfmon_v2(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->caps.global_ctrl;
}

/* Read-only: a guest write is ignored (KVM: "Per PPR, Read-only MSR"). */
static void wr_ignore(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
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

#define RANGE(msr, n, exists_fn) .first = (msr), .count = (n), .exists = (exists_fn)

static const struct vpmu_msr_range amd_msr_ranges[] = {
	{ RANGE(MSR_K7_EVNTSEL0, AMD_NR_LEGACY_COUNTERS, vpmu_has_gp), .rd = vpmu_rd_gp_ctl,
	  .wr = wr_ctl, .controls = true },
	{ RANGE(MSR_K7_PERFCTR0, AMD_NR_LEGACY_COUNTERS, vpmu_has_gp), .rd = vpmu_rd_gp_ctr,
	  .wr = wr_ctr },
	{ RANGE(MSR_F15H_PERF_CTL0, 2 * AMD_NR_CORE_COUNTERS, has_core_pair), .rd = rd_pair,
	  .wr = wr_pair, .controls = true },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 1, has_perfmon_v2), REG(global_status),
	  .wr = wr_ignore },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 1, has_perfmon_v2), REG(global_ctrl),
	  .wr = wr_global_ctl, .controls = true },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, 1, has_perfmon_v2), .rd = vpmu_rd_zero,
	  .wr = wr_status_clr },
	{ RANGE(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, 1, has_perfmon_v2), .rd = vpmu_rd_zero,
	  .wr = wr_status_set },
	VPMU_INTEL_PMU_ONLY_ROWS,
};

static const struct vpmu_msr_span amd_msr_spans[] = {
	VPMU_AMD_PMU_SPANS,
	VPMU_INTEL_PMU_SPAN,
};

/* ---- RDPMC --------------------------------------------------------------- */

/* ECX is the counter index, 0 .. nr_gp - 1 (KVM amd_rdpmc_ecx_to_pmc()). */
static int amd_rdpmc(const struct vpmu *pmu, uint32_t ecx, uint64_t *data)
{
	if (ecx >= pmu->cfg.nr_gp)
		return VPMU_GP;
	*data = pmu->gp[ecx].value & pmu->gp_mask;
	return VPMU_OK;
}

/* No freeze on PMI: DEBUGCTL is not a PMU MSR on AMD (freeze_on_pmi NULL). */
const struct vpmu_vendor vpmu_amd = {
	.name = "amd",
	.validate = amd_validate,
	.refresh = amd_refresh,
	.reset = amd_reset,
	.msr_ranges = amd_msr_ranges,
	.nr_msr_ranges = sizeof(amd_msr_ranges) / sizeof(amd_msr_ranges[0]),
	.msr_spans = amd_msr_spans,
	.nr_msr_spans = sizeof(amd_msr_spans) / sizeof(amd_msr_spans[0]),
	.decode_event = amd_decode_event,
	.fixed_event = amd_no_fixed_event,
	.rdpmc = amd_rdpmc,
};
