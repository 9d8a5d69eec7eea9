/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spin: never ends on its own, for stopping pmuvm from outside (signals,
 * progress, a reader of its output that goes away).  It says "spin: ready"
 * first, then by "mode=N" on the command line:
 *   mode=0  (default) halts with interrupts off: no work, no exits
 *   mode=1  counts instructions retired at OS in GP counter 0 and loops, so
 *           every instruction is counted exactly (vmm/exact: emulated by
 *           default, stepped under --exact step)
 *   mode=2  prints numbered lines, one after another, forever
 */
#include "pmu_common.h"

int main(void)
{
	uint64_t mode = 0, n;

	mbi_arg_u64("mode", &mode);
	printf("spin: ready\n");
	if (mode == 1) {
		wrmsr(MSR_IA32_PMC0, 0);
		wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_INSTRUCTIONS);
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
		for (;;)
			cpu_relax();
	}
	if (mode == 2)
		for (n = 0;; n++)
			printf("spin: line %llu\n", (unsigned long long)n);
	for (;;) {
		cli();
		hlt();
	}
}
