/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_rep: long REP string instructions counted at CPL0 with interrupts
 * enabled, so that the emulation engine's 200 us slices end while one
 * runs (docs/counting.md, "The emulation engine"). Each REP STOSB of
 * `size` bytes (default 4 MiB) and REP MOVSB of the same retires once: the
 * count between the WRMSRs is exact, 2 per round plus the loop's DEC and
 * JNZ and the setup. No interrupt source is programmed, so none arrives.
 *
 * Args: size= bytes per string instruction (at most 8 MiB), rounds=
 * (default 4).
 * Output: "exact_rep: insns=I want=W", then PASS.
 */
#include "pmu_common.h"

#define BUF_MAX		(8ull << 20)

static uint8_t buf[2 * BUF_MAX] __attribute__((aligned(4096)));

/*
 * Counted from the enabling WRMSR (not counted) to the disabling one
 * (counted): 3 MOVs, rounds x (4 MOVs and LEAs, two reads of CR0, a MOV,
 * REP STOSB, 2 MOVs, REP MOVSB from the buffer's first `size` bytes to the
 * next, DEC, JNZ), then XOR, XOR, MOV and the WRMSR. The CR0 reads are
 * handed to KVM one right after the other, so the engine steps the next
 * few instructions (its backoff), the REP STOSB among them.
 */
#define SETUP_INSNS	3
#define ROUND_INSNS	13
#define END_INSNS	4

static void run(uint64_t size, uint64_t rounds)
{
	asm volatile("movl $0x38f, %%ecx\n\t"		/* IA32_PERF_GLOBAL_CTRL */
		     "xorl %%eax, %%eax\n\t"
		     "movl $1, %%edx\n\t"		/* FIXED0 */
		     "wrmsr\n\t"			/* not counted */
		     "movq %[rounds], %%r8\n\t"
		     "movq %[size], %%r9\n\t"
		     "movq %[dst], %%r10\n"
		     "1:	movq %%r10, %%rdi\n\t"
		     "movq %%r9, %%rcx\n\t"
		     "movq %%r10, %%rsi\n\t"
		     "leaq 0(%%r10,%%r9), %%r11\n\t"
		     "movq %%cr0, %%rax\n\t"
		     "movq %%cr0, %%rax\n\t"
		     "movl $0x5a, %%eax\n\t"
		     "rep stosb\n\t"
		     "movq %%r11, %%rdi\n\t"
		     "movq %%r9, %%rcx\n\t"
		     "rep movsb\n\t"
		     "decq %%r8\n\t"
		     "jnz 1b\n\t"
		     "xorl %%eax, %%eax\n\t"
		     "xorl %%edx, %%edx\n\t"
		     "movl $0x38f, %%ecx\n\t"
		     "wrmsr\n\t"
		     : : [rounds] "r"(rounds), [size] "r"(size), [dst] "r"(buf)
		     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "cc", "memory");
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t size = 4ull << 20, rounds = 4, insns, want;

	mbi_arg_u64("size", &size);
	mbi_arg_u64("rounds", &rounds);
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0));
	GUEST_ASSERT(size > 0 && size <= BUF_MAX && rounds > 0);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	sti();
	run(size, rounds);
	cli();
	insns = rdmsr(MSR_IA32_FIXED_CTR0);
	want = SETUP_INSNS + rounds * ROUND_INSNS + END_INSNS;
	printf("exact_rep: insns=%llu want=%llu\n", (unsigned long long)insns,
	       (unsigned long long)want);
	GUEST_ASSERT_EQ(insns, want);
	GUEST_ASSERT_EQ(buf[2 * size - 1], 0x5a);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	return 0;
}
