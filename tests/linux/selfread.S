/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Linux guests' self-monitoring check (tests/linux/init): a static
 * program with no libc that opens a user-mode instructions counter on
 * itself with perf_event_open(2) (counting from its return), runs LOOP_N
 * iterations and read(2)s the counter while it still runs: Linux reads a
 * running counter with RDPMC (x86_perf_event_update()), and this is the
 * read rr and PAPI-style tools make. It prints "instructions=N"; N is
 * exactly 2 * LOOP_N + 7: the six MOV/XOR/LEA around the loop, its LOOP_N
 * DEC and JNZ, and the read's SYSCALL. On failure it prints
 * "error=ERRNO" of the system call that failed and exits with 1.
 */
#ifndef LOOP_N
#define LOOP_N 10000
#endif
#define SYS_read		0
#define SYS_write		1
#define SYS_exit		60
#define SYS_perf_event_open	298

	.text
	.globl _start
_start:
	mov	$SYS_perf_event_open, %eax
	lea	attr(%rip), %rdi
	xor	%esi, %esi		/* this task */
	mov	$-1, %edx		/* any CPU */
	mov	$-1, %r10		/* no group */
	xor	%r8d, %r8d
	syscall
	/* Counted from here. */
	mov	%rax, %rbx
	mov	$LOOP_N, %ecx
1:	dec	%ecx
	jnz	1b
	mov	%rbx, %rdi
	xor	%eax, %eax		/* SYS_read */
	lea	value(%rip), %rsi
	mov	$8, %edx
	syscall
	/* Not counted from here on (the counter was read). */
	test	%rbx, %rbx
	js	fail_open
	cmp	$8, %rax
	jne	fail
	lea	prefix(%rip), %rsi
	mov	$prefix_len, %edx
	mov	value(%rip), %rax
	xor	%r12d, %r12d
	jmp	print

fail_open:
	mov	%rbx, %rax
fail:
	neg	%rax
	lea	err_prefix(%rip), %rsi
	mov	$err_prefix_len, %edx
	mov	$1, %r12d

/* Writes the prefix at RSI (RDX bytes), then RAX in decimal and a newline; exits with R12. */
print:
	mov	%rax, %r13
	mov	$SYS_write, %eax
	mov	$1, %edi
	syscall
	lea	digits_end(%rip), %rsi
	movb	$'\n', (%rsi)
	mov	%r13, %rax
	mov	$10, %ecx
2:	xor	%edx, %edx
	div	%rcx
	add	$'0', %dl
	dec	%rsi
	mov	%dl, (%rsi)
	test	%rax, %rax
	jnz	2b
	lea	digits_end+1(%rip), %rdx
	sub	%rsi, %rdx
	mov	$SYS_write, %eax
	mov	$1, %edi
	syscall
	mov	$SYS_exit, %eax
	mov	%r12d, %edi
	syscall

	.data
/* struct perf_event_attr, PERF_ATTR_SIZE_VER0 (include/uapi/linux/perf_event.h). */
attr:
	.long	0			/* type: PERF_TYPE_HARDWARE */
	.long	64			/* size */
	.quad	1			/* config: PERF_COUNT_HW_INSTRUCTIONS */
	.quad	0			/* sample_period */
	.quad	0			/* sample_type */
	.quad	0			/* read_format: the count alone */
	.quad	(1 << 5) | (1 << 6)	/* exclude_kernel, exclude_hv; enabled */
	.long	0			/* wakeup_events */
	.long	0			/* bp_type */
	.quad	0			/* config1 */
value:
	.quad	0
prefix:
	.ascii	"instructions="
	.set	prefix_len, . - prefix
err_prefix:
	.ascii	"error="
	.set	err_prefix_len, . - err_prefix
digits:
	.space	24
digits_end:
	.byte	0
	.section .note.GNU-stack, "", @progbits
