/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_global_off: a counter stops where the global control clears its
 * enable bit, whatever runs between that WRMSR and the RDMSR that reads
 * it: Intel's GLOBAL_CTRL (SDM vol. 3B 20.2.2, 20.2.4: a fixed counter
 * counts only while both its FIXED_CTR_CTRL field and its GLOBAL_CTRL bit
 * are set) and AMD's PerfMonV2 GLOBAL_CTL (APM vol. 2 13.2.2).
 *
 * Each case programs the counters while the global control is 0, then
 * gctl_loop() enables the case's mask (that WRMSR is not counted) and
 * retires GCTL_LOOP_INSNS instructions ending in the WRMSR that writes 0
 * (counted); SPIN_N iterations of a loop (or none) run before the counters
 * are read. Intel: "alone" is fixed counter 0 alone (FIXED_CTR_CTRL = 3,
 * nothing else programmed); the other cases program fixed counters 0-2
 * (OS|USR) and PMC0 (instructions, OS|USR) and enable one of them, or all.
 * AMD: PERF_CTR0 on retired instructions. Every count is reported as the
 * value "<case>_spin<n>_<counter>"; "loop_insns" is GCTL_LOOP_INSNS.
 */
#include "pmu_common.h"

#define GCTL_LOOP_N	1000
/*
 * After the enabling WRMSR: MOV to EBX, the loop's DEC and JNZ GCTL_LOOP_N
 * times, XOR, XOR and the disabling WRMSR.
 */
#define GCTL_LOOP_INSNS	(1 + 2 * GCTL_LOOP_N + 3)
#define SPIN_N		50

/* gctl_loop(value, msr): WRMSR(msr, value), the loop, WRMSR(msr, 0). */
void gctl_loop(uint64_t value, uint32_t msr);
void spin(uint32_t n);

asm(".text\n"
    ".globl gctl_loop\n"
    "gctl_loop:\n"
    "	pushq %rbx\n"
    "	movl %esi, %ecx\n"
    "	movl %edi, %eax\n"
    "	movq %rdi, %rdx\n"
    "	shrq $32, %rdx\n"
    "	wrmsr\n"
    "	movl $" XSTR(GCTL_LOOP_N) ", %ebx\n"
    "1:	decl %ebx\n"
    "	jnz 1b\n"
    "	xorl %eax, %eax\n"
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    "	popq %rbx\n"
    "	ret\n"
    ".globl spin\n"
    "spin:\n"
    "	testl %edi, %edi\n"
    "	jz 2f\n"
    "1:	decl %edi\n"
    "	jnz 1b\n"
    "2:	ret\n");

static void report(const char *what, unsigned int spin_n, const char *ctr, uint64_t v)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_spin%u_%s", what, spin_n, ctr);
	GUEST_VALUE(name, v);
}

static void fixed0_alone(unsigned int spin_n)
{
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0) | FIXED_CTRL_USR(0));
	gctl_loop(GLOBAL_CTRL_FIXED(0), MSR_IA32_PERF_GLOBAL_CTRL);
	spin(spin_n);
	report("alone", spin_n, "fixed0", rdmsr(MSR_IA32_FIXED_CTR0));
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
}

static void intel_case(const char *what, uint64_t mask, unsigned int spin_n)
{
	static const char *const fixed_name[] = { "fixed0", "fixed1", "fixed2" };

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	for (unsigned int i = 0; i < 3; i++)
		wrmsr(MSR_IA32_FIXED_CTR0 + i, 0);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0) | FIXED_CTRL_USR(0) | FIXED_CTRL_OS(1) |
				       FIXED_CTRL_USR(1) | FIXED_CTRL_OS(2) | FIXED_CTRL_USR(2));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | PMU_EVENT_INSTRUCTIONS);
	gctl_loop(mask, MSR_IA32_PERF_GLOBAL_CTRL);
	spin(spin_n);
	for (unsigned int i = 0; i < 3; i++)
		report(what, spin_n, fixed_name[i], rdmsr(MSR_IA32_FIXED_CTR0 + i));
	report(what, spin_n, "pmc0", rdmsr(MSR_IA32_PMC0));
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
}

static void intel(void)
{
	static const struct {
		const char *what;
		uint64_t mask;
	} cases[] = {
		{ "fixed0", GLOBAL_CTRL_FIXED(0) },
		{ "fixed1", GLOBAL_CTRL_FIXED(1) },
		{ "fixed2", GLOBAL_CTRL_FIXED(2) },
		{ "pmc0", 1 },
		{ "all", GLOBAL_CTRL_FIXED(0) | GLOBAL_CTRL_FIXED(1) | GLOBAL_CTRL_FIXED(2) | 1 },
	};
	struct pmu_cfg cfg = pmu_cfg_read();

	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_first(&cfg, 3) && cfg.nr_gp >= 1);
	fixed0_alone(0);
	fixed0_alone(SPIN_N);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		intel_case(cases[i].what, cases[i].mask, 0);
		intel_case(cases[i].what, cases[i].mask, SPIN_N);
	}
}

/* PERF_CTR0 counting retired instructions (0xC0) at OS|USR; GLOBAL_CTL bit 0. */
static void amd_case(unsigned int spin_n)
{
	wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
	wrmsr(MSR_F15H_PERF_CTR0, 0);
	wrmsr(MSR_F15H_PERF_CTL0, EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | 0xc0);
	gctl_loop(1, MSR_AMD64_PERF_CNTR_GLOBAL_CTL);
	spin(spin_n);
	report("amd", spin_n, "ctr0", rdmsr(MSR_F15H_PERF_CTR0));
	wrmsr(MSR_F15H_PERF_CTL0, 0);
}

static bool is_amd(void)
{
	struct cpuid_regs r = cpuid(0);

	return r.ebx == 0x68747541 && r.edx == 0x69746e65 && r.ecx == 0x444d4163;
}

int main(void)
{
	GUEST_VALUE("loop_insns", GCTL_LOOP_INSNS);
	if (is_amd()) {
		GUEST_ASSERT(cpuid(0x80000000).eax >= CPUID_LEAF_AMD_PMU &&
			     (cpuid(CPUID_LEAF_AMD_PMU).eax & CPUID_8000_0022_EAX_PERFMON_V2));
		amd_case(0);
		amd_case(SPIN_N);
	} else {
		intel();
	}
	return 0;
}
