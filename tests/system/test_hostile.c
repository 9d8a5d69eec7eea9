/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hostile guests (tests/guests/hostile_*.c): random values into every PMU
 * MSR, DS_AREA at MMIO and unmapped memory, invalid LVTPC modes, PMI
 * floods by fixed vector and by NMI (hostile_pmu); random port I/O and
 * MMIO at fw_cfg, unclaimed ports and the hole above RAM (hostile_io);
 * each ends with a triple fault.  pmuvm must exit with the documented
 * triple-fault status (vmm/exitcode.h), say why on stderr in its
 * usual one-line form, and still write a report that parses and counts
 * the PMIs the guest took.  make check SANITIZE=1 runs this against the
 * ASan+UBSan pmuvm.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"
#include "exitcode.h"

struct hostile_case {
	const char *guest;	/* tests/guests/<guest>.c */
	const char *prefix;	/* of the guest's output lines */
	const char *args[12];	/* extra pmuvm options */
	const char *seed_line;	/* what the guest must print for its seed */
	unsigned int pmis;	/* PMIs the guest must report taking, per LVTPC mode */
};

/*
 * Each guest with its default seed first ("default"), then the other
 * seeds and configurations ("variants"): the VMX lab, where a run takes
 * guest seconds, runs the first two (scripts/run-tests.sh).
 */
static const struct hostile_case cases[] = {
	{ "hostile_pmu", "hostile", { NULL }, "seed=0x9e3779b97f4a7c15", 300 },
	{ "hostile_io", "hostile_io", { NULL }, "seed=0x9e3779b97f4a7c15", 0 },
	{ "hostile_pmu", "hostile", { "--append", "seed=12345" }, "seed=0x3039", 300 },
	{ "hostile_pmu", "hostile", { "--append", "seed=0xdeadbeef", "--pmu-version", "1" },
	  "seed=0xdeadbeef", 300 },
	{ "hostile_pmu", "hostile", { "--append", "seed=3", "--pmu-version", "4",
	  "--gp-counters", "2", "--fixed-counters", "1", "--gp-width", "32" }, "seed=0x3", 300 },
	{ "hostile_pmu", "hostile", { "--append", "seed=99", "--pmu-version", "0" }, "seed=0x63", 0 },
	{ "hostile_pmu", "hostile", { "--append", "seed=77", "--cpus", "2",
	  "--full-width-writes", "off" }, "seed=0x4d", 300 },
	{ "hostile_io", "hostile_io", { "--append", "seed=4242", "--mem", "4G" }, "seed=0x1092", 0 },
};

#define HOSTILE_DEFAULTS	2

/* Every stderr line is a "pmuvm: " diagnostic or the indented register dump. */
static void expect_clean_stderr(const char *err)
{
	const char *line = err;

	ck_assert_msg(strstr(err, "pmuvm: vCPU 0: guest triple fault (shutdown)\n"),
		      "stderr: %s", err);
	ck_assert_msg(!strstr(err, "Sanitizer") && !strstr(err, "runtime error"),
		      "sanitizer report: %s", err);
	while (*line) {
		ck_assert_msg(!strncmp(line, "pmuvm: ", 7) || !strncmp(line, "  ", 2),
			      "stray stderr line in: %s", err);
		line = strchr(line, '\n');
		ck_assert_ptr_nonnull(line);
		line++;
	}
}

/* N from "hostile: <key>=N", 0 if the guest did not print it. */
static unsigned int guest_count(const char *out, const char *key)
{
	char needle[64];
	const char *p;

	snprintf(needle, sizeof(needle), "hostile: %s=", key);
	p = strstr(out, needle);
	return p ? (unsigned int)strtoul(p + strlen(needle), NULL, 10) : 0;
}

START_TEST(test_hostile_guest)
{
	const struct hostile_case *c = &cases[_i];
	const char *argv[24];
	char report[512], img[512], done[64], why[4096];
	json_object *root, *vcpu0, *pmu;
	struct pmuvm_result r;
	unsigned int n = 0, i, pmis, nmi_pmis;

	REQUIRE_KVM();
	snprintf(report, sizeof(report), "%s", tmp_path("hostile.json"));
	snprintf(img, sizeof(img), "%s", guest_path(c->guest));
	snprintf(done, sizeof(done), "%s: triple fault now\n", c->prefix);
	argv[n++] = "--timeout";
	argv[n++] = "60";
	argv[n++] = "--report";
	argv[n++] = report;
	for (i = 0; i < 12 && c->args[i]; i++)
		argv[n++] = c->args[i];
	argv[n++] = img;
	argv[n] = NULL;
	ck_assert_int_eq(pmuvm_run_env(&r, NULL, 120, argv), 0);

	ck_assert_msg(r.status == PMUVM_EXIT_TRIPLE_FAULT, "status %d\nstdout:\n%s\nstderr:\n%s",
		      r.status, r.out, r.err);
	ck_assert_msg(strstr(r.out, c->seed_line), "no '%s' in:\n%s", c->seed_line, r.out);
	ck_assert_msg(strstr(r.out, done), "guest did not get through every phase:\n%s", r.out);
	ck_assert_ptr_nonnull(guest_results(r.report));
	guest_results_describe(r.report, why, sizeof(why));
	ck_assert_msg(!guest_results_count(r.report, "fail") &&
		      !guest_results_count(r.report, "invalid"), "guest results:\n%s\nstdout:\n%s",
		      why, r.out);
	expect_clean_stderr(r.err);
	pmis = guest_count(r.out, "pmis");
	nmi_pmis = guest_count(r.out, "nmi_pmis");
	ck_assert_uint_eq(pmis, c->pmis);
	ck_assert_uint_eq(nmi_pmis, c->pmis);

	root = json_object_from_file(report);
	ck_assert_msg(root, "report missing or not JSON");
	ck_assert_str_eq(json_object_get_string(json_get(json_get(root, "exit"), "reason")), "triple-fault");
	ck_assert_int_eq(json_object_get_int(json_get(json_get(root, "exit"), "status")),
			 PMUVM_EXIT_TRIPLE_FAULT);
	vcpu0 = json_object_array_get_idx(json_get(root, "vcpus"), 0);
	ck_assert_ptr_nonnull(vcpu0);
	pmu = json_get(vcpu0, "pmu");
	/* Each PMI the guest handled was delivered by pmuvm. */
	ck_assert_uint_ge(json_object_get_uint64(json_get(pmu, "pmis_delivered")), pmis + nmi_pmis);
	ck_assert_uint_ge(json_object_get_uint64(json_get(pmu, "pmis_nmi")), nmi_pmis);
	ck_assert_uint_ge(json_object_get_uint64(json_get(pmu, "pmis_requested")),
			  json_object_get_uint64(json_get(pmu, "pmis_delivered")));
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("default");

	tcase_set_tags(tc, TEST_TAG_TIMING);
	tcase_set_timeout(tc, 150);
	tcase_add_loop_test(tc, test_hostile_guest, 0, HOSTILE_DEFAULTS);
	suite_add_tcase(s, tc);
	tc = tcase_create("variants");
	tcase_set_tags(tc, TEST_TAG_TIMING);
	tcase_set_timeout(tc, 150);
	tcase_add_loop_test(tc, test_hostile_guest, HOSTILE_DEFAULTS,
			    sizeof(cases) / sizeof(cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(hostile_suite)
