/*
 * CPUID leaf 0xA and the PMU bits of leaf 1: the one place that turns a
 * vpmu_config into what the guest enumerates (docs/intel-pmu.md 1.1, 1.2).
 */
#include "internal.h"
#include "x86-pmu/cpuid.h"

void vpmu_cpuid_0a(const struct vpmu_config *cfg, uint32_t *eax, uint32_t *ebx,
		   uint32_t *ecx, uint32_t *edx)
{
	*eax = *ebx = *ecx = *edx = 0;
	if (!cfg->version || cfg->vendor != VPMU_VENDOR_INTEL)
		return;		/* EAX[7:0] = 0: no architectural PMU */

	*eax = cfg->version | cfg->nr_gp << 8 | cfg->gp_width << 16 |
	       PMU_EV_VECTOR_LEN << 24;
	/* EBX bit i set means event i is NOT available. */
	*ebx = (uint32_t)(~cfg->available_events & low_bits(PMU_EV_VECTOR_LEN));

	/* ECX is the fixed-counter bitmap from v5, reserved (0) before. */
	if (cfg->version >= 5)
		*ecx = (uint32_t)low_bits(cfg->nr_fixed);

	/*
	 * EDX is meaningful from v2. AnyThread is always #GP in this model, so
	 * bit 15 says so at every version > 1, as KVM does (docs/kvm-vpmu.md 1.5).
	 */
	if (cfg->version > 1)
		*edx = cfg->nr_fixed | cfg->fixed_width << 5 |
		       CPUID_0A_EDX_ANYTHREAD_DEPRECATED;
}

void vpmu_cpuid_01(const struct vpmu_config *cfg, uint32_t *ecx, uint32_t *edx)
{
	*ecx &= ~(CPUID_1_ECX_PDCM | CPUID_1_ECX_DTES64 | CPUID_1_ECX_DS_CPL);
	*edx &= ~CPUID_1_EDX_DS;
	if (cfg->pdcm)
		*ecx |= CPUID_1_ECX_PDCM;
	/* DS-CPL qualifies BTS, which we never offer; DTES64 is needed by Linux. */
	if (cfg->pebs) {
		*ecx |= CPUID_1_ECX_DTES64;
		*edx |= CPUID_1_EDX_DS;
	}
}
