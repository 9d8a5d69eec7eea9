/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmu_filter: counts core cycles (0x3c/0x00) on GP counter 0 and fixed
 * counter 1, and reference cycles (0x3c/0x01) on GP counter 1 and fixed
 * counter 2, over a short CPL0 spin, then checks each against what the
 * test says pmuvm's --event-filter allows:
 *
 *   --append "gp0=1 gp1=0 fc1=1 fc2=0"   (1: must count, 0: denied)
 *
 * A denied counter must still be programmable and read back exactly the
 * value the guest wrote (docs/kvm-vpmu.md 1.6: a filtered event counts nothing).
 */
#include "pmu_common.h"

#define SPIN_TICKS	20000000ull	/* ~10 ms of TSC at CPL0 */
#define PRESET		0x1234ull

struct ctr {
	const char *key;
	uint32_t msr;
};

static const struct ctr ctrs[] = {
	{ "gp0", MSR_IA32_PMC0 },
	{ "gp1", MSR_IA32_PMC0 + 1 },
	{ "fc1", MSR_IA32_FIXED_CTR0 + 1 },
	{ "fc2", MSR_IA32_FIXED_CTR0 + 2 },
};

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	const uint64_t en = EVTSEL_EN | EVTSEL_OS | EVTSEL_USR;
	uint64_t end, want;
	unsigned int i;

	printf("pmu_filter: version=%u gp=%u fixed=%u\n", cfg.version, cfg.nr_gp, cfg.nr_fixed);
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 2 && pmu_fixed_exists(&cfg, 1) &&
		     pmu_fixed_exists(&cfg, 2));
	for (i = 0; i < 4; i++)
		GUEST_ASSERT(mbi_arg_u64(ctrs[i].key, &want));

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	for (i = 0; i < 4; i++)
		wrmsr(ctrs[i].msr, PRESET);
	wrmsr(MSR_IA32_PERFEVTSEL0, PMU_EVENT_CORE_CYCLES | en);
	wrmsr(MSR_IA32_PERFEVTSEL0 + 1, PMU_EVENT_REF_CYCLES | en);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1) | FIXED_CTRL_USR(1) |
	      FIXED_CTRL_OS(2) | FIXED_CTRL_USR(2));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0x3 | GLOBAL_CTRL_FIXED(1) | GLOBAL_CTRL_FIXED(2));

	end = rdtsc() + SPIN_TICKS;
	while (rdtsc() < end)
		cpu_relax();

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	/* The guest's programming is kept, filtered or not. */
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERFEVTSEL0), PMU_EVENT_CORE_CYCLES | en);
	for (i = 0; i < 4; i++) {
		uint64_t v = rdmsr(ctrs[i].msr);

		mbi_arg_u64(ctrs[i].key, &want);
		printf("pmu_filter: %s=%llu (%s)\n", ctrs[i].key, (unsigned long long)v,
		       want ? "allowed" : "denied");
		if (want)
			GUEST_ASSERT(v > PRESET);
		else
			GUEST_ASSERT_EQ(v, PRESET);
	}
	test_ok("pmu_filter");
	return 0;
}
