/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmu_smp (--cpus 2): each vCPU has its own PMU.  Both CPUs program
 * different counters with different values at the same time (behind a
 * barrier) and each must read back exactly its own programming and zero
 * elsewhere; then both arm a different counter to overflow with a PMI at
 * the same time, and each must get exactly one PMI whose GLOBAL_STATUS
 * names only its own counter.
 *
 * Output for the system test: "pmu_smp: cpu=N pmis=M" and the pmu_final
 * line of each CPU (pmu_common.h), compared with pmuvm's --report.
 */
#include "pmu_common.h"

#define NR_CPUS		2
#define PRESET		100000ull
#define WAIT_TICKS	5000000000ull	/* ~2 s: an upper bound only */
#define QUIET_TICKS	20000000ull

struct plan {
	unsigned int gp;		/* GP counter given a value */
	uint64_t gp_value;
	unsigned int sel;		/* GP counter given an event select (no EN) */
	uint64_t sel_value;
	unsigned int fixed;		/* fixed counter given a value */
	uint64_t fixed_value;
	uint64_t pmi_bit;		/* counter that overflows with a PMI (global index) */
};

static const struct plan plans[NR_CPUS] = {
	{ .gp = 0, .gp_value = 0x111111, .sel = 2, .sel_value = PMU_EVENT_CORE_CYCLES | EVTSEL_USR,
	  .fixed = 0, .fixed_value = 0x1000, .pmi_bit = GLOBAL_CTRL_FIXED(1) },
	{ .gp = 1, .gp_value = 0x222222, .sel = 3, .sel_value = PMU_EVENT_REF_CYCLES | EVTSEL_OS,
	  .fixed = 2, .fixed_value = 0x2000, .pmi_bit = BIT_ULL(4) },
};

static struct pmu_cfg cfg;
static volatile int arrived[2];
static volatile int nr_pmi[NR_CPUS];
static volatile uint64_t pmi_status[NR_CPUS], pmi_lvtpc[NR_CPUS];

/* Unmasks LVTPC as Linux does, so a PMI meant for the other CPU would be seen. */
static void pmi(struct rt_frame *f)
{
	int cpu = rt_cpu_id();

	pmi_status[cpu] = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	pmi_lvtpc[cpu] = apic_read_lvtpc();
	apic_write_lvtpc(PMI_VECTOR);
	nr_pmi[cpu]++;
}

/* Both CPUs leave together: what follows happens on both at the same time. */
static void rendezvous(int stage)
{
	uint64_t end = rdtsc() + WAIT_TICKS;

	__atomic_add_fetch(&arrived[stage], 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&arrived[stage], __ATOMIC_SEQ_CST) < NR_CPUS && rdtsc() < end)
		cpu_relax();
	GUEST_ASSERT_EQ(arrived[stage], NR_CPUS);
}

static void program_and_check(void *arg)
{
	const struct plan *p = arg;

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	rendezvous(0);
	wrmsr(MSR_IA32_PMC0 + p->gp, p->gp_value);
	wrmsr(MSR_IA32_PERFEVTSEL0 + p->sel, p->sel_value);
	wrmsr(MSR_IA32_FIXED_CTR0 + p->fixed, p->fixed_value);
	rendezvous(1);
	for (unsigned int x = 0; x < cfg.nr_gp; x++) {
		GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0 + x), x == p->gp ? p->gp_value : 0);
		GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERFEVTSEL0 + x), x == p->sel ? p->sel_value : 0);
	}
	for (unsigned int i = 0; i < cfg.nr_fixed; i++)
		if (pmu_fixed_exists(&cfg, i))
			GUEST_ASSERT_EQ(rdmsr(MSR_IA32_FIXED_CTR0 + i),
					i == p->fixed ? p->fixed_value : 0);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
}

static void overflow_with_pmi(void *arg)
{
	const struct plan *p = arg;
	int cpu = rt_cpu_id();
	uint64_t end;

	apic_write_lvtpc(PMI_VECTOR);
	if (p->pmi_bit >= GLOBAL_CTRL_FIXED(0)) {
		unsigned int i = __builtin_ctzll(p->pmi_bit) - PMC_IDX_FIXED;

		wrmsr(MSR_IA32_FIXED_CTR0 + i, (0 - PRESET) & width_mask(cfg.fixed_width));
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(i) | FIXED_CTRL_USR(i) |
					       FIXED_CTRL_PMI(i));
	} else {
		unsigned int x = __builtin_ctzll(p->pmi_bit);

		wrmsr(MSR_IA32_PMC0 + x, 0 - PRESET);
		wrmsr(MSR_IA32_PERFEVTSEL0 + x, PMU_EVENT_CORE_CYCLES | EVTSEL_OS | EVTSEL_USR |
						EVTSEL_INT | EVTSEL_EN);
	}
	rendezvous(0);		/* main() reset arrived[] */
	sti();
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, p->pmi_bit);
	GUEST_ASSERT(wait_flag(&nr_pmi[cpu], WAIT_TICKS));
	/* Stay open a while: the other CPU's PMI must not land here. */
	end = rdtsc() + QUIET_TICKS;
	while (rdtsc() < end)
		cpu_relax();
	cli();
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	GUEST_ASSERT_EQ(nr_pmi[cpu], 1);
	GUEST_ASSERT_EQ(pmi_status[cpu], p->pmi_bit);
	GUEST_ASSERT_EQ(pmi_lvtpc[cpu], PMI_VECTOR | APIC_LVT_MASKED);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), p->pmi_bit);
}

static void report(void *arg)
{
	printf("pmu_smp: cpu=%d pmis=%d\n", rt_cpu_id(), nr_pmi[rt_cpu_id()]);
	pmu_print_final(&cfg);
}

/* Runs fn on CPU 1 and CPU 0 at once; each gets its own plan. */
static void on_both(void (*fn)(void *))
{
	rt_run_on_cpu_async(1, fn, (void *)&plans[1]);
	fn((void *)&plans[0]);
	rt_wait_cpu(1);
}

int main(void)
{
	cfg = pmu_cfg_read();
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 5 && pmu_fixed_first(&cfg, 3));
	GUEST_ASSERT_EQ(rt_smp_start(), NR_CPUS);
	rt_set_irq_handler(PMI_VECTOR, pmi);

	on_both(program_and_check);
	test_ok("each vCPU reads back only its own counters");

	arrived[0] = arrived[1] = 0;
	on_both(overflow_with_pmi);
	test_ok("each vCPU gets its own PMI");

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		rt_run_on_cpu(cpu, report, NULL);
	return 0;
}
