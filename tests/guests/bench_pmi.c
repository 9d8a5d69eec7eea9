/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_pmi (make bench): PMI latency of the clock source.
 *
 * Clock source: a CPL3 loop stores its latest RDTSC in `last_tsc` while
 * fixed counter 1 (core cycles, USR, PMI) overflows every `period` cycles;
 * the handler's first RDTSC minus `last_tsc` is the time from the guest
 * being stopped at the scheduled overflow to its handler running (the
 * handler's entry stub runs emulated at CPL0 on kvm_pvm hosts, and is
 * included).  After `pmis` PMIs the handler tells the loop to stop.
 *
 * The entry stub and dispatcher run 38 emulated instructions before
 * that RDTSC; bench_msr's empty loop gives the cost of one.
 *
 * The exact source's skid is what tests/guests/exact_pmi.c asserts to be
 * 0; scripts/bench.py runs that guest and reads its output.
 *
 * Args: tsc_khz= (required), pmis= (default 50), period_us= (default 2000).
 * Output: "bench: pmi_latency i=I ticks=T".
 */
#include "pmu_common.h"

#define MAX_PMIS	256

struct spin {
	volatile uint64_t last_tsc;	/* the loop's latest RDTSC */
	volatile uint64_t stop;		/* set by the handler */
};

uint64_t user_tsc_loop(uint64_t spin);
asm(".text\n"
    ".globl user_tsc_loop\n"
    ".type user_tsc_loop, @function\n"
    "user_tsc_loop:\n"
    "1:	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	movq %rax, (%rdi)\n"
    "	cmpq $0, 8(%rdi)\n"
    "	je 1b\n"
    "	ret\n"
    ".size user_tsc_loop, . - user_tsc_loop\n");

static struct pmu_cfg cfg;
static struct spin spin;
static uint64_t period, want_pmis;
static uint64_t latency[MAX_PMIS];
static volatile uint64_t nr_pmis;

static void pmi(struct rt_frame *f)
{
	uint64_t now = rdtsc();

	if (nr_pmis < MAX_PMIS)
		latency[nr_pmis] = now - spin.last_tsc;
	if (++nr_pmis >= want_pmis)
		spin.stop = 1;
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_CTRL_FIXED(1));
	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, -period & width_mask(cfg.fixed_width));
}

static void clock_latency(uint64_t tsc_khz)
{
	uint64_t period_us = 2000;

	want_pmis = 50;
	mbi_arg_u64("pmis", &want_pmis);
	mbi_arg_u64("period_us", &period_us);
	GUEST_ASSERT(want_pmis > 0 && want_pmis <= MAX_PMIS);
	period = tsc_khz * period_us / 1000;
	nr_pmis = 0;
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, -period & width_mask(cfg.fixed_width));
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(1) | FIXED_CTRL_PMI(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));
	rt_run_user(user_tsc_loop, (uint64_t)&spin);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	for (uint64_t i = 0; i < want_pmis; i++)
		printf("bench: pmi_latency i=%llu ticks=%llu\n", (unsigned long long)i,
		       (unsigned long long)latency[i]);
}

int main(void)
{
	uint64_t tsc_khz = 0;

	cfg = pmu_cfg_read();
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 1));
	GUEST_ASSERT(mbi_arg_u64("tsc_khz", &tsc_khz) && tsc_khz > 0);
	rt_set_irq_handler(PMI_VECTOR, pmi);
	apic_write_lvtpc(PMI_VECTOR);
	clock_latency(tsc_khz);
	return 0;
}
