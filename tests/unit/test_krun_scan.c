/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's return sites found by following its SYSCALL entry
 * (vmm/exact/krun_scan.c), on code shaped like Linux's entry_SYSCALL_64
 * (arch/x86/entry/entry_64.S): a call stepped over, the SYSRETQ at its
 * end, and a conditional jump to the stack frame's return, which reaches
 * the IRETQ through a JMP past UD2 and INT3 padding. Read, never run.
 */
#include <stdint.h>
#include <string.h>

#include "exact/krun_scan.h"
#include "suite.h"

extern const uint8_t scan_code[], scan_code_end[];
extern const uint8_t scan_entry[], scan_sysret[], scan_iret[], scan_loop_entry[];
extern const uint8_t scan_indirect_entry[], scan_far_entry[];

__asm__(".pushsection .rodata\n"
    "scan_code:\n"
    "scan_entry:\n"
    "	swapgs\n"
    "	movq %rsp, %gs:0x6014\n"
    "	pushq $0x2b\n"
    "	call scan_callee\n"
    "	testb %al, %al\n"
    "	jz scan_restore\n"
    "	popq %r11\n"
    "	swapgs\n"
    "scan_sysret:\n"
    "	sysretq\n"
    "	int3\n"
    "scan_callee:\n"
    "	xorl %eax, %eax\n"
    "	ret\n"
    "	.fill 300, 1, 0xcc\n"
    "scan_restore:\n"
    "	popq %r15\n"
    "	jmp scan_native_iret\n"
    "	ud2\n"
    "	.fill 64, 1, 0xcc\n"
    "scan_native_iret:\n"
    "	testb $3, 8(%rsp)\n"
    "	jnz scan_ldt\n"
    "scan_iret:\n"
    "	iretq\n"
    "scan_ldt:\n"
    "	pushq %rdi\n"
    "	jmp scan_iret\n"
    /* A loop, then an indirect jump: the path ends there. */
    "scan_loop_entry:\n"
    "	movl $10, %ecx\n"
    "1:	decl %ecx\n"
    "	jnz 1b\n"
    "	jmp *%rax\n"
    "	sysretq\n"
    "	iretq\n"
    "scan_indirect_entry:\n"
    "	leaq scan_iret(%rip), %rax\n"
    "	jmp *%rax\n"
    /* A far jump or a #UD ends a path too. */
    "scan_far_entry:\n"
    "	ud2\n"
    "	sysretq\n"
    "scan_code_end:\n"
    ".popsection\n");

/* Reads inside scan_code only: the rest is "unmapped". */
static size_t scan_read(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	uint64_t lo = (uintptr_t)scan_code, hi = (uintptr_t)scan_code_end;

	(void)ctx;
	if (addr < lo || addr >= hi)
		return 0;
	if (len > hi - addr)
		len = hi - addr;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return len;
}

static struct krun_scan scan(const uint8_t *entry)
{
	struct krun_scan s;

	krun_scan_returns(scan_read, NULL, (uintptr_t)entry, &s);
	return s;
}

START_TEST(test_linux_shaped_entry)
{
	struct krun_scan s = scan(scan_entry);

	ck_assert_uint_eq(s.sysret, (uintptr_t)scan_sysret);
	ck_assert_uint_eq(s.iret, (uintptr_t)scan_iret);
}
END_TEST

START_TEST(test_indirect_jump_ends_path)
{
	struct krun_scan s = scan(scan_indirect_entry);

	ck_assert_uint_eq(s.sysret, 0);
	ck_assert_uint_eq(s.iret, 0);
	s = scan(scan_loop_entry);
	ck_assert_uint_eq(s.sysret, 0);
	ck_assert_uint_eq(s.iret, 0);
	/* The loop's body once more from its branch target, then done. */
	ck_assert_uint_le(s.insns, 8);
}
END_TEST

START_TEST(test_ud2_ends_path)
{
	struct krun_scan s = scan(scan_far_entry);

	ck_assert_uint_eq(s.sysret, 0);
	ck_assert_uint_eq(s.insns, 1);
}
END_TEST

START_TEST(test_unreadable_entry)
{
	struct krun_scan s = scan(scan_code_end);

	ck_assert_uint_eq(s.sysret, 0);
	ck_assert_uint_eq(s.iret, 0);
	ck_assert_uint_eq(s.insns, 0);
}
END_TEST

static Suite *krun_scan_suite(void)
{
	Suite *s = suite_create("krun_scan");
	TCase *tc = tcase_create("scan");

	tcase_add_test(tc, test_linux_shaped_entry);
	tcase_add_test(tc, test_indirect_jump_ends_path);
	tcase_add_test(tc, test_ud2_ends_path);
	tcase_add_test(tc, test_unreadable_entry);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(krun_scan_suite)
