/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counter side of PEBS (docs/intel-pmu.md 4.2): the armed set and the reload done by
 * an assist.  The DS area and the records themselves are vmm/pebs.
 */
#include "internal.h"

uint64_t vpmu_take_pebs_armed(struct vpmu *pmu)
{
	uint64_t armed = pmu->pebs_armed;

	pmu->pebs_armed = 0;
	return armed;
}

/* docs/intel-pmu.md 4.2 step 5: load the DS reset value and clear the overflow bit. */
void vpmu_pebs_reload(struct vpmu *pmu, unsigned int idx, uint64_t value)
{
	if (idx < pmu->cfg.nr_gp)
		pmu->gp[idx].value = value & pmu->gp_mask;
	else if (idx >= PMC_IDX_FIXED && vpmu_fixed_exists(&pmu->cfg, idx - PMC_IDX_FIXED))
		pmu->fixed[idx - PMC_IDX_FIXED].value = value & pmu->fixed_mask;
	else
		return;
	pmu->global_status &= ~BIT_ULL(idx);
}

bool vpmu_pebs_adaptive(const struct vpmu *pmu, unsigned int idx)
{
	if (idx < pmu->cfg.nr_gp)
		return pmu->gp[idx].ctl & EVTSEL_ADAPTIVE;
	if (idx >= PMC_IDX_FIXED && vpmu_fixed_exists(&pmu->cfg, idx - PMC_IDX_FIXED))
		return pmu->fixed_ctr_ctrl & FIXED_CTRL_ADAPTIVE(idx - PMC_IDX_FIXED);
	return false;
}
