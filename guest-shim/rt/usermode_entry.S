/* SPDX-License-Identifier: MIT */
/*
 * The assembly half of rt/usermode.h.
 *
 * uint64_t rt_enter_user(fn, arg, user_rsp, address of TSS.RSP0, &rt_user_ksp[cpu])
 *		RDI      RSI   RDX        RCX                 R8
 *
 * Kernel stack while fn runs at CPL3 (K = 16-byte aligned, = TSS.RSP0):
 *
 *	return address, RFLAGS, RBP, RBX, R12-R15	(caller's state)
 *	K+8: caller RSP after those pushes, K: same (padding)
 *
 * An interrupt at CPL3 switches to RSP0 = K and pushes its frame below K.
 * The user side returns with UD2 (see rt/usermode.h for why not INT n or
 * SYSCALL); the #UD hook in usermode.c sends it to rt_user_resume on K.
 */
#include <rt/layout.h>



	.text
	.globl	rt_enter_user
rt_enter_user:
	pushfq
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, %rax
	andq	$-16, %rsp
	pushq	%rax
	pushq	%rax
	movq	%rsp, (%rcx)		/* TSS.RSP0 = K */
	movq	%rsp, (%r8)		/* rt_user_ksp[cpu] = K, for SYSCALL */
	/* IRET frame to CPL3 (SDM 6.14.3 / IRET) */
	pushq	$(SEG_UDATA | 3)
	pushq	%rdx			/* user RSP */
	pushq	$0x202			/* IF | reserved bit 1 */
	pushq	$(SEG_UCODE64 | 3)
	leaq	rt_user_entry(%rip), %rax
	pushq	%rax
	movq	%rdi, %rax		/* user side wants RDI = arg, RSI = fn */
	movq	%rsi, %rdi
	movq	%rax, %rsi
	xorl	%eax, %eax
	xorl	%ebx, %ebx
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xorl	%ebp, %ebp
	xorl	%r8d, %r8d
	xorl	%r9d, %r9d
	xorl	%r10d, %r10d
	xorl	%r11d, %r11d
	xorl	%r12d, %r12d
	xorl	%r13d, %r13d
	xorl	%r14d, %r14d
	xorl	%r15d, %r15d
	iretq

	/* CPL3 from here to the UD2 */
	.globl	rt_user_entry
rt_user_entry:
	call	*%rsi
	.globl	rt_user_trap
rt_user_trap:
	ud2				/* result in RAX; usermode.c's #UD hook */

	/*
	 * The #UD hook rewrites the frame of that UD2 to IRET here at CPL0
	 * with RSP = K (rt_user_ksp[cpu]) and RAX untouched.
	 */
	.globl	rt_user_resume
rt_user_resume:
	movq	(%rsp), %rsp		/* caller RSP after the pushes */
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	popfq
	ret

	/*
	 * uint64_t rt_syscall(nr, a0, a1, a2, a3) (rt/syscall.h): the #UD
	 * hook runs the handler, sets RAX and resumes at the RET.
	 */
	.globl	rt_syscall, rt_syscall_trap
rt_syscall:
rt_syscall_trap:
	ud2
	ret
