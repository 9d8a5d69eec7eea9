/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_off: what a guest sees of instructions and branches, whether pmuvm
 * offers them (--exact on, the default) or not (--exact off). It reports
 * CPUID.0AH EBX (bit i set: architectural event i unavailable) and the
 * counts of one loop: fixed counter 0 (instructions), GP counter 0
 * (branches) and GP counter 1 (core cycles), all at OS. The loop retires
 * 1 + 2 x 1000 instructions and 1000 branches between the WRMSR that
 * enables the counters (not counted) and the four instructions that
 * disable them (counted): 2005 and 1000 where counted. It also reports
 * the cycles counter as RDPMC reads it.
 */
#include "pmu_common.h"

void off_loop(void);

asm(".text\n"
    PMU_SEQ_BEGIN(off_loop, 0x3, 1)	/* GP0, GP1, FIXED0 */
    "	movl $1000, %ebx\n"
    "1:	decl %ebx\n"
    "	jnz 1b\n"
    PMU_SEQ_END);

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();

	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0) && cfg.nr_gp >= 2);
	GUEST_VALUE("cpuid_0a_ebx", cpuid(CPUID_LEAF_PMU).ebx);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_PMC0 + 1, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_BRANCHES);
	wrmsr(MSR_IA32_PERFEVTSEL0 + 1, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_CORE_CYCLES);
	off_loop();
	/* Read right after the WRMSR that stopped the counters, as perf does. */
	GUEST_VALUE("cycles_rdpmc", rdpmc(1));
	GUEST_VALUE("instructions", rdmsr(MSR_IA32_FIXED_CTR0));
	GUEST_VALUE("branches", rdmsr(MSR_IA32_PMC0));
	GUEST_VALUE("cycles", rdmsr(MSR_IA32_PMC0 + 1));
	return 0;
}
