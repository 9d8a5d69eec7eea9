/* SPDX-License-Identifier: MIT */
/*
 * Entry stubs for all 256 IDT vectors, generated with .rept (xv6 generates
 * the same with vectors.pl).  Each stub makes the stack look the same: the
 * CPU pushed SS, RSP, RFLAGS, CS, RIP and, for some exceptions, an error
 * code (SDM 6.13, 6.14.2); stubs for the others push a 0 in its place, then
 * push the vector.  The common path saves every GPR so the C dispatcher gets
 * a complete struct rt_frame (rt/idt.h) it may also modify.
 *
 * Vector 13's IDT entry points straight at its stub, whose first
 * instruction sees the untouched hardware frame; pmuvm relies on that when
 * it puts a breakpoint there to emulate RDPMC.
 *
 * Stack alignment: the CPU aligns RSP to 16 before pushing (SDM 6.14.2),
 * then 6 qwords (frame + error code) + vector + 15 GPRs = 22 qwords, so RSP
 * is 16-byte aligned again at the call, as the SysV ABI wants.
 */

/* Exceptions with an error code: #DF #TS #NP #SS #GP #PF #AC #CP #VC #SX. */
#define HAS_ERRCODE(v)	((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || \
			 (v) == 21 || (v) == 29 || (v) == 30)

	.section .rodata
	.balign	8
	.globl	idt_stub_table
idt_stub_table:			/* filled by the .pushsection below */

	.text
	.set	vec, 0
	.rept	256
	.balign	16
0:
	.if	!HAS_ERRCODE(vec)
	pushq	$0
	.endif
	pushq	$vec
	jmp	isr_common
	/* and its address in idt_stub_table[vec] */
	.pushsection .rodata
	.quad	0b
	.popsection
	.set	vec, vec + 1
	.endr

isr_common:
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%r11
	pushq	%r10
	pushq	%r9
	pushq	%r8
	pushq	%rbp
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rbx
	pushq	%rax
	cld				/* the ABI assumes DF = 0 */
	movq	%rsp, %rdi
	call	idt_dispatch
	popq	%rax
	popq	%rbx
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rbp
	popq	%r8
	popq	%r9
	popq	%r10
	popq	%r11
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	addq	$16, %rsp		/* vector, error code */
	iretq
