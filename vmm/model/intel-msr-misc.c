/*
 * PERF_CAPABILITIES, DEBUGCTL, MISC_ENABLE and the DS/PEBS control MSRs
 * (docs/intel-pmu.md 1.1, 1.4, 2.9-2.13).
 */
#include "internal.h"

/* Read-only: a guest write always #GPs (docs/intel-pmu.md 1.4, KVM), so no wr handler. */
int vpmu_rd_perf_capabilities(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->perf_capabilities;
	return VPMU_OK;
}

int vpmu_rd_debugctl(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->debugctl;
	return VPMU_OK;
}

/*
 * Only the freeze-on-PMI bits are modelled. LBR and BTF are dropped without
 * #GP as KVM does when it does not virtualize them; FREEZE_WHILE_SMM needs
 * PERF_CAPABILITIES[12], which we never set, so it #GPs with the rest.
 */
int vpmu_chk_debugctl(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & pmu->debugctl_rsvd ? VPMU_GP : VPMU_OK;
}

void vpmu_wr_debugctl(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->debugctl = data & ~(DEBUGCTL_LBR | DEBUGCTL_BTF);
}

int vpmu_rd_misc_enable(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->misc_enable;
	return VPMU_OK;
}

/*
 * BTS/PEBS_UNAVAILABLE are read-only: changing them #GPs; EMON is read-only
 * too but KVM silently keeps it (docs/kvm-vpmu.md 1.2). Other bits are stored.
 */
int vpmu_chk_misc_enable(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	uint64_t ro = MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL;

	return (data ^ pmu->misc_enable) & ro ? VPMU_GP : VPMU_OK;
}

void vpmu_wr_misc_enable(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->misc_enable = (data & ~MISC_ENABLE_EMON) |
			   (pmu->misc_enable & MISC_ENABLE_EMON);
}

/* A linear address: non-canonical (48-bit, no LA57) #GPs (docs/intel-pmu.md 2.10, KVM). */
int vpmu_chk_ds_area(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return (uint64_t)((int64_t)(data << 16) >> 16) != data ? VPMU_GP : VPMU_OK;
}
