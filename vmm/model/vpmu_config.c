/*
 * vPMU configuration: defaults and range checks.
 *
 * Version 0 is a real value (a CPU without an architectural PMU), so the
 * version itself is never defaulted; vpmu_config_default() gives the full
 * default configuration, and vpmu_config_validate() only fills in fields
 * whose 0 is meaningless for the chosen version. vpmu_init() then gives a
 * model its RESET state from its vendor.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define VPMU_DEFAULT_WIDTH	48	/* what every Intel core since Nehalem reports */
#define VPMU_MIN_WIDTH		32	/* legacy PMCx writes sign-extend bit 31 (docs/intel-pmu.md 2.1) */
#define VPMU_MAX_WIDTH		63	/* keeps "distance to wrap" (2^W - value) in a u64 */
#define VPMU_DEFAULT_FIXED	3
#define VPMU_DEFAULT_PEBS_FMT	4

void vpmu_config_default(struct vpmu_config *cfg, unsigned int version)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->version = version;
	if (!version)
		return;
	cfg->nr_gp = VPMU_MAX_GP;
	cfg->gp_width = VPMU_DEFAULT_WIDTH;
	cfg->nr_fixed = version > 1 ? VPMU_DEFAULT_FIXED : 0;
	cfg->fixed_width = VPMU_DEFAULT_WIDTH;
	/* PERF_CAPABILITIES appears with PDCM; KVM always offers FW_WRITE with it. */
	cfg->pdcm = version > 1;
	cfg->full_width_write = cfg->pdcm;
	cfg->available_events = low_bits(PMU_EV_NR);
}

static int check_width(unsigned int *width)
{
	if (!*width)
		*width = VPMU_DEFAULT_WIDTH;
	if (*width < VPMU_MIN_WIDTH || *width > VPMU_MAX_WIDTH)
		return -EINVAL;
	return 0;
}

static int check_pebs(struct vpmu_config *cfg)
{
	if (!cfg->pebs) {
		if (cfg->pebs_format || cfg->pebs_baseline)
			return -EINVAL;
		return 0;
	}
	/*
	 * The PEBS format lives in PERF_CAPABILITIES (so PDCM is required) and
	 * PEBS counters are enabled through GLOBAL_CTRL (so version >= 2).
	 */
	if (!cfg->pdcm || cfg->version < 2)
		return -EINVAL;
	if (!cfg->pebs_format)
		cfg->pebs_format = VPMU_DEFAULT_PEBS_FMT;
	if (cfg->pebs_format < 3 || cfg->pebs_format > 5)
		return -EINVAL;
	/* Linux ignores PEBS_BASELINE below format 4 (docs/intel-pmu.md 1.4). */
	if (cfg->pebs_baseline && cfg->pebs_format < 4)
		return -EINVAL;
	return 0;
}

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
 * AMD (AMD64 APM vol. 2 13.2; KVM amd_pmu_refresh()): version 1 is four
 * legacy counters or, with the core extension, six; version 2 (PerfMonV2)
 * has one to six core counters. Counters are 48 bits wide; there are no
 * fixed counters, no PERF_CAPABILITIES and no PEBS.
 */
static int validate_amd(struct vpmu_config *cfg)
{
	if (cfg->version > 2 || cfg->pebs || cfg->nr_fixed)
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

int vpmu_config_validate(struct vpmu_config *cfg)
{
	if (cfg->available_events & ~low_bits(PMU_EV_NR))
		return -EINVAL;
	if (cfg->vendor == VPMU_VENDOR_AMD)
		return validate_amd(cfg);
	if (cfg->vendor != VPMU_VENDOR_INTEL || cfg->version > 5)
		return -EINVAL;

	if (!cfg->version) {
		/* No PMU: nothing PMU-shaped may leak into CPUID or the MSRs. */
		if (cfg->pebs)
			return -EINVAL;
		cfg->nr_gp = 0;
		cfg->nr_fixed = 0;
		cfg->gp_width = 0;
		cfg->fixed_width = 0;
		cfg->full_width_write = false;
		cfg->pdcm = false;
		cfg->pebs_format = 0;
		cfg->pebs_baseline = false;
		return 0;
	}

	if (!cfg->nr_gp)
		cfg->nr_gp = VPMU_MAX_GP;
	if (cfg->nr_gp > VPMU_MAX_GP)
		return -EINVAL;
	if (check_width(&cfg->gp_width) || check_width(&cfg->fixed_width))
		return -EINVAL;

	/* Version 1 has no fixed counters and no global MSRs (docs/intel-pmu.md 1.2). */
	if (cfg->version == 1)
		cfg->nr_fixed = 0;
	if (cfg->nr_fixed > VPMU_MAX_FIXED)
		return -EINVAL;

	/*
	 * FW_WRITE is a PERF_CAPABILITIES bit: without PDCM the guest cannot
	 * see it, and KVM treats PERF_CAPABILITIES as 0 (docs/kvm-vpmu.md 1.2).
	 */
	if (!cfg->pdcm)
		cfg->full_width_write = false;

	return check_pebs(cfg);
}

void vpmu_init(struct vpmu *pmu, const struct vpmu_config *cfg)
{
	memset(pmu, 0, sizeof(*pmu));
	pmu->cfg = *cfg;
	pmu->vendor = vpmu_vendor_of(cfg);
	pmu->gp_mask = cfg->nr_gp ? width_mask(cfg->gp_width) : 0;
	pmu->fixed_mask = cfg->nr_fixed ? width_mask(cfg->fixed_width) : 0;
	pmu->vendor->reset(pmu);
	vpmu_reprogram(pmu);
}
