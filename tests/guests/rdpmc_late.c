/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdpmc_late: RDPMC long after the counters were last touched, as
 * kvm-unit-tests' x86/pmu and Linux's perf read them. Where KVM answers
 * RDPMC itself, no discovery window finds such a read (every read comes
 * after a spin longer than any window) and the image holds more RDPMCs than
 * there are breakpoints: pmuvm turns them into RDMSRs (rdpmc/trap.c),
 * and every read here goes through that, at CPL0 as an RDMSR exit, at CPL3
 * as the #GP the RDMSR raises there. Each read must return what a CPU with
 * this PMU would:
 *   - every GP counter, then every fixed counter, written and read back;
 *   - GP 0 counting instructions at CPL0, stopped, read by RDPMC and RDMSR;
 *   - fixed counter 1 counting core cycles, stopped, the same;
 *   - an RDPMC while instructions are counted retires exactly once;
 *   - an RDPMC of no counter, or in fast-read mode, #GPs;
 *   - at CPL3 it #GPs without CR4.PCE and reads the counter with it;
 *   - an RDMSR of the MSRs an RDPMC's ECX names, elsewhere, is an RDMSR;
 *   - a site the guest writes back to RDPMC is an RDPMC again.
 * With no PMU (version 0) every RDPMC #GPs, through the same sites, at CPL0
 * and at CPL3 with CR4.PCE, and RDMSR of those MSRs is still an RDMSR.
 */
#include "rdpmc_common.h"

#define SPIN	5000	/* iterations of two instructions: past any discovery window */

static void spin(void)
{
	unsigned int n = SPIN;

	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
}

/* Four RDPMC sites, each in its own function. */
static __attribute__((noinline)) uint64_t read_gp(unsigned int i)
{
	return rdpmc(i);
}

static __attribute__((noinline)) uint64_t read_fixed(unsigned int i)
{
	return rdpmc((uint32_t)RDPMC_FIXED | i);
}

static __attribute__((noinline)) uint64_t read_gp0_counted(void)
{
	return rdpmc(0);
}

static __attribute__((noinline)) uint64_t read_fixed1_counted(void)
{
	return rdpmc((uint32_t)RDPMC_FIXED | 1);
}

/* A function with a type and a size: the image's scan (vmm/rdpmc/sites.c) decodes it. */
asm(".text\n.globl seq_rdpmc\n.type seq_rdpmc, @function\nseq_rdpmc:\n" SEQ_RDPMC_BODY
    ".size seq_rdpmc, . - seq_rdpmc\n");

/* No PMU: every GP and fixed index, and their fast reads, #GP (SDM vol. 2B RDPMC). */
static int no_pmu(void)
{
	struct user_read u;
	unsigned int i;
	uint64_t v;

	for (i = 0; i < 8; i++) {
		GUEST_ASSERT_EQ(rdpmc_safe(i, &v), VEC_GP);
		GUEST_ASSERT_EQ(rdpmc_safe(RDPMC_FAST | i, &v), VEC_GP);
	}
	for (i = 0; i < 4; i++) {
		GUEST_ASSERT_EQ(rdpmc_safe((uint32_t)RDPMC_FIXED | i, &v), VEC_GP);
		GUEST_ASSERT_EQ(rdpmc_safe(RDPMC_FAST | (uint32_t)RDPMC_FIXED | i, &v), VEC_GP);
	}
	test_ok("rdpmc without a pmu faults");

	write_cr4(read_cr4() | CR4_PCE);
	u = (struct user_read){ .ecx = 0 };
	rt_run_user(user_rdpmc, (uint64_t)&u);
	GUEST_ASSERT_EQ(u.vector, VEC_GP);
	write_cr4(read_cr4() & ~CR4_PCE);
	test_ok("rdpmc without a pmu faults at cpl3");

	GUEST_ASSERT_EQ(rdmsr_safe(0, &v), 0);
	GUEST_ASSERT_EQ(v, 0);
	GUEST_ASSERT_EQ(rdmsr_safe(2, &v), VEC_GP);
	test_ok("rdmsr of the msrs rdpmc names");
	return 0;
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	volatile uint8_t *code;
	struct user_read u;
	uint64_t v, m;
	unsigned int i;

	if (!cfg.version)
		return no_pmu();
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 1 && pmu_fixed_first(&cfg, 2));
	for (i = 0; i < cfg.nr_gp; i++) {
		wrmsr(MSR_IA32_PMC0 + i, 0x300 + i);
		spin();
		v = read_gp(i);
		GUEST_ASSERT_EQ(v, 0x300 + i);
	}
	for (i = 0; i < cfg.nr_fixed; i++) {
		if (!pmu_fixed_exists(&cfg, i))
			continue;
		wrmsr(MSR_IA32_FIXED_CTR0 + i, 0x400 + i);
		spin();
		v = read_fixed(i);
		GUEST_ASSERT_EQ(v, 0x400 + i);
	}
	test_ok("rdpmc late of every counter");

	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_INSTRUCTIONS);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	spin();
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	spin();
	v = read_gp0_counted();
	m = rdmsr(MSR_IA32_PMC0);
	printf("rdpmc_late: GP 0 counted %llu instructions, RDPMC read %llu\n",
	       (unsigned long long)m, (unsigned long long)v);
	GUEST_ASSERT(m >= 2 * SPIN);
	GUEST_ASSERT_EQ(v, m);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
	test_ok("rdpmc late of a stopped instruction counter");

	wrmsr(MSR_IA32_FIXED_CTR0 + 1, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));
	spin();
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	spin();
	v = read_fixed1_counted();
	m = rdmsr(MSR_IA32_FIXED_CTR0 + 1);
	printf("rdpmc_late: fixed 1 counted %llu cycles, RDPMC read %llu\n",
	       (unsigned long long)m, (unsigned long long)v);
	GUEST_ASSERT(m > 0);
	GUEST_ASSERT_EQ(v, m);
	test_ok("rdpmc late of a stopped cycle counter");

	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_IA32_PMC0, 0x1234);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	v = seq_rdpmc();
	GUEST_ASSERT_EQ(v, 0x1234);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_FIXED_CTR0), 7);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	test_ok("rdpmc retires once while counted");

	GUEST_ASSERT_EQ(rdpmc_safe(cfg.nr_gp, &v), VEC_GP);
	GUEST_ASSERT_EQ(rdpmc_safe(RDPMC_FAST | 0, &v), VEC_GP);
	test_ok("rdpmc of no counter faults");

	wrmsr(MSR_IA32_FIXED_CTR0 + 1, 0x77);
	spin();
	write_cr4(read_cr4() & ~CR4_PCE);
	u = (struct user_read){ .ecx = RDPMC_FIXED | 1 };
	rt_run_user(user_rdpmc, (uint64_t)&u);
	GUEST_ASSERT_EQ(u.vector, VEC_GP);
	write_cr4(read_cr4() | CR4_PCE);
	u = (struct user_read){ .ecx = RDPMC_FIXED | 1 };
	rt_run_user(user_rdpmc, (uint64_t)&u);
	GUEST_ASSERT_EQ(u.vector, 0);
	GUEST_ASSERT_EQ(u.val, 0x77);
	write_cr4(read_cr4() & ~CR4_PCE);
	test_ok("rdpmc late at cpl3");

	/* MSR 0 is P5_MC_ADDR, which KVM reads as 0; MSR 2 is none. */
	GUEST_ASSERT_EQ(rdmsr_safe(0, &v), 0);
	GUEST_ASSERT_EQ(v, 0);
	GUEST_ASSERT_EQ(rdmsr_safe(2, &v), VEC_GP);
	test_ok("rdmsr of the msrs rdpmc names");

	/* The guest's own code: an RDMSR where pmuvm turned the RDPMC into one. */
	code = (volatile uint8_t *)read_gp;
	for (i = 0; i < 32 && !(code[i] == 0x0f && (code[i + 1] == 0x33 || code[i + 1] == 0x32)); i++)
		;
	GUEST_ASSERT(i < 32);
	printf("rdpmc_late: read_gp's RDPMC reads as 0f %02x\n", code[i + 1]);
	code[i + 1] = 0x33;
	wrmsr(MSR_IA32_PMC0 + cfg.nr_gp - 1, 0x555);
	spin();
	GUEST_ASSERT_EQ(read_gp(cfg.nr_gp - 1), 0x555);
	test_ok("a site written back is an rdpmc");
	return 0;
}
