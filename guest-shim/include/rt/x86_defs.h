/* SPDX-License-Identifier: MIT */
/*
 * Architectural x86 constants (Intel SDM vol. 3A ch. 2-4 and 10/11) that
 * both the boot assembly and C code need, so only #defines here.
 */
#ifndef RT_X86_DEFS_H
#define RT_X86_DEFS_H

#include <rt/bits.h>

#define CR0_PE		RT_BIT(0)	/* protection enable */
#define CR0_WP		RT_BIT(16)	/* honour R/W in supervisor mode */
#define CR0_PG		RT_BIT(31)	/* paging */

#define CR4_PAE		RT_BIT(5)
#define CR4_PCE		RT_BIT(8)	/* RDPMC allowed at CPL > 0 */

#define MSR_EFER	0xc0000080
#define EFER_SCE	RT_BIT(0)
#define EFER_LME	RT_BIT(8)
#define MSR_GS_BASE	0xc0000101

/* Paging-structure entry bits (SDM 4.5, tables 4-14..4-18). */
#define PTE_P		0x001
#define PTE_W		0x002
#define PTE_U		0x004
#define PTE_PWT		0x008
#define PTE_PCD		0x010
#define PTE_PS		0x080	/* 2 MiB page in a PDE */

#define RFLAGS_TF	RT_BIT(8)
#define RFLAGS_IF	RT_BIT(9)

#endif
