/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every PMU MSR rule observed from inside a guest (tests/guests/pmu_msr.c),
 * under each PMU configuration pmuvm offers: the guest reads the
 * configuration from CPUID, this test checks it saw the one asked for and
 * that the version-specific checks ran.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

#define MAX_ARGS 8

static const struct {
	const char *args[MAX_ARGS];	/* pmuvm options, NULL-terminated */
	const char *cfg_line;		/* what the guest reads from CPUID */
	const char *ok_lines[4];	/* version-specific checks that must run */
} msr_cases[] = {
	{ { NULL }, "version=5 gp=8x48 fixed=3x48 pdcm=1 fw=1",
	  { "IA32_PERF_GLOBAL_STATUS / STATUS_RESET", "IA32_PERF_GLOBAL_STATUS_SET",
	    "IA32_PERF_GLOBAL_INUSE", "IA32_PERF_CAPABILITIES" } },
	{ { "--pmu-version", "1", NULL }, "version=1 gp=8x48 fixed=0x0 pdcm=0 fw=0",
	  { "IA32_PMCx / IA32_A_PMCx", "IA32_DEBUGCTL" } },
	{ { "--pmu-version", "2", NULL }, "version=2 gp=8x48 fixed=3x48 pdcm=1 fw=1",
	  { "IA32_PERF_GLOBAL_STATUS / OVF_CTRL", "IA32_FIXED_CTR_CTRL",
	    "IA32_PERF_GLOBAL_CTRL", "IA32_PERF_CAPABILITIES" } },
	{ { "--pmu-version", "3", NULL }, "version=3 gp=8x48 fixed=3x48 pdcm=1 fw=1",
	  { "IA32_PERF_GLOBAL_STATUS / OVF_CTRL" } },
	{ { "--pmu-version", "4", NULL }, "version=4 gp=8x48 fixed=3x48 pdcm=1 fw=1",
	  { "IA32_PERF_GLOBAL_STATUS / STATUS_RESET", "IA32_PERF_GLOBAL_STATUS_SET",
	    "IA32_PERF_GLOBAL_INUSE" } },
	{ { "--gp-counters", "2", "--fixed-counters", "0", NULL },
	  "version=5 gp=2x48 fixed=0x0 pdcm=1 fw=1", { "IA32_PERF_GLOBAL_INUSE" } },
	{ { "--gp-width", "32", NULL }, "version=5 gp=8x32 fixed=3x48 pdcm=1 fw=1",
	  { "IA32_PMCx / IA32_A_PMCx" } },
	{ { "--gp-width", "40", NULL }, "version=5 gp=8x40 fixed=3x48 pdcm=1 fw=1",
	  { "IA32_PMCx / IA32_A_PMCx" } },
	{ { "--full-width-writes", "off", NULL }, "version=5 gp=8x48 fixed=3x48 pdcm=1 fw=0",
	  { "IA32_PMCx / IA32_A_PMCx", "IA32_PERF_CAPABILITIES" } },
};

/* The checks every configuration runs. */
static const char *const common_ok[] = {
	"reset values", "absent MSRs #GP", "IA32_PMCx / IA32_A_PMCx", "IA32_FIXED_CTRi",
	"IA32_PERFEVTSELx", "IA32_DEBUGCTL", "IA32_MISC_ENABLE",
};

START_TEST(test_pmu_msr_rules)
{
	const char *argv[MAX_ARGS + 6];
	char what[256], line[256];
	struct pmuvm_result r;
	size_t n = 0, i, len = 0;

	REQUIRE_KVM();
	what[0] = '\0';
	for (i = 0; msr_cases[_i].args[i]; i++) {
		argv[n++] = msr_cases[_i].args[i];
		len += (size_t)snprintf(what + len, sizeof(what) - len, "%s ", msr_cases[_i].args[i]);
	}
	if (!n)
		snprintf(what, sizeof(what), "(default) ");
	/* pmu_msr checks the PMU without DS/PEBS; test_pebs.c checks it with. */
	argv[n++] = "--pebs";
	argv[n++] = "off";
	argv[n++] = "--timeout";
	argv[n++] = "20";
	argv[n++] = guest_path("pmu_msr");
	argv[n] = NULL;
	pmuvm_run_env(&r, NULL, 60, argv);

	expect_guest_pass(&r, what);
	snprintf(line, sizeof(line), "pmu_msr: %s\n", msr_cases[_i].cfg_line);
	ck_assert_msg(strstr(r.out, line), "%s: guest saw another config:\n%s", what, r.out);
	for (i = 0; i < sizeof(common_ok) / sizeof(common_ok[0]); i++)
		expect_guest_ok(&r, common_ok[i]);
	for (i = 0; i < 4 && msr_cases[_i].ok_lines[i]; i++)
		expect_guest_ok(&r, msr_cases[_i].ok_lines[i]);
	ck_assert_str_eq(r.err, "");
	pmuvm_result_free(&r);
}
END_TEST

static Suite *pmu_msr_suite(void)
{
	Suite *s = suite_create("pmu_msr");
	TCase *tc = tcase_create("configs");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_pmu_msr_rules, 0,
			    (int)(sizeof(msr_cases) / sizeof(msr_cases[0])));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pmu_msr_suite)
