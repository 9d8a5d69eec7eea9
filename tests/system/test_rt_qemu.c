/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The same rt_threads guest image under QEMU/KVM: its system-call gate
 * (UD2, rt/syscall.h) and the LAPIC-timer scheduler must not depend on
 * pmuvm or on kvm_pvm.
 */
#include <stdio.h>
#include <string.h>

#include "pmuvm_run.h"
#include "suite.h"

static void run_in_qemu(const char *smp)
{
	struct pmuvm_result q;
	char line[64];

	cmd_run_args(&q, "qemu-system-x86_64", "-machine", "pc", "-accel", "kvm",
		     "-bios", "qboot.rom",	/* SeaBIOS takes ~15 s here (qemu-configs/) */
		     "-cpu", "qemu64,+x2apic", "-smp", smp, "-m", "256", "-nographic",
		     "-no-reboot", "-kernel", guest_path("rt_threads"),
		     "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04");
	/* isa-debug-exit: QEMU exits with (code << 1) | 1, so 1 is a pass */
	ck_assert_msg(q.status == 1, "QEMU status %d\n%s\n%s", q.status, q.out, q.err);
	snprintf(line, sizeof(line), "rt_threads: %s cpus\n", smp);
	ck_assert_msg(strstr(q.out, line), "no '%s' in:\n%s", line, q.out);
	ck_assert_msg(strstr(q.out, "ok - rt user threads and syscalls\n"), "%s", q.out);
	ck_assert_msg(strstr(q.out, "ok - rt preempt cpl3 thread\n"), "%s", q.out);
	ck_assert_msg(strstr(q.out, "PASS\n"), "%s", q.out);
	pmuvm_result_free(&q);
}

START_TEST(test_rt_threads_qemu)
{
	REQUIRE_KVM();
	if (!have_program("qemu-system-x86_64"))
		TEST_SKIP("qemu-system-x86_64 is not installed");
	/* one run: QEMU's firmware alone takes ~6 s here; 2 CPUs cover more */
	run_in_qemu("2");
}
END_TEST

static Suite *rt_qemu_suite(void)
{
	Suite *s = suite_create("rt_qemu");
	TCase *tc = tcase_create("threads");

	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_rt_threads_qemu);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(rt_qemu_suite)
