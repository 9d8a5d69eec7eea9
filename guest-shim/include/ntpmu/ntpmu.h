/* SPDX-License-Identifier: MIT */
/*
 * ntpmu in a guest: the Windows counter calls of nt/ (ntddk.h,
 * winbase.h, evntrace.h, perflib.h, ntexapi.h) on the PMU MSRs, bound to
 * the guest runtime (rt.h) by ntpmu_rt_init().  docs/ntpmu.md, "Using it
 * in a guest".
 *
 *	int main(void)
 *	{
 *		rt_smp_start();		(only if the guest wants the other CPUs)
 *		ntpmu_rt_init();
 *		... KeSetHardwareCounterConfiguration(), EnableThreadProfiling(), ...
 *	}
 */
#ifndef NTPMU_NTPMU_H
#define NTPMU_NTPMU_H

#include <stdint.h>

/*
 * Bind ntpmu to the runtime: its MSRs, allocator, lock and threads, the
 * PMI on a fixed vector of every online CPU, and the scheduler's switch
 * hook.  Call it once, after rt_smp_start() if the guest calls that (ntpmu
 * serves the CPUs online then), while the other CPUs are idle, and before
 * the first rt_thread_create().
 */
void ntpmu_rt_init(void);

/* What ntpmu found at initialisation (CPUID 0AH). */
struct ntpmu_pmu_info {
	unsigned int version;		/* 0: no architectural PMU */
	unsigned int nr_gp;
	/*
	 * Bit i: fixed counter i exists (CPUID.0AH:EDX[4:0], and from
	 * version 5 ECX, which may leave holes); nr_fixed is one past the
	 * highest.  ntpmu refuses the indices of the others.
	 */
	unsigned int nr_fixed;
	uint32_t fixed_counters;
	unsigned int gp_width, fixed_width;
};
void ntpmu_pmu_info(struct ntpmu_pmu_info *info);

#endif
