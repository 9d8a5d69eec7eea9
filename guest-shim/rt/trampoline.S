/* SPDX-License-Identifier: MIT */
/*
 * AP start-up trampoline.  rt_smp_start() copies [tramp_start, tramp_end)
 * to RT_TRAMP_ADDR; a STARTUP IPI with vector RT_TRAMP_VECTOR starts the AP
 * in real mode at CS = vector << 8, IP = 0 (SDM 8.4.4.1 / 10.6.1).
 *
 * It only gets into protected mode and jumps to ap_start32 in the real
 * image, which continues into long mode on the BSP's page tables.  The
 * code is assembled at its link address but runs at RT_TRAMP_ADDR, so
 * every memory reference goes through TRAMP(), which relocates it.
 */
#include <rt/layout.h>
#include <rt/x86_defs.h>

#define TRAMP(sym)	(RT_TRAMP_ADDR + ((sym) - tramp_start))

	.section .rodata
	.code16
	.globl	tramp_start, tramp_end
tramp_start:
	cli
	cld
	xorw	%ax, %ax
	movw	%ax, %ds		/* DS = 0: offsets below are physical */
	lgdtl	TRAMP(tramp_gdt_desc)	/* 'l': load a 32-bit base */
	movl	%cr0, %eax
	orl	$CR0_PE, %eax
	movl	%eax, %cr0
	/* 66 EA: 32-bit offset far jump, flushes the real-mode CS */
	ljmpl	$SEG_KCODE32, $ap_start32

	.balign	8
tramp_gdt_desc:
	.word	boot_gdt_limit		/* the same GDT as the BSP */
	.long	boot_gdt
tramp_end:
	.code64
