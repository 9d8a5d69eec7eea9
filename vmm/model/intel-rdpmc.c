/*
 * Intel RDPMC (docs/intel-pmu.md 2.1, docs/kvm-vpmu.md 1.2): ECX[31:16] is
 * the counter type, 0 for GP and 0x4000 for fixed; every other type,
 * including the legacy fast-read bit 31, is #GP, as is an index past the
 * last counter.
 */
#include "internal.h"

#define RDPMC_TYPE_SHIFT	16
#define RDPMC_TYPE_GP		0
#define RDPMC_TYPE_FIXED	(RDPMC_FIXED >> RDPMC_TYPE_SHIFT)
#define RDPMC_INDEX		0xffffu

int vpmu_intel_rdpmc(const struct vpmu *pmu, uint32_t ecx, uint64_t *data)
{
	unsigned int idx = ecx & RDPMC_INDEX;

	/* nr_gp and nr_fixed are 0 for version 0, which therefore always #GPs. */
	switch (ecx >> RDPMC_TYPE_SHIFT) {
	case RDPMC_TYPE_GP:
		if (idx >= pmu->cfg.nr_gp)
			return VPMU_GP;
		*data = pmu->gp[idx].value & pmu->gp_mask;
		return VPMU_OK;
	case RDPMC_TYPE_FIXED:
		if (idx >= pmu->cfg.nr_fixed)
			return VPMU_GP;
		*data = pmu->fixed[idx].value & pmu->fixed_mask;
		return VPMU_OK;
	default:
		return VPMU_GP;
	}
}
