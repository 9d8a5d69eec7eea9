/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_exact (make bench): the rate of exactly counted
 * guest instructions.  A CPL0 loop of `size` instructions runs with fixed
 * counter 0 (instructions, OS) enabled, so pmuvm single-steps it
 * (vmm/exact/step.c); the guest times it with RDTSC.  scripts/bench.py runs
 * this guest alternately as is and with PMUVM_BENCH_RAW_STEP=1, where
 * pmuvm steps the same instructions without decoding or counting them: the
 * ratio of the two rates is what exact counting costs over bare stepping.
 *
 * The counted run checks the count: the loop is `dec; jnz` (2 instructions
 * per iteration) plus the timing code between the WRMSRs; the enabling
 * WRMSR is not counted, the disabling one is (docs/counting.md, "Retirement
 * events: the exact source").  Under the raw hook nothing is counted and
 * raw=1 skips the check.
 *
 * With user=1 the loop runs at CPL3 (rt_run_user()), counted USR: the
 * user-mode instructions around it are the runtime's, so only a range is
 * checked there (make bench compares the engines on it: --exact step,
 * emulate, off).
 *
 * Args: sizes= up to 4 loop sizes in instructions, comma separated (default
 * 1000,10000,100000), reps= (default 2), raw=1 under the hook, user=1.
 * Output: "bench: exact size=S rep=R insns=I ticks=T" with I the counter.
 */
#include "pmu_common.h"

#define MAX_SIZES	4
/*
 * Counted beyond the loop, see run_loop(): rdtsc, shl, or, mov (start
 * time); mov (iterations); rdtsc, shl, or, mov (end time); mov, xor, xor
 * and the disabling wrmsr.
 */
#define EXTRA_INSNS	13

/* Returns the TSC ticks of the loop; counting is on from wrmsr to wrmsr. */
static uint64_t run_loop(uint64_t iters)
{
	uint64_t t0, t1;

	asm volatile("movl $0x38f, %%ecx\n\t"		/* IA32_PERF_GLOBAL_CTRL */
		     "xorl %%eax, %%eax\n\t"
		     "movl $1, %%edx\n\t"		/* FIXED0 */
		     "wrmsr\n\t"			/* not counted */
		     "rdtsc\n\t"
		     "shlq $32, %%rdx\n\t"
		     "orq %%rdx, %%rax\n\t"
		     "movq %%rax, %0\n\t"
		     "movq %2, %%rcx\n"
		     "1:	decq %%rcx\n\t"
		     "jnz 1b\n\t"
		     "rdtsc\n\t"
		     "shlq $32, %%rdx\n\t"
		     "orq %%rdx, %%rax\n\t"
		     "movq %%rax, %1\n\t"
		     "movl $0x38f, %%ecx\n\t"
		     "xorl %%eax, %%eax\n\t"
		     "xorl %%edx, %%edx\n\t"
		     "wrmsr\n\t"
		     : "=&r"(t0), "=&r"(t1) : "r"(iters) : "rax", "rcx", "rdx", "cc", "memory");
	return t1 - t0;
}

/* The loop at CPL3: RDTSC, SHL, OR, MOV; MOV; 2 x iters; RDTSC, SHL, OR, SUB; RET. */
#define USER_EXTRA_INSNS	10
uint64_t user_loop(uint64_t iters);
asm(".text\n"
    ".globl user_loop\n"
    "user_loop:\n"
    "	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	movq %rax, %r8\n"
    "	movq %rdi, %rcx\n"
    "1:	decq %rcx\n"
    "	jnz 1b\n"
    "	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	subq %r8, %rax\n"
    "	ret\n");

/* Ticks of user_loop(iters) at CPL3, fixed counter 0 counting USR around it. */
static uint64_t run_user_loop(uint64_t iters)
{
	uint64_t ticks;

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(0));
	ticks = rt_run_user(user_loop, iters);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	return ticks;
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t sizes[MAX_SIZES] = { 1000, 10000, 100000 }, reps = 2, raw = 0, user = 0;
	unsigned int nr_sizes = 3;
	const char *arg = mbi_arg("sizes");

	if (arg) {
		nr_sizes = 0;
		while (*arg && *arg != ' ' && nr_sizes < MAX_SIZES) {
			uint64_t v = 0;

			while (*arg >= '0' && *arg <= '9')
				v = v * 10 + (uint64_t)(*arg++ - '0');
			sizes[nr_sizes++] = v;
			if (*arg == ',')
				arg++;
		}
	}
	mbi_arg_u64("reps", &reps);
	mbi_arg_u64("raw", &raw);
	mbi_arg_u64("user", &user);
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0));
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, user ? FIXED_CTRL_USR(0) : FIXED_CTRL_OS(0));

	for (uint64_t r = 0; r < reps; r++) {
		for (unsigned int i = 0; i < nr_sizes; i++) {
			uint64_t iters = sizes[i] / 2, want = 2 * iters + EXTRA_INSNS;
			uint64_t ticks, insns;

			GUEST_ASSERT(iters > 0);
			wrmsr(MSR_IA32_FIXED_CTR0, 0);
			ticks = user ? run_user_loop(iters) : run_loop(iters);
			insns = rdmsr(MSR_IA32_FIXED_CTR0);
			printf("bench: exact size=%llu rep=%llu insns=%llu ticks=%llu\n",
			       (unsigned long long)sizes[i], (unsigned long long)r,
			       (unsigned long long)insns, (unsigned long long)ticks);
			if (user && insns)	/* 0: a host that cannot step CPL3 (docs/counting.md) */
				GUEST_ASSERT(insns >= 2 * iters + USER_EXTRA_INSNS &&
					     insns < 2 * iters + USER_EXTRA_INSNS + 100);
			else if (!raw && !user)
				GUEST_ASSERT_EQ(insns, want);
		}
	}
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	return 0;
}
