/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ntpmu ETW/Perflib guest (tests/guests/ntpmu_etw.c): under pmuvm a
 * PMC profile and a counter list on the NT Kernel Logger, read back from
 * its buffer, and the Perflib counterset per processor; without a PMU
 * (pmuvm --pmu-version 0, plain QEMU/KVM on this host) the statuses the
 * calls give there.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

START_TEST(test_ntpmu_etw_under_pmuvm)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--cpus", "2", "--timeout", "60", guest_path("ntpmu_etw"));
	expect_guest_pass(&r, "ntpmu_etw");
	expect_guest_ok(&r, "ntpmu_etw");
	ck_assert_msg(strstr(r.out, "ntpmu_etw: pmu version 5, 8 gp counters, 2 cpus\n"), "%s",
		      r.out);
	ck_assert_msg(strstr(r.out, " 25=UnhaltedCoreCycles "), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw: profile source 25: "), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw:   top 1: ip "), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw: cpu 1: "), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw: event list CSwitch, PmcInterrupt, Process/Start set\n"),
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, " PMC samples with 2 counter values each\n"), "%s", r.out);
	/* KVM's pvclock gives the TSC frequency (ntpmu-rt/pvclock.c) */
	ck_assert_msg(strstr(r.out, "ntpmu_etw: perflib clock "), "%s", r.out);
	ck_assert_msg(!strstr(r.out, "ntpmu_etw: perflib clock 0 Hz"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw: perflib processor 0: event0="), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw: perflib processor 1: event0="), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

static void expect_no_pmu_lines(const char *out)
{
	ck_assert_msg(strstr(out, "ntpmu_etw: sources: 0=Timer\n"), "%s", out);
	ck_assert_msg(strstr(out, "ntpmu_etw: no architectural PMU: TraceMaxPmcCounterQuery -> 0\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, "ntpmu_etw: no architectural PMU: "
			     "EventTraceProfileCounterListInformation -> 0xc000000d\n"), "%s", out);
	ck_assert_msg(strstr(out, "ntpmu_etw: no architectural PMU: "
			     "TraceProfileSourceConfigInfo -> 87\n"), "%s", out);
	ck_assert_msg(strstr(out, "ntpmu_etw: no architectural PMU: 0 countersets, "
			     "instances -> 4200\n"), "%s", out);
}

/*
 * The same calls on an AMD guest (--pmu amd): sources, profiles, counter
 * lists and Perflib program AMD's core counters; no reference cycles there.
 */
START_TEST(test_ntpmu_etw_amd)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu", "amd", "--cpus", "2", "--timeout", "60", guest_path("ntpmu_etw"));
	expect_guest_pass(&r, "ntpmu_etw --pmu amd");
	expect_guest_ok(&r, "ntpmu_etw");
	ck_assert_msg(strstr(r.out, "ntpmu_etw: pmu version 2, 6 gp counters, 2 cpus\n"), "%s",
		      r.out);
	ck_assert_msg(strstr(r.out, " 25=UnhaltedCoreCycles "), "%s", r.out);
	ck_assert_msg(!strstr(r.out, "=UnhaltedReferenceCycles"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw: profile source 25: "), "%s", r.out);
	ck_assert_msg(strstr(r.out, " PMC samples with 2 counter values each\n"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "ntpmu_etw: perflib processor 1: event0="), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_ntpmu_etw_pmuvm_without_pmu)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", "--pmu-version", "0", guest_path("ntpmu_etw"));
	expect_guest_pass(&r, "ntpmu_etw without a PMU");
	expect_guest_ok(&r, "ntpmu_etw");
	expect_no_pmu_lines(r.out);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_ntpmu_etw_under_qemu_kvm)
{
	struct pmuvm_result q;

	REQUIRE_KVM();
	if (!have_program("qemu-system-x86_64"))
		TEST_SKIP("qemu-system-x86_64 is not installed");
	cmd_run_args(&q, "qemu-system-x86_64", "-machine", "pc", "-accel", "kvm",
		     "-cpu", "qemu64,+x2apic,pmu=on", "-m", "256", "-nographic", "-no-reboot",
		     /* SeaBIOS alone ran past 120 s in the lab now and then */
		     "-bios", "qboot.rom",
		     "-kernel", guest_path("ntpmu_etw"),
		     "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04");
	ck_assert_msg(q.status == GUEST_PASS, "QEMU status %d\n%s\n%s", q.status, q.out, q.err);
	if (!strstr(q.out, "ntpmu_etw: pmu version 0,")) {
		pmuvm_result_free(&q);
		TEST_SKIP("QEMU/KVM on this host offers a PMU");
	}
	expect_no_pmu_lines(q.out);
	/* QEMU has no ucall port: its verdict is the console's. */
	ck_assert_msg(strstr(q.out, "ok - ntpmu_etw\n"), "%s", q.out);
	pmuvm_result_free(&q);
}
END_TEST

static Suite *ntpmu_etw_system_suite(void)
{
	Suite *s = suite_create("ntpmu_etw");
	TCase *tc = tcase_create("guest");

	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_ntpmu_etw_under_pmuvm);
	tcase_add_test(tc, test_ntpmu_etw_amd);
	tcase_add_test(tc, test_ntpmu_etw_pmuvm_without_pmu);
	tcase_add_test(tc, test_ntpmu_etw_under_qemu_kvm);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_etw_system_suite)
