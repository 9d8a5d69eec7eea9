/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Linux guests' counting loop (tests/linux/init): a static program with
 * no libc, so that everything it runs in user mode is this code. With
 * LOOP_N iterations it retires 2 * LOOP_N + 4 instructions and LOOP_N + 1
 * branches in user mode: LOOP_N JNZ and the SYSCALL (a far branch, SDM
 * vol. 3B 20.2 BR_INST_RETIRED.ALL_BRANCHES) that ends it.
 */
#ifndef LOOP_N
#define LOOP_N 10000
#endif
	.text
	.globl _start
_start:
	mov	$LOOP_N, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$60, %eax		/* exit */
	xor	%edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
