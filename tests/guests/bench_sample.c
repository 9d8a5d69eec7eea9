/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_sample (make bench): run time of a fixed
 * CPL3 workload with no counter, and with core-cycles sampling at 1 kHz
 * and 10 kHz, on every vCPU at once (run it with --cpus 1 and --cpus 2).
 *
 * Sampling as a profiler does it: fixed counter 1 (core cycles) at USR with
 * PMI, preset to -period where period = tsc_khz * 1000 / freq (cycles run
 * at the TSC rate under pmuvm's default --cpu-mhz); the handler acks
 * GLOBAL_STATUS, unmasks LVTPC and re-arms, like pmu_sample.c.  The three
 * modes run back to back in each rep, in an order that rotates from rep to
 * rep, so they share the host's load.
 *
 * Args: tsc_khz= (required), iters= workload loop iterations (default
 * 300000000), reps= (default 3).
 * Output: "bench: sample rep=R freq=F cpu=C ticks=T pmis=P" per CPU and
 * mode (freq 0: no counter), T the workload's TSC ticks.
 */
#include "pmu_common.h"

#define MAX_CPUS	2

struct work {
	uint64_t iters;		/* in */
	uint64_t ticks;		/* out: TSC ticks from start to end */
};

/* user_work(struct work *w) at CPL3: a dependent ALU loop, 4 instructions. */
uint64_t user_work(uint64_t w);
asm(".text\n"
    ".globl user_work\n"
    ".type user_work, @function\n"
    "user_work:\n"
    "	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	movq %rax, %r8\n"
    "	movq (%rdi), %rcx\n"
    "	xorl %esi, %esi\n"
    "1:	addq %rcx, %rsi\n"
    "	xorq $0x5a, %rsi\n"
    "	decq %rcx\n"
    "	jnz 1b\n"
    "	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	subq %r8, %rax\n"
    "	movq %rax, 8(%rdi)\n"
    "	movq %rsi, %rax\n"
    "	ret\n"
    ".size user_work, . - user_work\n");

struct job {
	struct work w;
	uint64_t period;	/* 0: no counter */
	volatile int pmis;
};

static struct pmu_cfg cfg;
static struct job jobs[MAX_CPUS];

static uint64_t preset(uint64_t period)
{
	return -period & width_mask(cfg.fixed_width);
}

static void pmi(struct rt_frame *f)
{
	struct job *j = &jobs[rt_cpu_id()];

	j->pmis++;
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_CTRL_FIXED(1));
	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset(j->period));
}

static void run_job(void *arg)
{
	struct job *j = arg;

	j->pmis = 0;
	if (j->period) {
		apic_write_lvtpc(PMI_VECTOR);
		wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset(j->period));
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(1) | FIXED_CTRL_PMI(1));
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));
	}
	rt_run_user(user_work, (uint64_t)&j->w);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
}

int main(void)
{
	static const uint64_t freqs[] = { 0, 1000, 10000 };
	uint64_t tsc_khz = 0, iters = 300000000, reps = 3;
	int ncpu;

	cfg = pmu_cfg_read();
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 1));
	GUEST_ASSERT(mbi_arg_u64("tsc_khz", &tsc_khz) && tsc_khz > 0);
	mbi_arg_u64("iters", &iters);
	mbi_arg_u64("reps", &reps);
	ncpu = rt_smp_start();
	GUEST_ASSERT(ncpu >= 1 && ncpu <= MAX_CPUS);
	rt_set_irq_handler(PMI_VECTOR, pmi);

	for (uint64_t r = 0; r < reps; r++) {
		for (unsigned int k = 0; k < 3; k++) {
			uint64_t freq = freqs[(r + k) % 3];

			for (int c = 0; c < ncpu; c++) {
				jobs[c].w.iters = iters;
				jobs[c].period = freq ? tsc_khz * 1000 / freq : 0;
			}
			for (int c = 1; c < ncpu; c++)
				rt_run_on_cpu_async(c, run_job, &jobs[c]);
			run_job(&jobs[0]);
			for (int c = 1; c < ncpu; c++)
				rt_wait_cpu(c);
			for (int c = 0; c < ncpu; c++)
				printf("bench: sample rep=%llu freq=%llu cpu=%d ticks=%llu pmis=%d\n",
				       (unsigned long long)r, (unsigned long long)freq, c,
				       (unsigned long long)jobs[c].w.ticks, jobs[c].pmis);
		}
	}
	return 0;
}
