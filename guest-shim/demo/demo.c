/*
 * The demo guest.  For now: who we are, how many CPUs, and what CPUID leaf
 * 0xA says about the PMU (SDM vol. 2A CPUID, "Architectural Performance
 * Monitoring Leaf").
 */
#include <rt.h>
#include <pmu/cpuid.h>

#include "demo.h"

int main(void)
{
	struct cpuid_regs r;

	puts("pmuvm demo guest");
	printf("demo: %d cpu%s\n", rt_nr_cpus(), rt_nr_cpus() == 1 ? "" : "s");
	if (cpuid(0).eax < CPUID_LEAF_PMU) {
		puts("demo: cpuid leaf 0xa not available: no PMU");
		return 0;
	}
	r = cpuid(CPUID_LEAF_PMU);
	printf("demo: cpuid 0xa: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n",
	       r.eax, r.ebx, r.ecx, r.edx);
	printf("demo: pmu version %u, %u gp counters x %u bits, "
	       "%u fixed counters x %u bits\n",
	       CPUID_0A_EAX_VERSION(r.eax), CPUID_0A_EAX_NR_GP(r.eax),
	       CPUID_0A_EAX_GP_WIDTH(r.eax), CPUID_0A_EDX_NR_FIXED(r.edx),
	       CPUID_0A_EDX_FIXED_WIDTH(r.edx));
	demo_pebs_profile();
	return 0;
}
