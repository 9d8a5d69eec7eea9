/* SPDX-License-Identifier: MIT */
/* CPUID fields describing the PMU (SDM vol. 2A CPUID; docs/intel-pmu.md 1). */
#ifndef X86_PMU_CPUID_H
#define X86_PMU_CPUID_H

#include <stdint.h>

#define CPUID_LEAF_PMU			0x0a

/* CPUID.0AH:EAX */
#define CPUID_0A_EAX_VERSION(eax)	((eax) & 0xff)
#define CPUID_0A_EAX_NR_GP(eax)		(((eax) >> 8) & 0xff)
#define CPUID_0A_EAX_GP_WIDTH(eax)	(((eax) >> 16) & 0xff)
#define CPUID_0A_EAX_EVLEN(eax)		(((eax) >> 24) & 0xff)
/* CPUID.0AH:ECX, from version 5 (reserved before): bit i, fixed counter i is supported. */
#define CPUID_0A_ECX_FIXED_MASK(ecx)	((uint32_t)(ecx))
/* CPUID.0AH:EDX */
#define CPUID_0A_EDX_NR_FIXED(edx)	((edx) & 0x1f)
#define CPUID_0A_EDX_FIXED_WIDTH(edx)	(((edx) >> 5) & 0xff)
#define CPUID_0A_EDX_ANYTHREAD_DEPRECATED (1u << 15)

/*
 * The fixed counters that exist, bit i for counter i (SDM vol. 2A, CPUID
 * leaf 0AH; docs/intel-pmu.md 1.2): none before version 2, the first
 * EDX[4:0] from it, and from version 5 also those ECX names, so that
 * counters may have holes (ECX 0x5: counters 0 and 2, not 1).
 */
static inline uint32_t cpuid_0a_fixed_counters(uint32_t eax, uint32_t ecx, uint32_t edx)
{
	unsigned int version = CPUID_0A_EAX_VERSION(eax);
	uint32_t fixed;

	if (version < 2)
		return 0;
	fixed = (uint32_t)((1ull << CPUID_0A_EDX_NR_FIXED(edx)) - 1);
	if (version >= 5)
		fixed |= CPUID_0A_ECX_FIXED_MASK(ecx);
	return fixed;
}

/* One past the highest counter of a set of fixed counters: loops stop there. */
static inline unsigned int cpuid_0a_fixed_span(uint32_t fixed)
{
	return fixed ? 32 - (unsigned int)__builtin_clz(fixed) : 0;
}

/* CPUID.01H */
#define CPUID_1_ECX_DTES64		(1u << 2)
#define CPUID_1_ECX_DS_CPL		(1u << 4)
#define CPUID_1_ECX_PDCM		(1u << 15)
#define CPUID_1_ECX_X2APIC		(1u << 21)
#define CPUID_1_ECX_HYPERVISOR		(1u << 31)
#define CPUID_1_EDX_DS			(1u << 21)

/* AMD (AMD64 APM vol. 3 appendix E): the core counter extension and PerfMonV2. */
#define CPUID_8000_0001_ECX_PERFCTR_CORE (1u << 23)
#define CPUID_LEAF_AMD_PMU		0x80000022
#define CPUID_8000_0022_EAX_PERFMON_V2	(1u << 0)
#define CPUID_8000_0022_EBX_NR_CORE(ebx) ((ebx) & 0xf)

#endif
