/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cycles_cpl: user-mode cycles under a kernel that counts per task, as
 * Linux's perf does. Fixed counter 1 counts core cycles at USR only, GP
 * counter 0 counts them (0x3C/0x00) at OS only; the kernel enables both
 * (GLOBAL_CTRL) before each of STRETCHES stretches of user code and stops
 * them after, so every exit the guest itself causes while they count is a
 * CPL0 WRMSR, and each stretch is shorter than the mean interval between
 * the CPL samples of pmuvm's clock source (vmm/clock/clock.c, "Privilege
 * levels").
 * Each stretch runs STRETCH_TICKS TSC ticks at CPL3 and sums the ticks it
 * really ran, as pmu_sample does (consecutive RDTSCs more than GAP_TICKS
 * apart mean it was interrupted).
 *
 * Asserts: the USR cycles equal the ticks user code ran within 20% (cycles
 * run at the TSC rate under pmuvm's default --cpu-mhz), and the OS cycles
 * are at most 1.2 times the ticks the counters were enabled outside user
 * code (the stretches' way in and out, and the host's exits, which do not
 * count). Where the CPL at the exits decided, USR read 0 and OS all.
 */
#include "pmu_common.h"

#define STRETCHES	300
#define STRETCH_TICKS	4000000ull	/* ~1.5 ms: under the clock's CPL sample interval */
#define GAP_TICKS	2000

/* At CPL3: spins STRETCH_TICKS TSC ticks; returns the ticks it ran. */
static uint64_t user_stretch(uint64_t unused)
{
	(void)unused;
	return pmu_spin_ticks(STRETCH_TICKS, GAP_TICKS);
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t ran = 0, enabled = 0, usr, os;

	printf("cycles_cpl: version=%u fixed=%u\n", cfg.version, cfg.nr_fixed);
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 1) && cfg.nr_gp >= 1);

	wrmsr(MSR_IA32_FIXED_CTR0 + 1, 0);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(1));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_CORE_CYCLES);
	for (int i = 0; i < STRETCHES; i++) {
		uint64_t t0 = rdtsc();

		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1) | 1);
		ran += rt_run_user(user_stretch, 0);
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
		enabled += rdtsc() - t0;
	}
	usr = rdmsr(MSR_IA32_FIXED_CTR0 + 1);
	os = rdmsr(MSR_IA32_PMC0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
	printf("cycles_cpl: enabled_tsc=%llu ran_tsc=%llu usr_cycles=%llu os_cycles=%llu\n",
	       (unsigned long long)enabled, (unsigned long long)ran, (unsigned long long)usr,
	       (unsigned long long)os);
	GUEST_VALUE("ran_tsc", ran);
	GUEST_VALUE("usr_cycles", usr);
	GUEST_VALUE("os_cycles", os);
	GUEST_ASSERT(usr * 100 >= ran * 80);
	GUEST_ASSERT(usr * 100 <= ran * 120);
	GUEST_ASSERT(os * 100 <= (enabled - ran) * 120);
	test_ok("cycles_cpl");
	return 0;
}
