/*
 * Global control MSRs with behaviour beyond a plain register (v2+): 0x390
 * (OVF_CTRL / STATUS_RESET) and the v4 STATUS_SET and INUSE (docs/intel-pmu.md 2.3-2.8).
 * FIXED_CTR_CTRL, GLOBAL_CTRL and GLOBAL_STATUS are plain registers in
 * msr.c's table.
 */
#include "internal.h"

/* 0x390 and 0x391 read 0, as in KVM; the hardware value is unconfirmed. */
int vpmu_rd_zero(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = 0;
	return VPMU_OK;
}

/*
 * Write 1 to clear. In v4 clearing CTR_Frz is what unfreezes the counters:
 * the enable expression (docs/intel-pmu.md 3.1) reads the status bit directly.
 */
int vpmu_chk_global_ovf_ctrl(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & pmu->global_ovf_ctrl_rsvd ? VPMU_GP : VPMU_OK;
}

void vpmu_wr_global_ovf_ctrl(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->global_status &= ~data;
}

/*
 * Write 1 to set (docs/intel-pmu.md 2.7). It is a VMM aid for restoring GLOBAL_STATUS,
 * so setting an overflow bit does not request a PMI; setting CTR_Frz does
 * freeze the counters.
 */
int vpmu_chk_global_status_set(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & pmu->global_status_set_rsvd ? VPMU_GP : VPMU_OK;
}

void vpmu_wr_global_status_set(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->global_status |= data;
}

int vpmu_set_global_status_host(struct vpmu *pmu, uint64_t data)
{
	/* Every bit that 0x390 can clear is a bit that can be set. */
	if (pmu->cfg.version < 2 || (data & pmu->global_ovf_ctrl_rsvd))
		return VPMU_GP;
	pmu->global_status = data;
	vpmu_reprogram(pmu);
	return VPMU_OK;
}

/* Derived, read-only (docs/intel-pmu.md 2.8). */
int vpmu_rd_global_inuse(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	uint64_t inuse = 0;
	bool pmi = false;
	unsigned int i;

	for (i = 0; i < pmu->cfg.nr_gp; i++) {
		if (pmu->gp[i].ctl & EVTSEL_EVENT)
			inuse |= BIT_ULL(i);
		pmi |= pmu->gp[i].ctl & EVTSEL_INT;
	}
	for (i = 0; i < pmu->cfg.nr_fixed; i++) {
		if (pmu->fixed_ctr_ctrl & (FIXED_CTRL_OS(i) | FIXED_CTRL_USR(i)))
			inuse |= GLOBAL_CTRL_FIXED(i);
		pmi |= pmu->fixed_ctr_ctrl & FIXED_CTRL_PMI(i);
	}
	if (pmi || pmu->pebs_enable & vpmu_counter_bits(&pmu->cfg))
		inuse |= GLOBAL_INUSE_PMI;
	*data = inuse;
	return VPMU_OK;
}
