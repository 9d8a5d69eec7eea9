/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpu_vendor: the CPU a guest sees under --pmu and --cpu-vendor
 * (docs/machine.md, "CPU vendor and PMU"). Prints one line the system test compares:
 * "cpu_vendor: VENDOR family F model M intel_pmu V amd_core_ext C amd_perfmon_v2 P amd_counters N",
 * "cpu_vendor: brand B" (the processor brand string, CPUID 80000002H-80000004H)
 * and fails if the vendor advertises the other vendor's PMU; and
 * "cpu_vendor: kvm_hypercalls H": H is 1 if KVM's paravirtual leaf offers a
 * feature used through a hypercall (PV spinlock kick, PV IPIs, PV yield:
 * KVM_FEATURE_PV_UNHALT 7, PV_SEND_IPI 11, PV_SCHED_YIELD 13).
 */
#include <rt.h>
#include <x86-pmu/cpuid.h>

int main(void)
{
	struct cpuid_regs r = cpuid(0), one = cpuid(1);
	unsigned int family = ((one.eax >> 8) & 0xf) + ((one.eax >> 20) & 0xff);
	unsigned int model = ((one.eax >> 4) & 0xf) | ((one.eax >> 12) & 0xf0);
	unsigned int intel_pmu = 0, core_ext, v2 = 0, amd_n = 0, hypercalls = 0;
	char v[13];

	__builtin_memcpy(v, &r.ebx, 4);
	__builtin_memcpy(v + 4, &r.edx, 4);
	__builtin_memcpy(v + 8, &r.ecx, 4);
	v[12] = 0;
	if (r.eax >= CPUID_LEAF_PMU)
		intel_pmu = CPUID_0A_EAX_VERSION(cpuid(CPUID_LEAF_PMU).eax);
	core_ext = !!(cpuid(0x80000001).ecx & CPUID_8000_0001_ECX_PERFCTR_CORE);
	if (cpuid(0x80000000).eax >= CPUID_LEAF_AMD_PMU) {
		struct cpuid_regs p = cpuid(CPUID_LEAF_AMD_PMU);

		v2 = p.eax & CPUID_8000_0022_EAX_PERFMON_V2;
		amd_n = v2 ? CPUID_8000_0022_EBX_NR_CORE(p.ebx) : 0;
	}
	printf("cpu_vendor: %s family %#x model %#x intel_pmu %u amd_core_ext %u amd_perfmon_v2 %u amd_counters %u\n",
	       v, family, model, intel_pmu, core_ext, v2, amd_n);
	if (cpuid(0x80000000).eax >= 0x80000004) {
		char brand[49];

		for (unsigned int i = 0; i < 3; i++) {
			struct cpuid_regs b = cpuid(0x80000002 + i);

			__builtin_memcpy(brand + 16 * i, &b.eax, 4);
			__builtin_memcpy(brand + 16 * i + 4, &b.ebx, 4);
			__builtin_memcpy(brand + 16 * i + 8, &b.ecx, 4);
			__builtin_memcpy(brand + 16 * i + 12, &b.edx, 4);
		}
		brand[48] = 0;
		printf("cpu_vendor: brand %s\n", brand);
	}
	r = cpuid(0x40000000);
	if (r.ebx == 0x4b4d564b && r.ecx == 0x564b4d56 && r.edx == 0x4d)	/* "KVMKVMKVM" */
		hypercalls = !!(cpuid(0x40000001).eax & (1u << 7 | 1u << 11 | 1u << 13));
	printf("cpu_vendor: kvm_hypercalls %u\n", hypercalls);
	if (!__builtin_memcmp(v, "GenuineIntel", 12))
		GUEST_ASSERT(!core_ext && !v2);
	if (!__builtin_memcmp(v, "AuthenticAMD", 12))
		GUEST_ASSERT_EQ(intel_pmu, 0);
	return 0;
}
