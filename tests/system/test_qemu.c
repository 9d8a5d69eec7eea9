/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The contrast pmuvm exists for: the same guest image under plain QEMU/KVM on
 * this machine finds no PMU (the demo fails: status 3), under pmuvm it sees
 * the configured one.
 */
#include <stdio.h>
#include <string.h>

#include "pmuvm_run.h"
#include "suite.h"

#define NO_PMU_LINE "demo: no PMU on this "
#define PMU_LINE "demo: pmu version 5, 8 gp counters x 48 bits, 3 fixed counters x 48 bits\n"

START_TEST(test_qemu_kvm_has_no_pmu_pmuvm_does)
{
	struct pmuvm_result q, p;
	const char *cpuid_line;

	REQUIRE_KVM();
	if (!have_program("qemu-system-x86_64"))
		TEST_SKIP("qemu-system-x86_64 is not installed");
	/*
	 * -cpu host cannot start on this kvm_pvm host (QEMU fails to set
	 * IA32_ARCH_CAPABILITIES); qemu64 with pmu=on is the PMU QEMU/KVM offers.
	 */
	cmd_run_args(&q, "qemu-system-x86_64", "-machine", "pc", "-accel", "kvm",
		     "-cpu", "qemu64,+x2apic,pmu=on", "-m", "256", "-nographic", "-no-reboot",
		     "-bios", "qboot.rom",	/* SeaBIOS takes ~15 s here (qemu-configs/) */
		     "-kernel", guest_path("demo"),
		     "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04");
	cpuid_line = strstr(q.out, "demo: pmu version");
	if (q.status == 1 && cpuid_line) {
		/* A host whose KVM has a PMU has nothing to contrast. */
		test_skip("QEMU/KVM on this host offers a PMU: %.80s", cpuid_line);
		pmuvm_result_free(&q);
		return;
	}
	cpuid_line = strstr(q.out, NO_PMU_LINE);
	ck_assert_msg(q.status == 3 && cpuid_line, "QEMU status %d (want 3: no PMU)\n%s\n%s",
		      q.status, q.out, q.err);
	pmuvm_run(&p, "--timeout", "60", guest_path("demo"));
	ck_assert_msg(p.status == 1, "pmuvm status %d\n%s", p.status, p.err);
	ck_assert_msg(strstr(p.out, PMU_LINE), "pmuvm output:\n%s", p.out);
	printf("contrast: QEMU/KVM: %.*s; pmuvm: %s", (int)strcspn(cpuid_line, "\n"), cpuid_line,
	       strstr(p.out, PMU_LINE));
	pmuvm_result_free(&p);
	pmuvm_result_free(&q);
}
END_TEST

static Suite *qemu_suite(void)
{
	Suite *s = suite_create("qemu");
	TCase *tc = tcase_create("contrast");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_qemu_kvm_has_no_pmu_pmuvm_does);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(qemu_suite)
