/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_reads: RDPMC and RDTSC in counted code at CPL0, a loop of both
 * between the WRMSRs of IA32_PERF_GLOBAL_CTRL. The emulation engine
 * answers them where its stretches stop at them, rather than having KVM
 * step them (docs/counting.md, "The emulation engine"); stepped, KVM runs
 * RDTSC and pmuvm corrects RDPMC. Either way each RDPMC of fixed counter 0
 * reads the instructions retired before it (SDM vol. 2B, RDPMC), so two in
 * a row differ by the loop's length exactly, and no RDTSC reads less than
 * the one before.
 *
 * Args: rounds= (default 1000).
 * Output: "exact_reads: insns=I want=W misses=M tsc_back=B", then PASS.
 */
#include "pmu_common.h"

/* Counted: MOV; RDPMC, its 3 and 10 more before the loop; 17 a round; then 4. */
#define ROUND_INSNS	17
#define SETUP_INSNS	(1 + ROUND_INSNS)
#define END_INSNS	4

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t rounds = 1000, insns, want, misses, back, tsc_first, tsc_last;

	mbi_arg_u64("rounds", &rounds);
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0));
	GUEST_ASSERT(rounds > 0);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	asm volatile("movl $0x38f, %%ecx\n\t"		/* IA32_PERF_GLOBAL_CTRL */
		     "xorl %%eax, %%eax\n\t"
		     "movl $1, %%edx\n\t"		/* FIXED0 */
		     "wrmsr\n\t"			/* not counted */
		     "movl $0x40000000, %%ecx\n\t"	/* RDPMC: fixed counter 0 */
		     /* As a round's first 3 and 14 more, so the first delta is a round's too. */
		     "rdpmc\n\t"
		     "shlq $32, %%rdx\n\t"
		     "orq %%rax, %%rdx\n\t"
		     "movq %%rdx, %%r9\n\t"
		     "xorl %%ebx, %%ebx\n\t"
		     "xorl %%r12d, %%r12d\n\t"
		     "xorl %%r14d, %%r14d\n\t"
		     "rdtsc\n\t"
		     "shlq $32, %%rdx\n\t"
		     "orq %%rax, %%rdx\n\t"
		     "movq %%rdx, %%r13\n\t"
		     "movq %%rdx, %%r15\n\t"
		     "movq %[rounds], %%r8\n\t"
		     "nop\n\t"
		     "nop\n\t"
		     "nop\n\t"
		     "nop\n"
		     "1:	rdpmc\n\t"
		     "shlq $32, %%rdx\n\t"
		     "orq %%rax, %%rdx\n\t"
		     "movq %%rdx, %%rax\n\t"
		     "subq %%r9, %%rax\n\t"		/* instructions since the last RDPMC */
		     "movq %%rdx, %%r9\n\t"
		     "cmpq $17, %%rax\n\t"		/* ROUND_INSNS */
		     "setne %%bl\n\t"
		     "addq %%rbx, %%r12\n\t"
		     "rdtsc\n\t"
		     "shlq $32, %%rdx\n\t"
		     "orq %%rax, %%rdx\n\t"
		     "cmpq %%r13, %%rdx\n\t"		/* CF: less than the last */
		     "adcq $0, %%r14\n\t"
		     "movq %%rdx, %%r13\n\t"
		     "decq %%r8\n\t"
		     "jnz 1b\n\t"
		     "xorl %%eax, %%eax\n\t"
		     "xorl %%edx, %%edx\n\t"
		     "movl $0x38f, %%ecx\n\t"
		     "wrmsr\n\t"
		     "movq %%r12, %[misses]\n\t"
		     "movq %%r14, %[back]\n\t"
		     "movq %%r15, %[first]\n\t"
		     "movq %%r13, %[last]\n\t"
		     : [misses] "=m"(misses), [back] "=m"(back), [first] "=m"(tsc_first),
		       [last] "=m"(tsc_last)
		     : [rounds] "r"(rounds)
		     : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r12", "r13", "r14", "r15", "cc",
		       "memory");
	insns = rdmsr(MSR_IA32_FIXED_CTR0);
	want = SETUP_INSNS + rounds * ROUND_INSNS + END_INSNS;
	printf("exact_reads: insns=%llu want=%llu misses=%llu tsc_back=%llu\n",
	       (unsigned long long)insns, (unsigned long long)want, (unsigned long long)misses,
	       (unsigned long long)back);
	GUEST_ASSERT_EQ(insns, want);
	GUEST_ASSERT_EQ(misses, 0);
	GUEST_ASSERT_EQ(back, 0);
	GUEST_ASSERT(tsc_last > tsc_first);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	return 0;
}
