/* SPDX-License-Identifier: MIT */
/*
 * The demo guest: who we are, how many CPUs, the PMU we were given (either
 * vendor's: CPUID 0AH on Intel, SDM vol. 2A "Architectural Performance
 * Monitoring Leaf"; CPUID 0x80000001 and 0x80000022 on AMD, AMD64 APM
 * vol. 3 appendix E) and what its counters count around a loop, through
 * the runtime's vendor-neutral helper (rt/pmc.h).  A machine without a PMU
 * fails the demo: it has nothing to show.
 */
#include <rt.h>
#include <x86-pmu/cpuid.h>

#include "demo.h"

#define LOOP_ITERATIONS	1000
#define LOOP_INSNS	2	/* DEC, JNZ */

/* n >= 1 iterations of DEC; JNZ. */
void demo_loop(uint64_t n);
asm(".text\n"
    ".globl demo_loop\n"
    "demo_loop:\n"
    "	movq %rdi, %rcx\n"
    "1:	decq %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

static void show_intel(void)
{
	struct cpuid_regs r = cpuid(CPUID_LEAF_PMU);

	printf("demo: cpuid 0xa: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n",
	       r.eax, r.ebx, r.ecx, r.edx);
}

static void show_amd(void)
{
	uint32_t ext = cpuid(0x80000000).eax;
	uint32_t ecx = ext >= 0x80000001 ? cpuid(0x80000001).ecx : 0;
	struct cpuid_regs r = { 0 };

	if (ext >= CPUID_LEAF_AMD_PMU)
		r = cpuid(CPUID_LEAF_AMD_PMU);
	printf("demo: cpuid 0x80000001: ecx=0x%08x (PerfCtrExtCore %u); "
	       "cpuid 0x80000022: eax=0x%08x ebx=0x%08x (PerfMonV2 %u)\n",
	       ecx, !!(ecx & CPUID_8000_0001_ECX_PERFCTR_CORE), r.eax, r.ebx,
	       !!(r.eax & CPUID_8000_0022_EAX_PERFMON_V2));
}

static void (*const show[])(void) = {
	[RT_PMC_INTEL] = show_intel,
	[RT_PMC_AMD] = show_amd,
};

struct loop_counts {
	int insns_st, cycles_st;	/* rt_pmc_start()'s answers */
	uint64_t insns, cycles;
};

/* One run of the loop with instructions on counter 0 and cycles on 1. */
static void count_run(uint64_t n, struct loop_counts *c, bool two)
{
	c->insns_st = rt_pmc_start(0, RT_PMC_INSTRUCTIONS, RT_PMC_OS);
	c->cycles_st = two ? rt_pmc_start(1, RT_PMC_CYCLES, RT_PMC_OS) : -RT_EINVAL;
	demo_loop(n);
	c->cycles = two ? rt_pmc_stop(1) : 0;
	c->insns = rt_pmc_stop(0);
}

/*
 * The loop for 1 and for 1 + LOOP_ITERATIONS iterations: the difference
 * of the instruction counts is the loop's alone, whatever starting and
 * stopping the counters adds.  False if the PMU counted nothing at all.
 */
static bool count_loop(const struct rt_pmc_info *pmu)
{
	struct loop_counts one, many;
	bool two = pmu->nr_gp >= 2;

	count_run(1, &one, two);
	count_run(1 + LOOP_ITERATIONS, &many, two);
	printf("demo: a loop of %d iterations (DEC, JNZ) at CPL0:", LOOP_ITERATIONS);
	if (many.insns_st)
		printf(" instructions not counted (%d)", many.insns_st);
	else
		printf(" %lld instructions (%d expected)", (long long)(many.insns - one.insns),
		       LOOP_ITERATIONS * LOOP_INSNS);
	if (many.cycles_st)
		printf(", cycles not counted (%d)\n", many.cycles_st);
	else
		printf(", %llu cycles\n", (unsigned long long)many.cycles);
	return many.insns || many.cycles;
}

/* Set bits of v: the fixed counters there are (version 5's may have holes). */
static unsigned int bit_count(uint32_t v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

int main(void)
{
	struct rt_pmc_info pmu;

	puts("pmuvm demo guest");
	printf("demo: %d cpu%s\n", rt_nr_cpus(), rt_nr_cpus() == 1 ? "" : "s");
	if (rt_pmc_probe(&pmu)) {
		printf("demo: no PMU on this %s CPU: nothing to count with\n", pmu.cpu_vendor);
		return 1;
	}
	printf("demo: %s pmu (%s)\n", rt_pmc_vendor_name(pmu.vendor), pmu.cpu_vendor);
	show[pmu.vendor]();
	printf("demo: pmu version %u, %u gp counters x %u bits, "
	       "%u fixed counters x %u bits\n",
	       pmu.version, pmu.nr_gp, pmu.gp_width, bit_count(pmu.fixed_counters),
	       pmu.fixed_width);
	if (!count_loop(&pmu)) {
		puts("demo: the PMU counted nothing");
		return 1;
	}
	demo_pebs_profile();
	return 0;
}
