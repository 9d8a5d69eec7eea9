/* SPDX-License-Identifier: MIT */
/*
 * Multiboot entry and the switch to 64-bit long mode, shared by the BSP
 * (from the loader) and the APs (from trampoline.S).
 *
 * Loader state on entry (multiboot spec 3.2): 32-bit protected mode, flat
 * CS/DS/ES/SS, paging off, interrupts off, EAX = 0x2badb002, EBX = physical
 * address of the multiboot information.  No stack, and the loader's GDT may
 * be anywhere, so we load our own before relying on any selector.
 *
 * Reaching long mode (SDM vol. 3A 9.8.5): CR4.PAE=1, CR3 = PML4,
 * EFER.LME=1, then CR0.PG=1 activates IA-32e mode; a far jump to a 64-bit
 * code segment leaves compatibility mode.
 *
 * Every instruction here is emulated by KVM on our hosts, so the path is
 * straight-line and the page tables are static (pgtable.S).
 */
#include <rt/layout.h>
#include <rt/multiboot.h>
#include <rt/x86_defs.h>

#define MB_FLAGS	(MULTIBOOT_PAGE_ALIGN | MULTIBOOT_MEMORY_INFO)

	/* Multiboot header (spec 3.1.1): 4-byte aligned, first 8 KiB. */
	.section .multiboot, "a"
	.balign	4
	.long	MULTIBOOT_HEADER_MAGIC
	.long	MB_FLAGS
	.long	-(MULTIBOOT_HEADER_MAGIC + MB_FLAGS)	/* sum is zero */

	.section .text.boot, "ax"
	.code32
	.globl	_start
_start:
	cli
	cld
	/* EDI/ESI become the first two C arguments of rt_start(). */
	movl	%eax, %edi
	movl	%ebx, %esi
	lgdt	boot_gdt_desc
	xorl	%ebp, %ebp		/* 0: BSP */
	jmp	to_long_mode

	/*
	 * APs arrive here from trampoline.S on SEG_KCODE32 with our GDT
	 * loaded, but DS/SS still hold real-mode descriptors (64 KiB limit):
	 * reload them before touching memory above 1 MiB.
	 */
	.globl	ap_start32
ap_start32:
	movl	$SEG_KDATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	$1, %ebp		/* 1: AP */

to_long_mode:
	movl	$boot_pml4, %eax
	movl	%eax, %cr3
	movl	%cr4, %eax
	orl	$CR4_PAE, %eax
	movl	%eax, %cr4
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$EFER_LME, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$(CR0_PG | CR0_WP | CR0_PE), %eax
	movl	%eax, %cr0
	ljmp	$SEG_KCODE64, $start64

	.code64
start64:
	movl	$SEG_KDATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	xorl	%eax, %eax
	movl	%eax, %fs
	movl	%eax, %gs
	testl	%ebp, %ebp
	jnz	1f

	/*
	 * BSP.  The upper halves of 64-bit registers are undefined after
	 * 32-bit code (SDM 3.4.1.1), so zero-extend the two arguments.
	 */
	movq	$(bsp_stack + RT_STACK_SIZE), %rsp
	movl	%edi, %edi
	movl	%esi, %esi
	call	rt_start		/* does not return */
	jmp	halt

	/*
	 * AP.  Its stack is picked by its initial APIC ID (CPUID.01H:EBX[31:24]),
	 * which is also its CPU index, from rt_ap_stack_top[] (rt_smp_start()
	 * takes it from the heap); an ID we have no stack for parks.
	 */
1:	movl	$1, %eax
	cpuid
	shrl	$24, %ebx
	cmpl	$RT_MAX_CPUS, %ebx
	jae	halt
	movq	rt_ap_stack_top(, %rbx, 8), %rsp
	testq	%rsp, %rsp
	jz	halt
	movl	%ebx, %edi
	xorl	%ebp, %ebp
	call	rt_ap_start		/* does not return */
halt:
	cli
	hlt
	jmp	halt

	/*
	 * GDT (SDM 3.4.5): 64-bit code has L=1 D=0, data is flat.  The
	 * 32-bit code segment is for the AP trampoline's protected-mode leg.
	 */
	.section .rodata
	.balign	16
	.globl	boot_gdt
boot_gdt:
	.quad	0				/* null */
	.quad	0x00af9a000000ffff		/* SEG_KCODE64: P DPL0 code, L */
	.quad	0x00cf92000000ffff		/* SEG_KDATA: P DPL0 data, 4 GiB */
	.quad	0x00cf9a000000ffff		/* SEG_KCODE32: P DPL0 code, D */
	.quad	0x00cff2000000ffff		/* SEG_UDATA: DPL3 data */
	.quad	0x00affa000000ffff		/* SEG_UCODE64: DPL3 code, L */
boot_gdt_end:
	.globl	boot_gdt_limit
	.set	boot_gdt_limit, boot_gdt_end - boot_gdt - 1

	/* lgdt operand: 16-bit limit, then base (32 bits used in 32-bit mode) */
	.balign	8
	.globl	boot_gdt_desc
boot_gdt_desc:
	.word	boot_gdt_limit
	.quad	boot_gdt

	/*
	 * The BSP's stack.  The APs' come from the heap when they are started,
	 * so that an image is small whatever RT_MAX_CPUS is (docs/guest-sdk.md,
	 * "Memory").
	 */
	.bss
	.balign	4096
	.globl	bsp_stack
bsp_stack:
	.skip	RT_STACK_SIZE
