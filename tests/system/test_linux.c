/*
 * A stock Linux kernel under pmuvm (the Linux boot protocol, vmm/boot/linux.c):
 * Debian's kernel from the lab's package cache boots with a busybox
 * initramfs (tests/linux/) to user space, and its perf subsystem takes
 * pmuvm's PMU: Intel's and, with --pmu amd, AMD's. The init then powers
 * off (ACPI S5: exit status 0) or reboots (the FADT's reset register, the
 * keyboard controller: status 8), as pmuvm_end= on the command line says.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

#define LINUX_APPEND	"console=ttyS0 panic=-1 rdinit=/init pmuvm_end="

static const struct {
	const char *pmu;
	const char *vendor;	/* /proc/cpuinfo vendor_id */
	const char *perf;	/* the perf driver's boot line */
	const char *end;	/* pmuvm_end= */
	int status;
	const char *last;	/* the kernel's or pmuvm's last word */
} linux_cases[] = {
	{ "intel", "GenuineIntel",
	  "Performance Events: PEBS fmt4+-baseline, Sapphire Rapids events, AnyThread deprecated, full-width counters, Intel PMU driver.",
	  "poweroff", 0, "reboot: Power down\n" },
	{ "amd", "AuthenticAMD", "Performance Events: Fam17h+ core perfctr, AMD PMU driver.",
	  "reboot", 8, "pmuvm: vCPU 0: guest reset the machine (keyboard controller)\n" },
};

/* The last `n` bytes of a kernel's console: Check messages have a size limit. */
static const char *tail(const char *s, size_t n)
{
	size_t len = strlen(s);

	return len > n ? s + len - n : s;
}

START_TEST(test_linux_boots_with_pmu)
{
	char initrd[512], kernel[4096], line[512], append[256];
	struct pmuvm_result r;
	char *nl;

	REQUIRE_KVM();
	snprintf(initrd, sizeof(initrd), "%s", tmp_path("linux.cpio"));
	cmd_run_args(&r, "tests/linux/mkinitramfs", initrd);
	if (r.status == 77) {
		printf("SKIP: %s: %s", __func__, r.err);
		pmuvm_result_free(&r);
		return;
	}
	ck_assert_msg(r.status == 0, "mkinitramfs: status %d\n%s", r.status, r.err);
	snprintf(kernel, sizeof(kernel), "%s", r.out);
	nl = strchr(kernel, '\n');
	if (nl)
		*nl = '\0';
	pmuvm_result_free(&r);

	snprintf(append, sizeof(append), "%s%s", LINUX_APPEND, linux_cases[_i].end);
	pmuvm_run_env(&r, NULL, 300,
		      (const char *const[]){ "--pmu", linux_cases[_i].pmu, "--mem", "512M",
					     "--timeout", "150", "--initrd", initrd,
					     "--append", append, kernel, NULL });
	ck_assert_msg(strstr(r.out, "pmuvm-linux: userspace up, 1 cpu(s)\n"),
		      "no user space (status %d, kernel %s):\n%s\n%s", r.status, kernel,
		      tail(r.out, 3000), tail(r.err, 1000));
	snprintf(line, sizeof(line), "vendor_id\t: %s\n", linux_cases[_i].vendor);
	ck_assert_msg(strstr(r.out, line), "want '%s':\n%s", line, tail(r.out, 3000));
	ck_assert_msg(strstr(r.out, linux_cases[_i].perf), "want '%s':\n%s", linux_cases[_i].perf,
		      tail(r.out, 3000));
	ck_assert_msg(r.status == linux_cases[_i].status, "status %d (want %d)\n%s", r.status,
		      linux_cases[_i].status, tail(r.err, 2000));
	ck_assert_msg(strstr(r.out, linux_cases[_i].last) || strstr(r.err, linux_cases[_i].last),
		      "want '%s':\n%s\n%s", linux_cases[_i].last, tail(r.out, 1000), r.err);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *linux_suite(void)
{
	Suite *s = suite_create("linux");
	TCase *tc = tcase_create("boot");

	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_linux_boots_with_pmu, 0,
			    sizeof(linux_cases) / sizeof(linux_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(linux_suite)
