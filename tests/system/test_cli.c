/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm's command line and its refusals: every bad option, bad image and
 * missing KVM facility gets one clear line on stderr and its documented exit
 * status (vmm/exitcode.h), and nothing is booted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfgen.h"
#include "pmuvm_run.h"
#include "suite.h"
#include "exitcode.h"

/* 32-bit code: print 'X' on COM1 and write 5 to isa-debug-exit. */
static const uint8_t code_print_exit[] = {
	0x66, 0xba, 0xf8, 0x03,		/* mov dx, 0x3f8 */
	0xb0, 'X',			/* mov al, 'X' */
	0xee,				/* out dx, al */
	0xb0, '\n', 0xee,		/* mov al, '\n'; out dx, al */
	0x66, 0xba, 0xf4, 0x00,		/* mov dx, 0xf4 */
	0xb8, 0x05, 0x00, 0x00, 0x00,	/* mov eax, 5 */
	0xef,				/* out dx, eax */
	0xf4,				/* hlt */
};

/* cli; lidt [0x101000] (limit 0); ud2: #UD -> #GP -> #DF -> triple fault. */
static const uint8_t code_triple_fault[] = {
	0xfa, 0x0f, 0x01, 0x1d, 0x00, 0x10, 0x10, 0x00, 0x0f, 0x0b,
};

/* cli; hlt; jmp back: never exits. */
static const uint8_t code_hang[] = { 0xfa, 0xf4, 0xeb, 0xfd };

static const char *make_image(const char *name, const struct elfgen_seg *segs, unsigned int n,
			      uint32_t entry, int with_header)
{
	static char path[512];
	size_t size;
	uint8_t *img = elfgen_build(segs, n, entry, with_header, 0x3, &size);

	ck_assert_ptr_nonnull(img);
	snprintf(path, sizeof(path), "%s", tmp_path(name));
	ck_assert(write_file(path, img, size));
	free(img);
	return path;
}

static const char *code_image(const char *name, const uint8_t *code, size_t len)
{
	struct elfgen_seg seg = { 0x100000, (uint32_t)len, 0x2000, code };

	return make_image(name, &seg, 1, 0x100000, 1);
}

/* Asserts the status and that stderr says `needle` in exactly one line. */
static void expect_error(struct pmuvm_result *r, int status, const char *needle)
{
	const char *nl;

	ck_assert_msg(r->status == status, "status %d, want %d; stderr: %s", r->status, status,
		      r->err);
	ck_assert_msg(strstr(r->err, needle), "stderr lacks '%s': %s", needle, r->err);
	ck_assert_msg(!strncmp(r->err, "pmuvm: ", 7), "stderr not prefixed: %s", r->err);
	nl = strchr(r->err, '\n');
	ck_assert_msg(nl && nl[1] == '\0', "more than one line on stderr: %s", r->err);
	ck_assert_str_eq(r->out, "");
}

struct usage_case {
	const char *args[4];
	const char *needle;
};

static const struct usage_case usage_cases[] = {
	{ { "--bogus", "x.elf" }, "unknown option '--bogus'" },
	{ { "-Q", "x.elf" }, "unknown option '-Q'" },
	{ { "--cpus" }, "--cpus: missing value" },
	{ { "--cpus", "0", "x.elf" }, "--cpus: '0' is not a whole number from 1 to 4096" },
	{ { "--cpus", "two", "x.elf" }, "--cpus: 'two' is not a whole number" },
	{ { "--cpus", "5000", "x.elf" }, "--cpus: '5000'" },
	{ { "--mem", "12Q", "x.elf" }, "--mem: '12Q' is not a size" },
	{ { "--mem", "1M", "x.elf" }, "--mem: '1M' is not a size from 2M to 64G" },
	{ { "--mem", "100G", "x.elf" }, "--mem: '100G'" },
	{ { "--timeout", "-1", "x.elf" }, "--timeout: '-1' is not a number" },
	{ { "--timeout", "soon", "x.elf" }, "--timeout: 'soon'" },
	{ { "--pmu-version", "6", "x.elf" }, "--pmu-version: '6' is not a whole number from 0 to 5" },
	{ { "--gp-counters", "9", "x.elf" }, "--gp-counters: '9' is not a whole number from 0 to 8" },
	{ { "--gp-width", "31", "x.elf" }, "--gp-width: '31'" },
	{ { "--fixed-counters", "5", "x.elf" }, "--fixed-counters: '5'" },
	{ { "--fixed-counter-mask", "0x10", "x.elf" },
	  "--fixed-counter-mask: '0x10' is not a mask from 0 to 0xf" },
	{ { "--fixed-counter-mask", "x1", "x.elf" }, "--fixed-counter-mask: 'x1' is not a mask" },
	{ { "--fixed-counter-mask=5", "--pmu-version=4", "x.elf" },
	  "--fixed-counter-mask: the fixed-counter bitmap (CPUID.0AH:ECX) needs --pmu-version 5" },
	{ { "--pmu-event-vector-len", "33", "x.elf" },
	  "--pmu-event-vector-len: '33' is not a whole number from 0 to 32" },
	{ { "--pmu-events-unavailable", "0x100000000", "x.elf" },
	  "--pmu-events-unavailable: '0x100000000' is not a mask from 0 to 0xffffffff" },
	{ { "--pmu-events-unavailable", "-1", "x.elf" }, "--pmu-events-unavailable: '-1' is not a mask" },
	{ { "--pmu=none", "--pmu-event-vector-len=7", "x.elf" },
	  "--pmu-event-vector-len: a CPU without a PMU (version 0) has no CPUID.0AH event vector" },
	{ { "--pmu=amd", "--fixed-counter-mask=1", "x.elf" },
	  "--fixed-counter-mask: CPUID leaf 0AH is Intel's; the AMD PMU has none" },
	{ { "--pmu=amd", "--gp-counters=0", "x.elf" }, "--gp-counters: the AMD PMU has 1 to 6 core counters" },
	{ { "--full-width-writes", "maybe", "x.elf" }, "--full-width-writes: 'maybe' is not 'on' or 'off'" },
	{ { "--cpu-mhz", "0", "x.elf" }, "--cpu-mhz: '0'" },
	{ { "--cycles", "exact", "x.elf" }, "--cycles: 'exact' is not 'clock' or 'model'" },
	{ { "--cpi", "0", "x.elf" }, "--cpi: '0' is not a number" },
	{ { "--pmu-version", "1", "--fixed-counters", "2" }, "version 1 has no fixed counters" },
	{ { "--pebs", "maybe", "x.elf" }, "--pebs: 'maybe' is not 'on' or 'off'" },
	{ { "--pebs-format", "2", "x.elf" }, "--pebs-format: '2' is not a whole number from 3 to 5" },
	{ { "--pebs-format", "6", "x.elf" }, "--pebs-format: '6'" },
	{ { "--pmu-version=1", "--pebs", "on", "x.elf" }, "PEBS needs --pmu-version 2 or later" },
	{ { "--pebs=off", "--pebs-format", "4", "x.elf" }, "--pebs-format: PEBS is off" },
	{ { "--pmu", "arm", "x.elf" }, "--pmu: 'arm' is not 'intel', 'amd' or 'none'" },
	{ { "--cpu-vendor", "via", "x.elf" }, "--cpu-vendor: 'via' is not 'intel', 'amd' or 'host'" },
	{ { "--pmu", "amd", "--pmu-version=3", "x.elf" }, "--pmu-version: the AMD PMU has versions 1" },
	{ { "--pmu=amd", "--pmu-version=1", "--gp-counters=5", "x.elf" },
	  "AMD PMU version 1 has 4 counters (legacy) or 6" },
	{ { "--pmu", "amd", "--fixed-counters=2", "x.elf" }, "--fixed-counters: the AMD PMU has no fixed" },
	{ { "--pmu", "amd", "--pebs=on", "x.elf" }, "--pebs: the AMD PMU has no fixed counters" },
	{ { "--pmu", "amd", "--gp-width=40", "x.elf" }, "--gp-width: AMD counters are 48 bits wide" },
	{ { "--pmu=amd", "--cpu-vendor", "intel", "x.elf" }, "the AMD PMU needs --cpu-vendor amd" },
	{ { "--cpu-vendor", "amd", "x.elf" }, "the Intel PMU needs --cpu-vendor intel" },
	{ { "--pmu=none", "--pmu-version=2", "x.elf" }, "--pmu-version: --pmu none has no PMU" },
	{ { "--exact", "maybe", "x.elf" }, "--exact: 'maybe' is not 'emulate', 'step', 'on' or 'off'" },
	{ { "--exact=off", "--cycles", "model", "x.elf" },
	  "--cycles model: counts cycles from single-stepped instructions, which --exact off turns off" },
	{ { "--cpus", "1" }, "no guest image given" },
	{ { "a.elf", "b.elf" }, "unexpected argument 'b.elf'" },
};

START_TEST(test_usage_errors)
{
	const struct usage_case *c = &usage_cases[_i];
	const char *argv[6] = { 0 };
	struct pmuvm_result r;
	int n;

	for (n = 0; n < 4 && c->args[n]; n++)
		argv[n] = c->args[n];
	/* Version 1 with fixed counters needs an image to reach the check. */
	if (!strcmp(c->needle, "version 1 has no fixed counters"))
		argv[n++] = "x.elf";
	ck_assert_int_eq(pmuvm_run_env(&r, NULL, 30, argv), 0);
	expect_error(&r, PMUVM_EXIT_USAGE, c->needle);
	pmuvm_result_free(&r);
}
END_TEST

/* --event-filter FILE contents that must be refused before anything boots. */
static const struct usage_case filter_cases[] = {
	{ { "event 0x3c 0\n" }, "ef.txt: no 'action allow' or 'action deny' line" },
	{ { "action allow\nevent 0x3c\n" }, "ef.txt:2: expected 'event SEL UMASK'" },
	{ { "action deny\nevent 0x113c 0\n" },
	  "ef.txt:2: event select must be a number from 0 to 0xfff, not '0x113c'" },
	{ { "action deny\nfixed_counter_bitmap two\n" }, "ef.txt:2: fixed_counter_bitmap must be" },
	{ { "# x\naction sometimes\n" }, "ef.txt:2: expected 'action allow' or 'action deny'" },
	{ { "action deny\nmasked 0xd0 0x0f 0xf0\n" }, "ef.txt:2: MATCH has bits outside MASK" },
	{ { "action deny\ncount 0x3c\n" }, "ef.txt:2: unknown directive 'count'" },
};

START_TEST(test_event_filter_errors)
{
	const struct usage_case *c = &filter_cases[_i];
	char path[512];
	struct pmuvm_result r;

	snprintf(path, sizeof(path), "%s", tmp_path("ef.txt"));
	ck_assert(write_file(path, c->args[0], strlen(c->args[0])));
	pmuvm_run(&r, "--event-filter", path, "x.elf");
	expect_error(&r, PMUVM_EXIT_USAGE, c->needle);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_event_filter_missing)
{
	struct pmuvm_result r;

	pmuvm_run(&r, "--event-filter", "/nonexistent/f.txt", "x.elf");
	expect_error(&r, PMUVM_EXIT_USAGE,
		     "--event-filter: cannot read '/nonexistent/f.txt': No such file or directory");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_help_and_version)
{
	struct pmuvm_result r;

	pmuvm_run(&r, "--help");
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "Usage: pmuvm [options] GUEST.elf\n"
			 "  or:  pmuvm [options] [--initrd FILE] [--append CMDLINE] bzImage|vmlinux\n"));
	ck_assert(strstr(r.out, "--pmu-version"));
	pmuvm_result_free(&r);
	/* The version the Makefile resolved (scripts/version.sh) for both. */
	pmuvm_run(&r, "--version");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "pmuvm " PMUVM_VERSION "\n");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_image_missing)
{
	struct pmuvm_result r;

	pmuvm_run(&r, tmp_path("does-not-exist.elf"));
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "cannot read guest image: No such file or directory");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_image_not_elf)
{
	struct pmuvm_result r;
	const char *p = tmp_path("text.elf");

	ck_assert(write_file(p, "hello, I am not a kernel\n", 25));
	REQUIRE_KVM();
	pmuvm_run(&r, p);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "not a multiboot kernel");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_image_no_header)
{
	struct elfgen_seg seg = { 0x100000, sizeof(code_print_exit), 0x1000, code_print_exit };
	const char *p = make_image("nohdr.elf", &seg, 1, 0x100000, 0);
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, p);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "no multiboot header in the first 8 KiB");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_image_elf64)
{
	static const char *const host_binary = "/bin/true";	/* an ELF64 with no header */
	struct pmuvm_result r;
	const char *p = tmp_path("elf64.elf");
	uint8_t buf[8192 + 64] = { 0 };
	uint32_t h[3] = { 0x1badb002u, 0x3, -(0x1badb002u + 0x3) };
	FILE *f = fopen(host_binary, "rb");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert(n > 4096);
	memcpy(buf + 4096, h, sizeof(h));	/* give it a valid multiboot header */
	ck_assert(write_file(p, buf, n));
	REQUIRE_KVM();
	pmuvm_run(&r, p);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "ELF64 image: multiboot needs ELF32");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_image_too_big_for_ram)
{
	struct elfgen_seg seg = { 0x100000, sizeof(code_print_exit), 8u << 20, code_print_exit };
	const char *p = make_image("big.elf", &seg, 1, 0x100000, 1);
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--mem", "4M", p);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "does not fit in guest RAM");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_image_overlapping_segments)
{
	struct elfgen_seg segs[2] = {
		{ 0x100000, sizeof(code_print_exit), 0x2000, code_print_exit },
		{ 0x101000, 0, 0x1000, NULL },
	};
	const char *p = make_image("overlap.elf", segs, 2, 0x100000, 1);
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, p);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "segments overlap at 0x101000-0x102000");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_image_entry_outside)
{
	struct elfgen_seg seg = { 0x100000, sizeof(code_print_exit), 0x1000, code_print_exit };
	const char *p = make_image("entry.elf", &seg, 1, 0x200000, 1);
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, p);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "entry point 0x200000 is outside every segment");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_initrd_needs_bzimage)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	struct pmuvm_result r;
	char imgcopy[512];

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	pmuvm_run(&r, "--initrd", imgcopy, imgcopy);
	expect_error(&r, PMUVM_EXIT_USAGE, "is not a Linux kernel (bzImage or vmlinux)");
	pmuvm_result_free(&r);
}
END_TEST

/* A boot protocol header and nothing after the setup sectors. */
START_TEST(test_bzimage_truncated)
{
	uint8_t hdr[0x400] = { 0 };
	const char *path = tmp_path("truncated-bzImage");
	struct pmuvm_result r;
	FILE *f;

	hdr[0x1f1] = 1;
	hdr[0x1fe] = 0x55;
	hdr[0x1ff] = 0xaa;
	memcpy(hdr + 0x202, "HdrS", 4);
	hdr[0x206] = 0x0f;
	hdr[0x207] = 0x02;
	hdr[0x236] = 1;				/* XLF_KERNEL_64 */
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(hdr, 1, sizeof(hdr), f), sizeof(hdr));
	fclose(f);
	REQUIRE_KVM();
	pmuvm_run(&r, path);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "bzImage truncated before its kernel");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_module_missing)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	struct pmuvm_result r;
	char imgcopy[512];

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	REQUIRE_KVM();
	pmuvm_run(&r, "--module", tmp_path("no-such-module"), imgcopy);
	expect_error(&r, PMUVM_EXIT_BAD_IMAGE, "--module: cannot read");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_no_kvm_device)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	const char *env[] = { "PMUVM_KVM_DEVICE=/nonexistent/kvm", NULL };
	const char *argv[] = { img, NULL };
	struct pmuvm_result r;

	pmuvm_run_env(&r, env, 30, argv);
	expect_error(&r, PMUVM_EXIT_NO_KVM, "/nonexistent/kvm does not exist");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_kvm_not_a_kvm_device)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	const char *env[] = { "PMUVM_KVM_DEVICE=/dev/null", NULL };
	const char *argv[] = { img, NULL };
	struct pmuvm_result r;

	pmuvm_run_env(&r, env, 30, argv);
	expect_error(&r, PMUVM_EXIT_NO_KVM, "/dev/null: not a usable KVM device");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_kvm_missing_capability)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	const char *env[] = { "PMUVM_TEST_HIDE_CAP=KVM_CAP_X86_MSR_FILTER", NULL };
	const char *argv[] = { img, NULL };
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run_env(&r, env, 30, argv);
	expect_error(&r, PMUVM_EXIT_NO_KVM, "KVM lacks KVM_CAP_X86_MSR_FILTER");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_kvm_permission_denied)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	char cmd[1024];
	char *err;
	int st;

	if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK))
		TEST_SKIP("needs root and setpriv to drop privileges");
	if (access("/dev/kvm", F_OK))
		TEST_SKIP("this machine has no /dev/kvm to be refused");
	/* As nobody, a root-only /dev/kvm cannot be opened. */
	snprintf(cmd, sizeof(cmd),
		 "cp %s %s/pmuvm-copy && chmod 755 %s/pmuvm-copy && chmod 644 %s && "
		 "setpriv --reuid=65534 --regid=65534 --clear-groups %s/pmuvm-copy %s "
		 "2>%s/perm.err >/dev/null",
		 pmuvm_path(), test_tmpdir(), test_tmpdir(), img, test_tmpdir(), img, test_tmpdir());
	st = system(cmd);
	err = read_file_str(tmp_path("perm.err"));
	ck_assert_ptr_nonnull(err);
	if (strstr(err, "permission denied") == NULL && WEXITSTATUS(st) == 0) {
		free(err);
		TEST_SKIP("/dev/kvm is usable by nobody on this host");
	}
	ck_assert_msg(WEXITSTATUS(st) == PMUVM_EXIT_NO_KVM, "status %d: %s", WEXITSTATUS(st), err);
	ck_assert_msg(strstr(err, "/dev/kvm: permission denied"), "stderr: %s", err);
	free(err);
}
END_TEST

START_TEST(test_cpus_above_kvm_limit)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	struct pmuvm_result r;
	char imgcopy[512];

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	REQUIRE_KVM();
	pmuvm_run(&r, "--cpus", "4096", imgcopy);
	/* Hosts that do allow 4096 vCPUs have nothing to refuse. */
	if (r.status == ((5 << 1) | 1)) {
		pmuvm_result_free(&r);
		TEST_SKIP("this KVM allows 4096 vCPUs");
	}
	expect_error(&r, PMUVM_EXIT_USAGE, "--cpus 4096: KVM on this host allows at most");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_report_dir_unwritable)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	struct pmuvm_result r;
	char imgcopy[512];

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	pmuvm_run(&r, "--report", "/nonexistent-dir/r.json", imgcopy);
	expect_error(&r, PMUVM_EXIT_USAGE,
		     "--report: /nonexistent-dir/r.json: No such file or directory");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_serial_unwritable)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	struct pmuvm_result r;
	char imgcopy[512];

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	REQUIRE_KVM();
	pmuvm_run(&r, "--serial", "/nonexistent-dir/serial.txt", imgcopy);
	expect_error(&r, PMUVM_EXIT_USAGE,
		     "--serial: /nonexistent-dir/serial.txt: No such file or directory");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_minimal_image_runs)
{
	const char *img = code_image("ok.elf", code_print_exit, sizeof(code_print_exit));
	struct pmuvm_result r;
	char imgcopy[512];

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	REQUIRE_KVM();
	pmuvm_run(&r, imgcopy);
	ck_assert_msg(r.status == ((5 << 1) | 1), "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.out, "X\n");
	ck_assert_str_eq(r.err, "");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_triple_fault)
{
	const char *img = code_image("tf.elf", code_triple_fault, sizeof(code_triple_fault));
	const char *rep = "tf.json";
	struct pmuvm_result r;
	char imgcopy[512], repp[512];
	char *json;

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	snprintf(repp, sizeof(repp), "%s", tmp_path(rep));
	REQUIRE_KVM();
	pmuvm_run(&r, "--report", repp, imgcopy);
	ck_assert_msg(r.status == PMUVM_EXIT_TRIPLE_FAULT, "status %d: %s", r.status, r.err);
	ck_assert(strstr(r.err, "pmuvm: vCPU 0: guest triple fault (shutdown)"));
	ck_assert(strstr(r.err, "pmuvm: vCPU 0 registers:"));
	ck_assert(strstr(r.err, "rip="));
	/* Where it was before: its last exits, the shutdown (KVM_EXIT_SHUTDOWN, 8) last. */
	ck_assert_msg(strstr(r.err, "pmuvm: vCPU 0: the last "), "%s", r.err);
	ck_assert_msg(strstr(r.err, "exit reason 8  cs="), "%s", r.err);
	json = read_file_str(repp);
	ck_assert_ptr_nonnull(json);
	ck_assert(strstr(json, "\"reason\":\"triple-fault\""));
	free(json);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_timeout_writes_report)
{
	const char *img = code_image("hang.elf", code_hang, sizeof(code_hang));
	struct pmuvm_result r;
	char imgcopy[512], repp[512];
	char *json;

	snprintf(imgcopy, sizeof(imgcopy), "%s", img);
	snprintf(repp, sizeof(repp), "%s", tmp_path("hang.json"));
	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "0.5", "--report", repp, imgcopy);
	expect_error(&r, PMUVM_EXIT_TIMEOUT, "guest still running after --timeout 0.5 s");
	json = read_file_str(repp);
	ck_assert_ptr_nonnull(json);
	ck_assert(strstr(json, "\"reason\":\"timeout\""));
	ck_assert(strstr(json, "\"status\":12"));
	free(json);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("errors");

	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_usage_errors, 0, sizeof(usage_cases) / sizeof(usage_cases[0]));
	tcase_add_loop_test(tc, test_event_filter_errors, 0,
			    sizeof(filter_cases) / sizeof(filter_cases[0]));
	tcase_add_test(tc, test_event_filter_missing);
	tcase_add_test(tc, test_help_and_version);
	tcase_add_test(tc, test_image_missing);
	tcase_add_test(tc, test_image_not_elf);
	tcase_add_test(tc, test_image_no_header);
	tcase_add_test(tc, test_image_elf64);
	tcase_add_test(tc, test_image_too_big_for_ram);
	tcase_add_test(tc, test_image_overlapping_segments);
	tcase_add_test(tc, test_image_entry_outside);
	tcase_add_test(tc, test_module_missing);
	tcase_add_test(tc, test_initrd_needs_bzimage);
	tcase_add_test(tc, test_bzimage_truncated);
	tcase_add_test(tc, test_no_kvm_device);
	tcase_add_test(tc, test_kvm_not_a_kvm_device);
	tcase_add_test(tc, test_kvm_missing_capability);
	tcase_add_test(tc, test_kvm_permission_denied);
	tcase_add_test(tc, test_cpus_above_kvm_limit);
	tcase_add_test(tc, test_report_dir_unwritable);
	tcase_add_test(tc, test_serial_unwritable);
	tcase_add_test(tc, test_minimal_image_runs);
	tcase_add_test(tc, test_triple_fault);
	tcase_add_test(tc, test_timeout_writes_report);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(cli_suite)
