/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_fpu: x87, MMX and SSE instructions counted at CPL0, a loop of them
 * between the WRMSRs of IA32_PERF_GLOBAL_CTRL. The emulation engine runs
 * them given the vCPU's x87/SSE state, and gives it back to KVM
 * (docs/counting.md, "The emulation engine"): the count and every result
 * must be what KVM gives by stepping.
 *
 * Args: rounds= (default 1000).
 * Output: "exact_fpu: insns=I want=W z=Z xmm1=X xmm3=H:L r9=R fcw=C", then
 * PASS. The guest is built without SSE: no compiled code touches those
 * registers. Each round: x87 load, add, store and pop, FLDCW; SSE2 scalar add,
 * shuffle and 64-bit add; MMX add from a general register and back, EMMS.
 */
#include "pmu_common.h"

#define CR0_EM		(1ull << 2)
#define CR0_MP		(1ull << 1)
#define CR4_OSFXSR	(1ull << 9)
#define CR4_OSXMMEXCPT	(1ull << 10)

/* Counted: 3 setup MOVs, 14 a round, then XOR, XOR, MOV and the WRMSR. */
#define SETUP_INSNS	3
#define ROUND_INSNS	14
#define END_INSNS	4

static double x = 1.5, y = 2.25, z;
static uint16_t cw = 0x27f;	/* double precision, every exception masked */

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t rounds = 1000, insns, want, r9, xmm1, xmm3[2], zbits;
	uint16_t fcw = 0;

	mbi_arg_u64("rounds", &rounds);
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0));
	GUEST_ASSERT(rounds > 0);
	{
		uint64_t cr0;

		asm volatile("movq %%cr0, %0" : "=r"(cr0));
		cr0 = (cr0 & ~CR0_EM) | CR0_MP;
		asm volatile("movq %0, %%cr0" : : "r"(cr0));
	}
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	asm volatile("fninit\n\t"
		     "pxor %%xmm1, %%xmm1\n\t"
		     "pxor %%xmm3, %%xmm3\n\t"
		     "xorl %%r9d, %%r9d\n\t"
		     "movl $0x38f, %%ecx\n\t"		/* IA32_PERF_GLOBAL_CTRL */
		     "xorl %%eax, %%eax\n\t"
		     "movl $1, %%edx\n\t"		/* FIXED0 */
		     "wrmsr\n\t"			/* not counted */
		     "movq %[rounds], %%r8\n\t"
		     "movq $3, %%r10\n\t"
		     "movq %%r10, %%mm1\n"
		     "1:	fldl %[x]\n\t"
		     "faddl %[y]\n\t"
		     "fstpl %[z]\n\t"
		     "fldcw %[cw]\n\t"
		     "movsd %[z], %%xmm0\n\t"
		     "addsd %%xmm0, %%xmm1\n\t"
		     "pshufd $0x1b, %%xmm1, %%xmm2\n\t"
		     "paddq %%xmm2, %%xmm3\n\t"
		     "movq %%r9, %%mm0\n\t"
		     "paddq %%mm1, %%mm0\n\t"
		     "movq %%mm0, %%r9\n\t"
		     "emms\n\t"
		     "decq %%r8\n\t"
		     "jnz 1b\n\t"
		     "xorl %%eax, %%eax\n\t"
		     "xorl %%edx, %%edx\n\t"
		     "movl $0x38f, %%ecx\n\t"
		     "wrmsr\n\t"
		     "movq %%r9, %[r9]\n\t"
		     "movq %%xmm1, %[xmm1]\n\t"
		     "movdqu %%xmm3, %[xmm3]\n\t"
		     "fnstcw %[fcw]\n\t"
		     : [z] "+m"(z), [r9] "=m"(r9), [xmm1] "=m"(xmm1), [xmm3] "=m"(xmm3),
		       [fcw] "=m"(fcw)
		     : [rounds] "r"(rounds), [x] "m"(x), [y] "m"(y), [cw] "m"(cw)
		     : "rax", "rcx", "rdx", "r8", "r9", "r10", "cc", "memory");
	insns = rdmsr(MSR_IA32_FIXED_CTR0);
	want = SETUP_INSNS + rounds * ROUND_INSNS + END_INSNS;
	memcpy(&zbits, &z, sizeof(zbits));
	printf("exact_fpu: insns=%llu want=%llu z=%llx xmm1=%llx xmm3=%llx:%llx r9=%llu fcw=%x\n",
	       (unsigned long long)insns, (unsigned long long)want, (unsigned long long)zbits,
	       (unsigned long long)xmm1, (unsigned long long)xmm3[1],
	       (unsigned long long)xmm3[0], (unsigned long long)r9, fcw);
	GUEST_ASSERT_EQ(insns, want);
	GUEST_ASSERT_EQ(zbits, 0x400e000000000000ull);	/* 3.75 */
	GUEST_ASSERT_EQ(r9, 3 * rounds);
	GUEST_ASSERT_EQ(fcw, cw);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	return 0;
}
