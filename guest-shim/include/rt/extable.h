/* SPDX-License-Identifier: MIT */
/*
 * Exception table (Linux _ASM_EXTABLE style).  An instruction wrapped in
 * RT_ASM_SAFE() gets a {fault ip, fixup ip} pair in section .extable.  When
 * it faults, the exception dispatcher finds the pair, stores the vector in
 * the saved %r10 and resumes at the fixup, which is simply the next
 * instruction.  %r10 is zeroed first, so it reads 0 when nothing faulted.
 *
 *	asm volatile(RT_ASM_SAFE("rdmsr") "mov %%r10d, %[vec]"
 *		     : [vec] "=r"(vec), ... : ... : "r10");
 */
#ifndef RT_EXTABLE_H
#define RT_EXTABLE_H

#include <stdint.h>

struct rt_extable_entry {
	uint64_t fault_ip;
	uint64_t fixup_ip;
};

#define RT_ASM_EXTABLE(fault, fixup)				\
	".pushsection .extable, \"a\"\n\t"			\
	".balign 8\n\t"						\
	".quad " #fault ", " #fixup "\n\t"			\
	".popsection\n\t"

#define RT_ASM_SAFE(insn)					\
	"xor %%r10d, %%r10d\n\t"				\
	"1: " insn "\n\t"					\
	"2:\n\t"						\
	RT_ASM_EXTABLE(1b, 2b)

struct rt_frame;

/* Returns 1 and redirects @f if its RIP has a fixup. */
int extable_fixup(struct rt_frame *f);

#endif
