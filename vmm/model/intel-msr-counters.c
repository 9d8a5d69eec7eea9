/*
 * Counter and event-select MSRs: IA32_PMCx (0xC1+), IA32_A_PMCx (0x4C1+),
 * IA32_PERFEVTSELx (0x186+) and IA32_FIXED_CTRi (0x309+), docs/intel-pmu.md 2.1 and 2.2.
 *
 * No write here creates an overflow or touches GLOBAL_STATUS: only a real
 * increment does (docs/intel-pmu.md 2.1, 3.3).
 */
#include "internal.h"

int vpmu_rd_gp_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->gp[idx].value & pmu->gp_mask;
	return VPMU_OK;
}

/* Legacy alias: EAX only, bit 31 copied up to the width (SDM 18.2.5, KVM). */
void vpmu_wr_pmc(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->gp[idx].value = (uint64_t)(int64_t)(int32_t)(uint32_t)data & pmu->gp_mask;
}

/* Full-width alias: bits at or above the width are reserved (KVM). */
int vpmu_chk_a_pmc(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & ~pmu->gp_mask ? VPMU_GP : VPMU_OK;
}

int vpmu_rd_evtsel(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->gp[idx].ctl;
	return VPMU_OK;
}

int vpmu_chk_evtsel(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & pmu->evtsel_rsvd ? VPMU_GP : VPMU_OK;
}

void vpmu_wr_evtsel(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->gp[idx].ctl = data;
	/* A reprogrammed counter starts with no edge history (docs/intel-pmu.md 3.2). */
	pmu->gp[idx].edge_prev = false;
}

int vpmu_rd_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->fixed[idx].value & pmu->fixed_mask;
	return VPMU_OK;
}

/*
 * The SDM calls bits above the width reserved, but whether hardware #GPs is
 * unconfirmed (spec open item 2); KVM truncates, and so do we.
 */
void vpmu_wr_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->fixed[idx].value = data & pmu->fixed_mask;
}

/* Full-width alias: bits at or above the width are reserved (KVM, checked first). */
void vpmu_wr_pmc_full(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->gp[idx].value = data;
}
