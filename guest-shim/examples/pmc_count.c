/* SPDX-License-Identifier: MIT */
/*
 * pmc_count: count a loop with the PMU, on an Intel or an AMD CPU alike,
 * through the runtime's vendor-neutral helper (rt/pmc.h).  The loop runs
 * for 1 and for 1 + LOOP iterations; the difference of the two
 * instruction counts is the loop's own, 2 x LOOP (DEC, JNZ), whatever
 * starting and stopping the counters costs.
 *
 *	pmuvm --pmu intel pmc_count.elf     status 1
 *	pmuvm --pmu amd pmc_count.elf       status 1
 *	pmuvm --pmu none pmc_count.elf      status 3: no PMU
 */
#include <rt.h>

#define LOOP	1000

/* n >= 1 iterations of DEC; JNZ. */
void count_loop(uint64_t n);
asm(".text\n"
    ".globl count_loop\n"
    "count_loop:\n"
    "	movq %rdi, %rcx\n"
    "1:	decq %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

/* Instructions on counter 0, cycles on counter 1, around n iterations. */
static void count(uint64_t n, uint64_t *insns, uint64_t *cycles)
{
	GUEST_ASSERT_EQ(rt_pmc_start(0, RT_PMC_INSTRUCTIONS, RT_PMC_OS), 0);
	GUEST_ASSERT_EQ(rt_pmc_start(1, RT_PMC_CYCLES, RT_PMC_OS), 0);
	count_loop(n);
	*cycles = rt_pmc_stop(1);
	*insns = rt_pmc_stop(0);
}

int main(void)
{
	struct rt_pmc_info pmu;
	uint64_t i1, c1, i2, c2;

	if (rt_pmc_probe(&pmu))
		GUEST_FAIL("no PMU on this %s CPU", pmu.cpu_vendor);
	printf("pmc_count: %s PMU version %u, %u counters of %u bits\n",
	       rt_pmc_vendor_name(pmu.vendor), pmu.version, pmu.nr_gp, pmu.gp_width);
	GUEST_ASSERT(pmu.nr_gp >= 2);
	count(1, &i1, &c1);
	count(1 + LOOP, &i2, &c2);
	printf("pmc_count: %d iterations: %llu instructions, %llu cycles\n", LOOP,
	       (unsigned long long)(i2 - i1), (unsigned long long)c2);
	GUEST_VALUE("pmc_count.instructions", i2 - i1);
	GUEST_VALUE("pmc_count.cycles", c2);
	GUEST_ASSERT_EQ(i2 - i1, 2 * LOOP);
	GUEST_ASSERT(c2 > 0);
	test_ok("pmc_count");
	return 0;
}
