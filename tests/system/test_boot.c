/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guests booted under pmuvm: boot with 1 and 2 vCPUs, serial output,
 * exit-code pass-through, what fw_cfg and multiboot tell the guest, a #GP on
 * a PMU MSR of a CPU without a PMU, and the JSON report.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"
#include "exitcode.h"

static void expect_line(const struct pmuvm_result *r, const char *line)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s\n", line);
	ck_assert_msg(strstr(r->out, buf), "missing line '%s' in:\n%s", line, r->out);
}

START_TEST(test_boot_one_cpu)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", guest_path("boot"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "hello from pmuvm guest");
	expect_line(&r, "fwcfg: signature=QEMU cpus=1 ram=268435456");
	ck_assert_str_eq(r.err, "");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_boot_two_cpus)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--cpus", "2", "--timeout", "60", guest_path("smp"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "cpu 1 online apic_id=1");
	expect_line(&r, "smp: 2 cpus online");
	pmuvm_result_free(&r);
}
END_TEST

/*
 * The smallest RAM pmuvm takes (--mem 2M) holds a runtime guest with its
 * heap, and the stacks of a second CPU from that heap (docs/guest-sdk.md,
 * "Memory").
 */
START_TEST(test_boot_min_mem)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--mem", "2M", "--timeout", "60", guest_path("boot"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "fwcfg: signature=QEMU cpus=1 ram=2097152");
	expect_line(&r, "mbi: mem_lower=639 mem_upper=1024");
	pmuvm_result_free(&r);
	pmuvm_run(&r, "--mem", "2M", "--cpus", "2", "--timeout", "60", guest_path("smp"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "smp: 2 cpus online");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_fw_cfg_and_multiboot)
{
	static const uint8_t mod[] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02 };
	char modpath[512], line[256];
	struct pmuvm_result r;

	REQUIRE_KVM();
	snprintf(modpath, sizeof(modpath), "%s", tmp_path("mod.bin"));
	ck_assert(write_file(modpath, mod, sizeof(mod)));
	pmuvm_run(&r, "--mem", "64M", "--cpus", "2", "--append", "alpha beta=1",
		  "--module", modpath, "--timeout", "60", guest_path("boot"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "fwcfg: signature=QEMU cpus=2 ram=67108864");
	/* mem_upper: KiB from 1 MiB to the end of RAM; map: low 639 KiB + the rest. */
	expect_line(&r, "mbi: mem_lower=639 mem_upper=64512");
	snprintf(line, sizeof(line), "mbi: mmap ram_total=%u", 0x9fc00u + (64u << 20) - 0x100000u);
	expect_line(&r, line);
	snprintf(line, sizeof(line), "mbi: cmdline=%s alpha beta=1", guest_path("boot"));
	expect_line(&r, line);
	expect_line(&r, "mbi: modules=1");
	expect_line(&r, "mbi: module 0 size=6 first_bytes=deadbeef");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_serial_to_file)
{
	char path[512];
	struct pmuvm_result r;
	char *text;

	REQUIRE_KVM();
	snprintf(path, sizeof(path), "%s", tmp_path("serial.txt"));
	pmuvm_run(&r, "--serial", path, "--timeout", "60", guest_path("boot"));
	expect_guest_pass(&r, __func__);
	ck_assert_str_eq(r.out, "");		/* nothing on stdout */
	text = read_file_str(path);
	ck_assert_ptr_nonnull(text);
	ck_assert(!strncmp(text, "hello from pmuvm guest\n", 23));
	ck_assert(strstr(text, "PASS\n"));
	free(text);
	pmuvm_result_free(&r);
}
END_TEST

static const struct { const char *append; int status; } exit_cases[] = {
	{ NULL, (42 << 1) | 1 },		/* the guest's default */
	{ "code=0", 1 },
	{ "code=7", 15 },
	{ "code=100", 201 },
	{ "code=127", 255 },
	{ "code=128", 1 },		/* (128 << 1) | 1 wraps to 1, as QEMU's exit() */
};

START_TEST(test_exit_code_passthrough)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	if (exit_cases[_i].append)
		pmuvm_run(&r, "--append", exit_cases[_i].append, guest_path("exitcode"));
	else
		pmuvm_run(&r, guest_path("exitcode"));
	ck_assert_msg(r.status == exit_cases[_i].status, "%s: status %d want %d: %s",
		      exit_cases[_i].append, r.status, exit_cases[_i].status, r.err);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_pmu_msr_gp_without_pmu)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu-version", "0", "--timeout", "60", guest_path("msr_gp"));
	expect_guest_pass(&r, __func__);
	expect_line(&r, "msr_gp: rdmsr 0x38f -> vector 13");
	expect_line(&r, "msr_gp: wrmsr 0x38f -> vector 13");
	expect_line(&r, "msr_gp: rdmsr 0xc1 -> vector 13");
	expect_line(&r, "msr_gp: wrmsr 0xc1 -> vector 13");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_report_json)
{
	char path[512];
	struct pmuvm_result r;
	json_object *root, *vcpus, *v0, *v1;

	REQUIRE_KVM();
	snprintf(path, sizeof(path), "%s", tmp_path("report.json"));
	pmuvm_run(&r, "--cpus", "2", "--report", path, "--timeout", "60", guest_path("smp"));
	expect_guest_pass(&r, __func__);
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(json_object_get_string(json_get(root, "exit.reason")), "debug-exit");
	ck_assert_int_eq(json_object_get_int(json_get(root, "exit.status")), 1);
	ck_assert_int_eq(json_object_get_int(json_get(root, "exit.guest_value")), 0);
	ck_assert(json_object_get_double(json_get(root, "wall_time_s")) > 0);
	ck_assert_int_eq(json_object_get_int(json_get(root, "config.cpus")), 2);
	vcpus = json_get(root, "vcpus");
	ck_assert_int_eq(json_object_array_length(vcpus), 2);
	v0 = json_object_array_get_idx(vcpus, 0);
	v1 = json_object_array_get_idx(vcpus, 1);
	ck_assert_int_eq(json_object_get_int(json_get(v0, "id")), 0);
	ck_assert_int_eq(json_object_get_int(json_get(v1, "id")), 1);
	/* The BSP printed everything: many port writes; the AP printed one line. */
	ck_assert(json_object_get_int64(json_get(v0, "exits.io")) > 50);
	ck_assert(json_object_get_int64(json_get(v1, "exits.io")) > 10);
	ck_assert(json_object_get_int64(json_get(v0, "exits.total")) >=
		  json_object_get_int64(json_get(v0, "exits.io")));
	/*
	 * The layout docs/report.md describes: registers in hex, a guest that
	 * never touched its PMU leaves GLOBAL_CTRL at its RESET value (every GP
	 * enable of 8 counters) and counters at 0; pmuvm's detail under "debug".
	 */
	ck_assert_int_eq(json_object_get_int(json_get(root, "schema_version")), 1);
	ck_assert_str_eq(json_object_get_string(json_get(v1, "pmu.global_ctrl")), "0xff");
	ck_assert_str_eq(json_object_get_string(json_get(v1, "pmu.gp.7.evtsel")), "0x0");
	ck_assert_uint_eq(json_u64(v1, "pmu.gp.7.value"), 0);
	ck_assert_uint_ne(json_hex(root, "config.pmu.available_events"), 0);
	json_get(root, "debug.host.kernel_mode_emulated");
	json_get(v1, "debug.exact.steps");
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * pmuvm's start-up probe of guest kernel-mode speed (the report's
 * debug.host) against the guest's own TSC: where pmuvm says KVM emulates
 * CPL0, the guest's CPL0 loop takes at least 20 times its CPL3 loop (the
 * probe's threshold); where it says CPL0 runs natively, less. Either kind
 * of host passes; a probe that misjudges its host fails.
 */
START_TEST(test_host_kernel_speed_probe)
{
	struct pmuvm_result r;
	uint64_t cpl0, cpl3;
	bool emulated;

	REQUIRE_KVM();
	pmuvm_run(&r, "-v", "--timeout", "120", guest_path("cpl_speed"));
	expect_guest_pass(&r, "cpl_speed");
	emulated = json_object_get_boolean(json_get(r.report, "debug.host.kernel_mode_emulated"));
	cpl0 = expect_guest_value(&r, "cpl0_ticks", 0);
	cpl3 = expect_guest_value(&r, "cpl3_ticks", 0);
	ck_assert_msg(cpl3 > 0, "cpl3 loop took no time");
	ck_assert_msg(emulated == (cpl0 >= 20 * cpl3),
		      "probe says kernel mode %s (slowdown %llu), the guest measured cpl0 %llu and cpl3 %llu ticks\n%s",
		      emulated ? "emulated" : "native",
		      (unsigned long long)json_u64(r.report, "debug.host.kernel_mode_slowdown"),
		      (unsigned long long)cpl0, (unsigned long long)cpl3, r.err);
	ck_assert_msg(strstr(r.err, emulated ? "guest kernel mode (CPL0) runs in KVM's instruction emulator"
					     : "guest kernel mode (CPL0) runs natively"),
		      "no probe line in -v:\n%s", r.err);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_unhandled_io_logged_once)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	/* The runtime probes the legacy PIC/PIT-less machine; -v names each port once. */
	pmuvm_run(&r, "-v", "--timeout", "60", guest_path("boot"));
	expect_guest_pass(&r, __func__);
	if (strstr(r.err, "unhandled port")) {
		char *p = strstr(r.err, "unhandled port"), *nl = strchr(p, '\n');
		char first[128];

		ck_assert_ptr_nonnull(nl);
		snprintf(first, sizeof(first), "%.*s", (int)(nl - p), p);
		ck_assert_msg(!strstr(nl, first), "logged twice: %s", first);
	}
	pmuvm_result_free(&r);
}
END_TEST

static Suite *boot_suite(void)
{
	Suite *s = suite_create("boot");
	TCase *tc = tcase_create("guests");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_boot_one_cpu);
	tcase_add_test(tc, test_boot_two_cpus);
	tcase_add_test(tc, test_boot_min_mem);
	tcase_add_test(tc, test_fw_cfg_and_multiboot);
	tcase_add_test(tc, test_serial_to_file);
	tcase_add_loop_test(tc, test_exit_code_passthrough, 0,
			    sizeof(exit_cases) / sizeof(exit_cases[0]));
	tcase_add_test(tc, test_pmu_msr_gp_without_pmu);
	tcase_add_test(tc, test_report_json);
	tcase_add_test(tc, test_unhandled_io_logged_once);
	tcase_add_test(tc, test_host_kernel_speed_probe);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(boot_suite)
