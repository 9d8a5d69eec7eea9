/* SPDX-License-Identifier: MIT */
/*
 * void sched_switch(uint64_t *prev_rsp, uint64_t next_rsp)
 *
 * Saves the callee-saved registers and RFLAGS (so IF follows the thread)
 * on the current stack, stores RSP in *prev_rsp, loads next_rsp and pops
 * the same set.  A new thread's stack (sched.c) is laid out as if it had
 * called sched_switch from sched_thread_start with RBX = fn, R12 = arg.
 */
	.text
	.globl	sched_switch
sched_switch:
	pushfq
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	popfq
	ret

	/* First code of every thread: fn(arg) with interrupts on, then exit. */
	.globl	sched_thread_start
sched_thread_start:
	andq	$-16, %rsp
	movq	%r12, %rdi
	sti
	call	*%rbx
	call	rt_thread_exit
	ud2
