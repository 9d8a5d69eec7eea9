/* SPDX-License-Identifier: MIT */
/*
 * Exception-table lookup and the fault-tolerant MSR/PMC accessors built on
 * it (see rt/extable.h for the %r10 convention).
 */
#include <stdint.h>
#include <rt/extable.h>
#include <rt/idt.h>
#include <rt/x86.h>

extern const struct rt_extable_entry __extable_start[], __extable_end[];

int extable_fixup(struct rt_frame *f)
{
	for (const struct rt_extable_entry *e = __extable_start;
	     e < __extable_end; e++) {
		if (e->fault_ip == f->rip) {
			f->rip = e->fixup_ip;
			f->r10 = f->vector;
			return 1;
		}
	}
	return 0;
}

int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo, hi;
	int vec;

	asm volatile(RT_ASM_SAFE("rdmsr") "movl %%r10d, %[vec]"
		     : [vec] "=r"(vec), "=a"(lo), "=d"(hi)
		     : "c"(msr) : "r10", "memory");
	*val = vec ? 0 : ((uint64_t)hi << 32) | lo;
	return vec;
}

int wrmsr_safe(uint32_t msr, uint64_t val)
{
	int vec;

	asm volatile(RT_ASM_SAFE("wrmsr") "movl %%r10d, %[vec]"
		     : [vec] "=r"(vec)
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
		     : "r10", "memory");
	return vec;
}

int rdpmc_safe(uint32_t ecx, uint64_t *val)
{
	uint32_t lo, hi;
	int vec;

	asm volatile(RT_ASM_SAFE("rdpmc") "movl %%r10d, %[vec]"
		     : [vec] "=r"(vec), "=a"(lo), "=d"(hi)
		     : "c"(ecx) : "r10", "memory");
	*val = vec ? 0 : ((uint64_t)hi << 32) | lo;
	return vec;
}
