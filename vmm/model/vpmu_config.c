/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vPMU configuration and initialisation: the vendor of a configuration,
 * the checks every vendor shares, and the RESET state a model starts in.
 *
 * Version 0 is a real value (a CPU without a PMU), so the version itself
 * is never defaulted; each vendor's defaults (vpmu_config_default(),
 * vpmu_config_default_amd()) give a full configuration, and its validate
 * op only fills in fields whose 0 is meaningless for the chosen version.
 * vpmu_init() then gives a model its capabilities, reserved bits and RESET
 * values from its vendor.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static const struct vpmu_vendor *const vendors[] = {
	[VPMU_VENDOR_INTEL] = &vpmu_intel,
	[VPMU_VENDOR_AMD] = &vpmu_amd,
};

const struct vpmu_vendor *vpmu_vendor_of(const struct vpmu_config *cfg)
{
	if ((unsigned int)cfg->vendor >= sizeof(vendors) / sizeof(vendors[0]))
		return NULL;
	return vendors[cfg->vendor];
}

int vpmu_config_validate(struct vpmu_config *cfg)
{
	const struct vpmu_vendor *v = vpmu_vendor_of(cfg);

	if (!v || cfg->available_events & ~low_bits(PMU_EV_NR))
		return -EINVAL;
	return v->validate(cfg);
}

void vpmu_init(struct vpmu *pmu, const struct vpmu_config *cfg)
{
	memset(pmu, 0, sizeof(*pmu));
	pmu->cfg = *cfg;
	pmu->vendor = vpmu_vendor_of(cfg);
	pmu->gp_mask = cfg->nr_gp ? width_mask(cfg->gp_width) : 0;
	pmu->fixed_mask = vpmu_fixed_counters(cfg) ? width_mask(cfg->fixed_width) : 0;
	pmu->vendor->refresh(pmu);
	pmu->vendor->reset(pmu);
	vpmu_reprogram(pmu);
}
