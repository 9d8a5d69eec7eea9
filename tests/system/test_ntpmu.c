/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ntpmu guest (tests/guests/ntpmu_api.c): under pmuvm the calls work on
 * the virtual PMU (HAL overflow handler from a real PMI, thread profiling
 * read with RDPMC at CPL3);
 * under plain QEMU/KVM on this host (no PMU) the configuration call answers
 * STATUS_NOT_IMPLEMENTED and the guest says so cleanly.  And
 * tests/guests/ntpmu_threads.c: profiling on the runtime's real threads.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

START_TEST(test_ntpmu_under_pmuvm)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", guest_path("ntpmu_api"));
	expect_guest_pass(&r, "ntpmu_api");
	ck_assert_msg(strstr(r.out, "ntpmu: pmu version 5, 8 gp counters, 3 fixed counters\n"),
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu: overflow handler calls=1 bits=0x4\n"), "%s", r.out);
	/* Per-thread totals read by RDPMC at CPL3 (pmuvm emulates it). */
	ck_assert_msg(strstr(r.out, "ntpmu: thread events A=1500 B=3000\n"), "%s", r.out);
	expect_guest_ok(&r, "ntpmu_api");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_ntpmu_pmuvm_without_pmu)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", "--pmu-version", "0", guest_path("ntpmu_api"));
	expect_guest_pass(&r, "ntpmu_api --pmu-version 0");
	expect_guest_ok(&r, "ntpmu_api");
	ck_assert_msg(strstr(r.out, "STATUS_NOT_IMPLEMENTED (0xc0000002)\n"), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_ntpmu_under_qemu_kvm)
{
	struct pmuvm_result q;

	REQUIRE_KVM();
	if (!have_program("qemu-system-x86_64"))
		TEST_SKIP("qemu-system-x86_64 is not installed");
	cmd_run_args(&q, "qemu-system-x86_64", "-machine", "pc", "-accel", "kvm",
		     "-bios", "qboot.rom",	/* SeaBIOS takes ~15 s here (qemu-configs/) */
		     "-cpu", "qemu64,+x2apic,pmu=on", "-m", "256", "-nographic", "-no-reboot",
		     "-kernel", guest_path("ntpmu_api"),
		     "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04");
	ck_assert_msg(q.status == 1, "QEMU status %d\n%s\n%s", q.status, q.out, q.err);
	if (!strstr(q.out, "ntpmu: pmu version 0,")) {
		pmuvm_result_free(&q);
		TEST_SKIP("QEMU/KVM on this host offers a PMU");
	}
	ck_assert_msg(strstr(q.out, "ntpmu: no architectural PMU: KeSetHardwareCounterConfiguration"
			     " -> STATUS_NOT_IMPLEMENTED (0xc0000002)\n"), "%s", q.out);
	ck_assert_msg(strstr(q.out, "ok - ntpmu_api\n"), "%s", q.out);
	pmuvm_result_free(&q);
}
END_TEST

/* Thread profiling on the runtime's scheduler (guest-shim/ntpmu-rt), 1 and 2 vCPUs. */
static void run_ntpmu_threads(const char *cpus)
{
	struct pmuvm_result r;

	pmuvm_run(&r, "--cpus", cpus, "--timeout", "60", guest_path("ntpmu_threads"));
	expect_guest_pass(&r, "ntpmu_threads");
	expect_guest_ok(&r, "ntpmu thread profiling on the runtime");
	pmuvm_result_free(&r);
}

START_TEST(test_ntpmu_threads_one_cpu)
{
	REQUIRE_KVM();
	run_ntpmu_threads("1");
}
END_TEST

START_TEST(test_ntpmu_threads_two_cpus)
{
	REQUIRE_KVM();
	run_ntpmu_threads("2");
}
END_TEST

/* A driver's HAL event buffer filled by pmuvm's PEBS assists (tests/guests/ntpmu_evbuf.c). */
START_TEST(test_ntpmu_hal_event_buffer)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", guest_path("ntpmu_evbuf"));
	expect_guest_pass(&r, "ntpmu_evbuf");
	expect_guest_ok(&r, "ntpmu HAL event buffer");
	pmuvm_result_free(&r);
}
END_TEST

static Suite *ntpmu_system_suite(void)
{
	Suite *s = suite_create("ntpmu");
	TCase *tc = tcase_create("guest");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_ntpmu_under_pmuvm);
	tcase_add_test(tc, test_ntpmu_pmuvm_without_pmu);
	tcase_add_test(tc, test_ntpmu_under_qemu_kvm);
	tcase_add_test(tc, test_ntpmu_threads_one_cpu);
	tcase_add_test(tc, test_ntpmu_threads_two_cpus);
	tcase_add_test(tc, test_ntpmu_hal_event_buffer);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_system_suite)
