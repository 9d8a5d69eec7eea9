/*
 * RESET state and the reserved-bit masks derived from the configuration.
 *
 * Every mask starts as "all reserved" and only bits the configuration
 * enumerates are opened (KVM kvm_pmu_refresh()), so an MSR this config does
 * not have can never accept a stray bit.
 */
#include "internal.h"

/* 0x390 (docs/intel-pmu.md 2.6): counter bits plus these, v4+ adding LBR_Frz/CTR_Frz/ASCI. */
#define OVF_CTRL_V2_BITS	(GLOBAL_STATUS_TRACE_TOPA_PMI | GLOBAL_STATUS_OVF_UNCORE | \
				 GLOBAL_STATUS_BUFFER_OVF | GLOBAL_STATUS_COND_CHGD)
#define STATUS_V4_BITS		(GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | \
				 GLOBAL_STATUS_ASCI)
/* 0x391 (docs/intel-pmu.md 2.7): like 0x390 of v4 but CondChgd (63) is reserved. */
#define STATUS_SET_BITS		(GLOBAL_STATUS_TRACE_TOPA_PMI | STATUS_V4_BITS | \
				 GLOBAL_STATUS_OVF_UNCORE | GLOBAL_STATUS_BUFFER_OVF)

static uint64_t perf_capabilities(const struct vpmu_config *cfg)
{
	uint64_t caps = 0;

	if (cfg->full_width_write)
		caps |= PERF_CAP_FW_WRITE;
	if (cfg->pebs) {
		/* Trap-like records with architectural registers (docs/intel-pmu.md 4.5). */
		caps |= PERF_CAP_PEBS_TRAP | PERF_CAP_PEBS_ARCH_REG |
			(uint64_t)cfg->pebs_format << PERF_CAP_PEBS_FORMAT_SHIFT;
		if (cfg->pebs_baseline)
			caps |= PERF_CAP_PEBS_BASELINE;
	}
	return caps;
}

static void init_masks(struct vpmu *pmu)
{
	const struct vpmu_config *cfg = &pmu->cfg;
	uint64_t counters = vpmu_counter_bits(cfg);
	uint64_t fixed_valid = 0;
	uint64_t debugctl_valid = DEBUGCTL_LBR | DEBUGCTL_BTF;
	unsigned int i;

	pmu->evtsel_rsvd = ~0ULL;
	pmu->fixed_ctr_ctrl_rsvd = ~0ULL;
	pmu->global_ctrl_rsvd = ~0ULL;
	pmu->global_ovf_ctrl_rsvd = ~0ULL;
	pmu->global_status_set_rsvd = ~0ULL;
	pmu->pebs_enable_rsvd = ~0ULL;

	/* LBR and BTF are accepted and dropped, not #GP (KVM, docs/intel-pmu.md 2.9). */
	if (cfg->pdcm && cfg->version > 1)
		debugctl_valid |= DEBUGCTL_FREEZE_LBRS_ON_PMI |
				  DEBUGCTL_FREEZE_PERFMON_ON_PMI;
	pmu->debugctl_rsvd = ~debugctl_valid;

	if (cfg->version < 1)
		return;
	pmu->evtsel_rsvd = EVTSEL_RSVD_BASE;
	if (cfg->pebs_baseline)
		pmu->evtsel_rsvd &= ~EVTSEL_ADAPTIVE;

	if (cfg->version < 2)
		return;
	for (i = 0; i < cfg->nr_fixed; i++) {
		fixed_valid |= FIXED_CTRL_VALID(i);
		if (cfg->pebs_baseline)
			fixed_valid |= FIXED_CTRL_ADAPTIVE(i);
	}
	pmu->fixed_ctr_ctrl_rsvd = ~fixed_valid;
	pmu->global_ctrl_rsvd = ~counters;
	pmu->global_ovf_ctrl_rsvd = ~(counters | OVF_CTRL_V2_BITS);
	if (cfg->version >= 4) {
		pmu->global_ovf_ctrl_rsvd &= ~STATUS_V4_BITS;
		pmu->global_status_set_rsvd = ~(counters | STATUS_SET_BITS);
	}

	/* KVM: with baseline any counter can do PEBS, else the GP ones only. */
	if (cfg->pebs)
		pmu->pebs_enable_rsvd = cfg->pebs_baseline ? pmu->global_ctrl_rsvd :
							     ~low_bits(cfg->nr_gp);
}

void vpmu_intel_reset(struct vpmu *pmu)
{
	const struct vpmu_config *cfg = &pmu->cfg;

	init_masks(pmu);

	/*
	 * Architectural RESET value of GLOBAL_CTRL: every GP enable set, fixed
	 * enables clear (docs/intel-pmu.md 2, KVM commit de120e1d), so a v1-style guest that
	 * never touches GLOBAL_CTRL still counts.
	 */
	if (cfg->version >= 2)
		pmu->global_ctrl = low_bits(cfg->nr_gp);

	pmu->misc_enable = MISC_ENABLE_FAST_STRING | MISC_ENABLE_BTS_UNAVAIL;
	if (cfg->version)
		pmu->misc_enable |= MISC_ENABLE_EMON;
	if (!cfg->pebs)
		pmu->misc_enable |= MISC_ENABLE_PEBS_UNAVAIL;

	if (cfg->pdcm)
		pmu->perf_capabilities = perf_capabilities(cfg);
}
