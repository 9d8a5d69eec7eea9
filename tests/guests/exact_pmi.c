/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_pmi: exact overflow and zero-skid PMIs, and the
 * deterministic --cycles model (item 4).
 *
 * 1. Fixed counter 0 (instructions, OS, PMI) preset to -N overflows on the
 *    Nth instruction of a run of NOPs after the enabling WRMSR; the PMI
 *    handler must see RIP == the (N+1)th NOP for every N tried.
 * 2. GP counter 0 on branches (INT) preset to -1 overflows on the first
 *    JNZ of a loop: the PMI arrives at the loop head, the JNZ's target.
 * 3. A sampling run over a CPL0 workload: fixed counter 1 (core cycles)
 *    with PMI every PERIOD cycles; prints every sampled RIP and the final
 *    counts.  Under --cycles model the system test runs it twice and
 *    requires identical output; here cycles == instructions x cpi (cpi
 *    from the command line, in thousandths: cpi_milli=).
 */
#include "pmu_common.h"

#define NOPS		32
#define SAMPLE_PERIOD	5000
#define MAX_IPS		64

void seq_nops(void), seq_branch(void);
extern char seq_nops_first[], seq_branch_head[];

asm(".text\n"
    ".globl seq_nops\nseq_nops:\n"
    "	sti\n"
    "	movl $0x38f, %ecx\n"
    "	xorl %eax, %eax\n"
    "	movl $1, %edx\n"			/* FIXED0 */
    "	wrmsr\n"
    ".globl seq_nops_first\nseq_nops_first:\n"
    "	.rept 32\n	nop\n	.endr\n"
    "	cli\n"
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    "	ret\n"
    ".globl seq_branch\nseq_branch:\n"
    "	pushq %rbx\n"
    "	movl $4, %ebx\n"
    "	sti\n"
    "	movl $0x38f, %ecx\n"
    "	movl $1, %eax\n"			/* GP0 */
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    ".globl seq_branch_head\nseq_branch_head:\n"
    "	decl %ebx\n"
    "	jnz seq_branch_head\n"
    "	cli\n"
    "	xorl %eax, %eax\n"
    "	wrmsr\n"
    "	popq %rbx\n"
    "	ret\n");

static struct pmu_cfg cfg;
static volatile uint64_t pmi_rip[MAX_IPS];
static volatile int nr_pmis;
static uint32_t sample_msr;		/* counter the sampling PMI re-arms, 0: none */
static uint64_t sample_preset;

static void pmi(struct rt_frame *f)
{
	int n = nr_pmis;

	if (n < MAX_IPS)
		pmi_rip[n] = f->rip;
	nr_pmis = n + 1;
	if (sample_msr)
		wrmsr(sample_msr, sample_preset);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	apic_write_lvtpc(PMI_VECTOR);
}

static void zero_skid_instructions(void)
{
	static const unsigned int ns[] = { 1, 2, 5, 13, 31 };

	for (unsigned int i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		uint64_t want = (uint64_t)seq_nops_first + ns[i];

		nr_pmis = 0;
		wrmsr(MSR_IA32_FIXED_CTR0, -(uint64_t)ns[i] & width_mask(cfg.fixed_width));
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0) | FIXED_CTRL_PMI(0));
		seq_nops();
		printf("exact_pmi: preset -%u: pmis=%d rip=%#llx (want %#llx)\n", ns[i], nr_pmis,
		       (unsigned long long)pmi_rip[0], (unsigned long long)want);
		GUEST_ASSERT_EQ(nr_pmis, 1);
		GUEST_ASSERT_EQ(pmi_rip[0], want);
	}
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	test_ok("exact zero skid, instructions");
}

static void zero_skid_branches(void)
{
	nr_pmis = 0;
	wrmsr(MSR_IA32_PMC0, width_mask(cfg.gp_width) & ~0ull);	/* -1 */
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | EVTSEL_INT | PMU_EVENT_BRANCHES);
	seq_branch();
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
	printf("exact_pmi: branch preset -1: pmis=%d rip=%#llx, branches after=%llu\n", nr_pmis,
	       (unsigned long long)pmi_rip[0], (unsigned long long)rdmsr(MSR_IA32_PMC0));
	GUEST_ASSERT_EQ(nr_pmis, 1);
	GUEST_ASSERT_EQ(pmi_rip[0], (uint64_t)seq_branch_head);
	/* 3 more JNZs, plus the branches of the PMI handler (it counts at OS too) */
	GUEST_ASSERT(rdmsr(MSR_IA32_PMC0) >= 3);
	test_ok("exact zero skid, branches");
}

/* Something with calls, loops and data-dependent branches. */
static uint64_t workload(void)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < 3000; i++) {
		h ^= (uint64_t)i;
		h *= 1099511628211ull;
		if (h & 1)
			h += h >> 7;
	}
	return h;
}

/* Counts instructions, core and ref cycles over workload(); PMIs every PERIOD cycles if asked. */
static uint64_t counted_run(bool sample, uint64_t *insns, uint64_t *cycles, uint64_t *ref)
{
	uint64_t h;

	nr_pmis = 0;
	sample_msr = sample ? MSR_IA32_FIXED_CTR0 + 1 : 0;
	sample_preset = -(uint64_t)SAMPLE_PERIOD & width_mask(cfg.fixed_width);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, sample ? sample_preset : 0);
	wrmsr(MSR_IA32_FIXED_CTR0 + 2, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0) | FIXED_CTRL_OS(1) | FIXED_CTRL_OS(2) |
				       (sample ? FIXED_CTRL_PMI(1) : 0));
	asm volatile("sti");
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(0) | GLOBAL_CTRL_FIXED(1) |
					 GLOBAL_CTRL_FIXED(2));
	h = workload();
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	asm volatile("cli");
	sample_msr = 0;
	*insns = rdmsr(MSR_IA32_FIXED_CTR0);
	*cycles = rdmsr(MSR_IA32_FIXED_CTR0 + 1);
	*ref = rdmsr(MSR_IA32_FIXED_CTR0 + 2);
	return h;
}

static void sampling_run(void)
{
	uint64_t insns, cycles, ref, h, cpi_milli = 0;

	mbi_arg_u64("cpi_milli", &cpi_milli);
	if (cpi_milli) {
		h = counted_run(false, &insns, &cycles, &ref);
		printf("exact_pmi: model: insns=%llu cycles=%llu ref=%llu\n",
		       (unsigned long long)insns, (unsigned long long)cycles,
		       (unsigned long long)ref);
		/* Only the sub-cycle remainder carried in from before can differ. */
		GUEST_ASSERT(cycles + 1 >= insns * cpi_milli / 1000 &&
			     cycles <= insns * cpi_milli / 1000 + 1);
		GUEST_ASSERT_EQ(ref, cycles);	/* --cpu-mhz defaults to the TSC rate */
	}
	h = counted_run(true, &insns, &cycles, &ref);
	printf("exact_pmi: sampling: hash=%llx insns=%llu cycles=%llu ref=%llu pmis=%d\n",
	       (unsigned long long)h, (unsigned long long)insns, (unsigned long long)cycles,
	       (unsigned long long)ref, nr_pmis);
	for (int i = 0; i < nr_pmis && i < MAX_IPS; i++)
		printf("exact_pmi: sample %d rip=%#llx\n", i, (unsigned long long)pmi_rip[i]);
	GUEST_ASSERT(insns > 10000);
	if (cpi_milli)
		GUEST_ASSERT(nr_pmis >= (int)(insns * cpi_milli / 1000 / SAMPLE_PERIOD));
	test_ok("exact sampling run");
}

int main(void)
{
	cfg = pmu_cfg_read();
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_first(&cfg, 3) && cfg.nr_gp >= 1);
	rt_set_irq_handler(PMI_VECTOR, pmi);
	apic_write_lvtpc(PMI_VECTOR);
	zero_skid_instructions();
	zero_skid_branches();
	sampling_run();
	return 0;
}
