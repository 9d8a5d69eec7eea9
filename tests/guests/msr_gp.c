/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * msr_gp: on a CPU without a PMU (pmuvm with the vPMU off) the PMU MSRs do
 * not exist, so RDMSR and WRMSR of them raise #GP (SDM vol. 2B RDMSR/WRMSR:
 * "#GP(0) if ECX specifies a reserved or unimplemented MSR").  The safe
 * accessors must report vector 13, and execution must carry on after each.
 *
 * Known hosts that do not #GP, where the vector is printed but not checked:
 *  - QEMU TCG (hypervisor signature "TCGTCGTCGTCG") reads every unknown
 *    MSR as 0 and drops writes.  There RDPMC (#UD under TCG, #GP under
 *    KVM) proves the fault-and-fixup path instead.
 *  - Plain KVM without an MSR filter answers 0xc1 itself; pmuvm filters
 *    it, so this test is strict about 0xc1 everywhere except TCG.
 */
#include <rt.h>
#include <x86-pmu/cpuid.h>
#include <x86-pmu/msr.h>

static bool on_tcg(void)
{
	struct cpuid_regs r;
	char sig[12];

	if (!(cpuid(1).ecx & CPUID_1_ECX_HYPERVISOR))
		return false;
	r = cpuid(0x40000000);
	memcpy(sig, &r.ebx, 4);
	memcpy(sig + 4, &r.ecx, 4);
	memcpy(sig + 8, &r.edx, 4);
	return !memcmp(sig, "TCGTCGTCGTCG", 12);
}

static void check(uint32_t msr, bool strict)
{
	const char *note = strict ? "" : " (QEMU TCG: not checked)";
	uint64_t val = 0x1234;
	int vec;

	vec = rdmsr_safe(msr, &val);
	printf("msr_gp: rdmsr 0x%x -> vector %d%s\n", msr, vec, note);
	if (strict) {
		GUEST_ASSERT_EQ(vec, VEC_GP);
		GUEST_ASSERT_EQ(val, 0);
	}

	vec = wrmsr_safe(msr, 0);
	printf("msr_gp: wrmsr 0x%x -> vector %d%s\n", msr, vec, note);
	if (strict)
		GUEST_ASSERT_EQ(vec, VEC_GP);
}

int main(void)
{
	bool strict = !on_tcg();
	uint64_t val;
	int vec;

	if (cpuid(0).eax >= CPUID_LEAF_PMU &&
	    CPUID_0A_EAX_VERSION(cpuid(CPUID_LEAF_PMU).eax)) {
		printf("msr_gp: CPUID.0AH reports PMU version %u; this test needs "
		       "a CPU without a PMU (pmuvm --pmu-version 0)\n",
		       CPUID_0A_EAX_VERSION(cpuid(CPUID_LEAF_PMU).eax));
		return 1;
	}
	check(MSR_IA32_PERF_GLOBAL_CTRL, strict);
	check(MSR_IA32_PMC0, strict);

	if (!strict) {
		vec = rdpmc_safe(0, &val);
		printf("msr_gp: rdpmc 0 -> vector %d\n", vec);
		GUEST_ASSERT(vec == VEC_UD || vec == VEC_GP);
	}

	/* A present MSR through the same path must not fault. */
	GUEST_ASSERT_EQ(rdmsr_safe(MSR_IA32_APICBASE, &val), 0);
	GUEST_ASSERT_EQ(val & ~0xfffull, APIC_DEFAULT_BASE);
	test_ok("msr_gp");
	return 0;
}
