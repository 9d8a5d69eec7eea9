/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CPU vendor a guest sees and the AMD PMU (--pmu, --cpu-vendor):
 * tests/guests/cpu_vendor.c reports the identity and the PMU leaves of each
 * combination, tests/guests/amd_pmu.c checks the AMD model's MSR rules,
 * exact counts, overflow and RDPMC from inside a guest.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

/* An Intel brand string's name, to which pmuvm appends " @ <TSC GHz>GHz". */
#define INTEL_BRAND(name)	name " @ "

static const struct {
	const char *args[6];
	const char *line;	/* NULL: the host's vendor, checked for no PMU leaves only */
	const char *brand;	/* the brand string; Intel's ends " @ " and the TSC's GHz */
} vendor_cases[] = {
	{ { NULL }, "GenuineIntel family 0x6 model 0x6a intel_pmu 5 amd_core_ext 0 amd_perfmon_v2 0 amd_counters 0",
	  INTEL_BRAND("Intel(R) Xeon(R) Platinum 8380 CPU") },
	{ { "--pmu-version", "4", NULL }, "GenuineIntel family 0x6 model 0x55 intel_pmu 4 amd_core_ext 0",
	  INTEL_BRAND("Intel(R) Xeon(R) Platinum 8180 CPU") },
	{ { "--pmu-version", "2", NULL }, "GenuineIntel family 0x6 model 0x17 intel_pmu 2 amd_core_ext 0",
	  INTEL_BRAND("Intel(R) Core(TM)2 Duo CPU E8400") },
	{ { "--pmu", "amd", NULL }, "AuthenticAMD family 0x19 model 0x11 intel_pmu 0 amd_core_ext 1 amd_perfmon_v2 1 amd_counters 6",
	  "AMD EPYC 9654 96-Core Processor" },
	{ { "--pmu", "amd", "--gp-counters", "3", NULL }, "AuthenticAMD family 0x19 model 0x11 intel_pmu 0 amd_core_ext 1 amd_perfmon_v2 1 amd_counters 3",
	  "AMD EPYC 9654 96-Core Processor" },
	{ { "--pmu", "amd", "--pmu-version", "1", NULL }, "AuthenticAMD family 0x17 model 0x31 intel_pmu 0 amd_core_ext 1 amd_perfmon_v2 0 amd_counters 0",
	  "AMD EPYC 7502 32-Core Processor" },
	{ { "--pmu", "amd", "--pmu-version", "1", "--gp-counters", "4" }, "AuthenticAMD family 0x10 model 0x2 intel_pmu 0 amd_core_ext 0 amd_perfmon_v2 0 amd_counters 0",
	  "Quad-Core AMD Opteron(tm) Processor 2350" },
	{ { "--pmu", "none", "--cpu-vendor", "intel", NULL }, "GenuineIntel family 0x6 model 0x6a intel_pmu 0 amd_core_ext 0 amd_perfmon_v2 0 amd_counters 0",
	  INTEL_BRAND("Intel(R) Xeon(R) Platinum 8380 CPU") },
	{ { "--pmu", "none", "--cpu-vendor", "amd", NULL }, "AuthenticAMD family 0x19 model 0x11 intel_pmu 0 amd_core_ext 0 amd_perfmon_v2 0 amd_counters 0",
	  "AMD EPYC 9654 96-Core Processor" },
	{ { "--pmu", "none", NULL }, NULL, NULL },
};

/* This machine's CPU vendor string (/proc/cpuinfo), or "" if not known. */
static const char *host_vendor(void)
{
	static char v[32];
	char line[256];
	FILE *f;

	if (v[0])
		return v;
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "vendor_id : %31s", v) == 1)
			break;
	fclose(f);
	return v;
}

START_TEST(test_cpu_vendor)
{
	const char *argv[12];
	char want[256];
	struct pmuvm_result r;
	size_t n = 0, i;

	REQUIRE_KVM();
	for (i = 0; i < 6 && vendor_cases[_i].args[i]; i++)
		argv[n++] = vendor_cases[_i].args[i];
	argv[n++] = "--timeout";
	argv[n++] = "20";
	argv[n++] = guest_path("cpu_vendor");
	argv[n] = NULL;
	pmuvm_run_env(&r, NULL, 60, argv);
	expect_guest_pass(&r, "cpu_vendor");
	if (vendor_cases[_i].line) {
		snprintf(want, sizeof(want), "cpu_vendor: %s", vendor_cases[_i].line);
		ck_assert_msg(strstr(r.out, want), "want '%s' in:\n%s", want, r.out);
		snprintf(want, sizeof(want), "cpu_vendor: brand %s", vendor_cases[_i].brand);
		if (!strncmp(vendor_cases[_i].line, "GenuineIntel", 12)) {
			uint64_t centi = (json_u64(r.report, "config.pmu.tsc_khz") + 5000) / 10000;

			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%u.%02uGHz\n",
				 (unsigned int)(centi / 100), (unsigned int)(centi % 100));
		} else {
			strcat(want, "\n");
		}
		ck_assert_msg(strstr(r.out, want), "want '%s' in:\n%s", want, r.out);
		/*
		 * The other vendor's hypercall instruction faults on this host
		 * (vmm/machine/cpuid.c, cpuid_apply_hypercalls()).
		 */
		if (host_vendor()[0] && strncmp(vendor_cases[_i].line, host_vendor(),
						strlen(host_vendor())))
			ck_assert_msg(strstr(r.out, "cpu_vendor: kvm_hypercalls 0\n"),
				      "a %s guest on a %s host offered KVM hypercalls:\n%s",
				      vendor_cases[_i].line, host_vendor(), r.out);
	} else {
		ck_assert_msg(strstr(r.out, " intel_pmu 0 amd_core_ext 0 amd_perfmon_v2 0 "),
			      "--pmu none left a PMU leaf:\n%s", r.out);
	}
	pmuvm_result_free(&r);
}
END_TEST

static const struct {
	const char *args[6];
	const char *append;
} amd_cases[] = {
	{ { NULL }, "version=2 counters=6" },
	{ { "--pmu-version", "1", NULL }, "version=1 counters=6" },
	{ { "--pmu-version", "1", "--gp-counters", "4", NULL }, "version=1 counters=4" },
	{ { "--cpus", "2", NULL }, "version=2 counters=6" },
};

START_TEST(test_amd_pmu_guest)
{
	const char *argv[18];
	char report[512], profile[512], text[4096] = "";
	FILE *f;
	struct pmuvm_result r;
	json_object *root;
	size_t n = 0, i;

	REQUIRE_KVM();
	snprintf(report, sizeof(report), "%s", tmp_path("amd.json"));
	snprintf(profile, sizeof(profile), "%s", tmp_path("amd.profile"));
	argv[n++] = "--pmu";
	argv[n++] = "amd";
	for (i = 0; i < 6 && amd_cases[_i].args[i]; i++)
		argv[n++] = amd_cases[_i].args[i];
	argv[n++] = "--append";
	argv[n++] = amd_cases[_i].append;
	argv[n++] = "--report";
	argv[n++] = report;
	argv[n++] = "--profile";
	argv[n++] = profile;
	argv[n++] = "--timeout";
	argv[n++] = "60";
	argv[n++] = guest_path("amd_pmu");
	argv[n] = NULL;
	pmuvm_run_env(&r, NULL, 120, argv);
	expect_guest_pass(&r, amd_cases[_i].append);
	expect_guest_ok(&r, "amd msrs");
	expect_guest_ok(&r, "amd exact counts");
	expect_guest_ok(&r, "amd overflow pmi");
	expect_guest_ok(&r, "amd rdpmc");
	root = report_load(report);
	ck_assert_str_eq(json_object_get_string(json_get(root, "config.pmu.vendor")), "amd");
	ck_assert_str_eq(json_object_get_string(json_get(root, "config.cpu_vendor")), "amd");
	ck_assert_uint_eq(json_u64(root, "config.pmu.fixed_counters"), 0);
	ck_assert_uint_ge(json_u64(root, "vcpus.0.pmu.pmis_delivered"), 1);
	json_object_put(root);
	/* --profile: the one overflow with INT (counter 1), in main(). */
	f = fopen(profile, "r");
	ck_assert_msg(f, "no profile %s", profile);
	ck_assert(fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	ck_assert_msg(strstr(text, "# by counter: pmc1=1\n") && strstr(text, "  main\n"),
		      "profile:\n%s", text);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *amd_suite(void)
{
	Suite *s = suite_create("amd");
	TCase *tc = tcase_create("vendors");

	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_cpu_vendor, 0, sizeof(vendor_cases) / sizeof(vendor_cases[0]));
	tcase_add_loop_test(tc, test_amd_pmu_guest, 0, sizeof(amd_cases) / sizeof(amd_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(amd_suite)
