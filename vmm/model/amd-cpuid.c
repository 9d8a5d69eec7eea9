/*
 * The AMD PMU's CPUID bits (AMD64 APM vol. 3 appendix E; KVM
 * amd_pmu_refresh()): 0x80000001 ECX[23] PerfCtrExtCore for the six-counter
 * core extension, and leaf 0x80000022 for PerfMonV2 (EAX[0]) with the
 * number of core counters (EBX[3:0]). Any other configuration, the Intel
 * model's included, clears them: a guest never sees the other vendor's PMU.
 */
#include "internal.h"
#include "x86-pmu/cpuid.h"

void vpmu_cpuid_80000001(const struct vpmu_config *cfg, uint32_t *ecx)
{
	*ecx &= ~CPUID_8000_0001_ECX_PERFCTR_CORE;
	if (cfg->vendor == VPMU_VENDOR_AMD &&
	    (cfg->version >= 2 || (cfg->version && cfg->nr_gp == AMD_NR_CORE_COUNTERS)))
		*ecx |= CPUID_8000_0001_ECX_PERFCTR_CORE;
}

void vpmu_cpuid_80000022(const struct vpmu_config *cfg, uint32_t *eax, uint32_t *ebx,
			 uint32_t *ecx, uint32_t *edx)
{
	*eax = *ebx = *ecx = *edx = 0;
	if (cfg->vendor != VPMU_VENDOR_AMD || cfg->version < 2)
		return;
	*eax = CPUID_8000_0022_EAX_PERFMON_V2;
	*ebx = cfg->nr_gp;
}
