/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The virtual PMU end to end: guests that sample, overflow and run on two
 * vCPUs under pmuvm, the --report that must agree with what each guest
 * saw (PMIs and final counter values per vCPU), and --profile naming the
 * function a sampled guest spends its time in.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

/* The unsigned value after "key=" on the line starting with `prefix`. */
static unsigned long long out_value(const char *out, const char *prefix, const char *key)
{
	const char *line = strstr(out, prefix), *eol, *k;
	char pat[64];

	ck_assert_msg(line, "no line '%s' in:\n%s", prefix, out);
	eol = strchr(line, '\n');
	snprintf(pat, sizeof(pat), " %s=", key);
	k = strstr(line, pat);
	ck_assert_msg(k && (!eol || k < eol), "no '%s=' on line '%s'", key, prefix);
	return strtoull(k + strlen(pat), NULL, 10);
}

static json_object *report_vcpu_pmu(json_object *root, int cpu)
{
	json_object *vcpus = json_get(root, "vcpus");

	ck_assert_int_gt(json_object_array_length(vcpus), cpu);
	return json_get(json_object_array_get_idx(vcpus, cpu), "pmu");
}

static uint64_t ju64(json_object *o, const char *key)
{
	return json_object_get_uint64(json_get(o, key));
}

/*
 * The guest's "pmu_final: cpu=N gp=... fixed=..." line (pmu_common.h) must
 * equal the counter values the report gives for that vCPU.
 */
static void expect_final_values_match(const struct pmuvm_result *r, json_object *pmu, int cpu)
{
	json_object *gp = json_get(pmu, "gp"), *fx = json_get(pmu, "fixed");
	char line[1024];
	size_t n, i;

	n = (size_t)snprintf(line, sizeof(line), "pmu_final: cpu=%d gp=", cpu);
	for (i = 0; i < json_object_array_length(gp); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%llu", i ? "," : "",
				      (unsigned long long)ju64(json_object_array_get_idx(gp, i),
							       "value"));
	n += (size_t)snprintf(line + n, sizeof(line) - n, " fixed=");
	for (i = 0; i < json_object_array_length(fx); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%llu", i ? "," : "",
				      (unsigned long long)json_object_get_uint64(
					      json_object_array_get_idx(fx, i)));
	snprintf(line + n, sizeof(line) - n, "\n");
	ck_assert_msg(strstr(r->out, line), "report says '%.*s', guest saw:\n%s",
		      (int)strlen(line) - 1, line, r->out);
}

/* Runs guest `name`, which must pass; returns its report. */
static json_object *run_reported(struct pmuvm_result *r, const char *name)
{
	char rpath[512], file[128];
	json_object *root;

	snprintf(file, sizeof(file), "%s.json", name);
	snprintf(rpath, sizeof(rpath), "%s", tmp_path(file));
	pmuvm_run(r, "--timeout", "30", "--report", rpath, guest_path(name));
	expect_guest_pass(r, name);
	expect_guest_ok(r, name);
	root = json_object_from_file(rpath);
	ck_assert_ptr_nonnull(root);
	return root;
}

START_TEST(test_pmu_sample)
{
	struct pmuvm_result r;
	unsigned long long exit_ns;
	json_object *root;

	REQUIRE_KVM();
	root = run_reported(&r, "pmu_sample");
	/* The guest handled all but a last one still pending (tests/guests/pmu_sample.c). */
	ck_assert_uint_eq(ju64(report_vcpu_pmu(root, 0), "pmis_delivered"),
			  out_value(r.out, "pmu_sample: elapsed_tsc=", "pmis") +
				  out_value(r.out, "pmu_sample: elapsed_tsc=", "pending"));
	/*
	 * The exits' cost is not counted as cycles (vmm/clock/clock.c): at
	 * least the exit to pmuvm that delivers each PMI, while cycles count.
	 */
	exit_ns = json_u64(root, "debug.host.exit_cost_ns");
	ck_assert_uint_gt(exit_ns, 0);
	ck_assert_uint_ge(json_u64(root, "vcpus.0.debug.clock.exit_cpu_uncounted_ns"),
			  exit_ns * ju64(report_vcpu_pmu(root, 0), "pmis_delivered"));
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * Cycles sampled at OS and USR under a kernel whose system calls make
 * exits KVM handles itself (tests/guests/pmu_sample_os.c): the samples
 * fall in user code, where the guest spends its own time, not at the
 * exits (vmm/clock/kick.c). The guest checks each sample's CS.
 */
START_TEST(test_pmu_sample_os)
{
	struct pmuvm_result r;
	unsigned long long delivered, pmis;
	json_object *root;

	REQUIRE_KVM();
	root = run_reported(&r, "pmu_sample_os");
	/* Every PMI was taken, but one the loop's way back to CPL0 may leave pending. */
	delivered = ju64(report_vcpu_pmu(root, 0), "pmis_delivered");
	pmis = out_value(r.out, "pmu_sample_os: elapsed_tsc=", "pmis");
	ck_assert_msg(delivered == pmis || delivered == pmis + 1, "delivered %llu, taken %llu",
		      delivered, pmis);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * USR and OS cycles of user code between a kernel's counter enables and
 * disables (tests/guests/cycles_cpl.c): the CPL comes from the clock's
 * timer samples, held across the guest's own CPL0 exits.
 */
START_TEST(test_cycles_cpl)
{
	struct pmuvm_result r;
	json_object *root;

	REQUIRE_KVM();
	root = run_reported(&r, "cycles_cpl");
	ck_assert_uint_gt(json_u64(root, "vcpus.0.debug.clock.cpl_samples"), 0);
	ck_assert_uint_gt(json_u64(root, "vcpus.0.debug.clock.cpl_held_runs"), 0);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

static const char *const overflow_versions[] = { "5", "4", "3", "2" };

static const char *const overflow_ok[] = {
	"gp overflow, INT clear: status only",
	"fixed overflow, PMI clear: status only",
	"gp overflow with INT: PMI, LVTPC masked",
	"fixed overflow with PMI: PMI, LVTPC masked",
	"simultaneous gp and fixed overflow: one PMI",
	"masked LVTPC: status set, no PMI",
	"LVTPC NMI mode: NMI delivered",
};

START_TEST(test_pmu_overflow)
{
	const char *version = overflow_versions[_i];
	char rpath[512];
	struct pmuvm_result r;
	json_object *root, *pmu;
	unsigned long long pmis, nmis, masked;
	size_t i;

	REQUIRE_KVM();
	snprintf(rpath, sizeof(rpath), "%s", tmp_path("overflow.json"));
	pmuvm_run(&r, "--pmu-version", version, "--timeout", "20", "--report", rpath,
		  guest_path("pmu_overflow"));
	expect_guest_pass(&r, version);
	for (i = 0; i < sizeof(overflow_ok) / sizeof(overflow_ok[0]); i++)
		expect_guest_ok(&r, overflow_ok[i]);
	if (atoi(version) >= 4) {
		expect_guest_ok(&r, "STATUS_SET: no PMI for an overflow bit, CTR_Frz stops counting");
		expect_guest_ok(&r, "freeze on PMI (v4+): CTR_Frz stops counters until cleared");
	} else {
		expect_guest_ok(&r, "freeze on PMI (v2/v3): GLOBAL_CTRL cleared");
	}

	pmis = out_value(r.out, "pmu_overflow: pmis=", "pmis");
	nmis = out_value(r.out, "pmu_overflow: pmis=", "nmis");
	masked = out_value(r.out, "pmu_overflow: pmis=", "masked");
	root = json_object_from_file(rpath);
	ck_assert_ptr_nonnull(root);
	pmu = report_vcpu_pmu(root, 0);
	/* NMI-mode PMIs are delivered PMIs too. */
	ck_assert_uint_eq(ju64(pmu, "pmis_delivered"), pmis + nmis);
	ck_assert_uint_eq(ju64(pmu, "pmis_nmi"), nmis);
	ck_assert_uint_eq(ju64(pmu, "pmis_dropped_masked"), masked);
	ck_assert_uint_eq(ju64(pmu, "pmis_requested"), pmis + nmis + masked);
	expect_final_values_match(&r, pmu, 0);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_pmu_smp)
{
	char rpath[512], prefix[32];
	struct pmuvm_result r;
	json_object *root;
	int cpu;

	REQUIRE_KVM();
	snprintf(rpath, sizeof(rpath), "%s", tmp_path("smp.json"));
	pmuvm_run(&r, "--cpus", "2", "--timeout", "20", "--report", rpath, guest_path("pmu_smp"));
	expect_guest_pass(&r, "pmu_smp");
	expect_guest_ok(&r, "each vCPU reads back only its own counters");
	expect_guest_ok(&r, "each vCPU gets its own PMI");
	root = json_object_from_file(rpath);
	ck_assert_ptr_nonnull(root);
	for (cpu = 0; cpu < 2; cpu++) {
		json_object *pmu = report_vcpu_pmu(root, cpu);

		snprintf(prefix, sizeof(prefix), "pmu_smp: cpu=%d ", cpu);
		ck_assert_uint_eq(ju64(pmu, "pmis_delivered"), out_value(r.out, prefix, "pmis"));
		expect_final_values_match(&r, pmu, cpu);
	}
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/* "#  samples       %  function" is followed by "N  P%  name" rows, hottest first. */
static void expect_hottest(const char *table, const char *fn)
{
	const char *p = strstr(table, "  function\n");
	unsigned long long n;
	double pct;
	char name[128];

	ck_assert_msg(p, "no table header in:\n%s", table);
	p = strchr(p, '\n') + 1;
	ck_assert_msg(sscanf(p, "%llu %lf%% %127s", &n, &pct, name) == 3,
		      "no first row in:\n%s", table);
	ck_assert_msg(!strcmp(name, fn) && n > 0, "hottest is '%s', not '%s':\n%s", name, fn,
		      table);
}

/* Sum of the counts of folded lines with `fn` as one of their frames. */
static unsigned long long folded_count_with(const char *folded, const char *fn)
{
	unsigned long long sum = 0, total = 0;
	const char *line = folded;

	while (*line) {
		const char *eol = strchr(line, '\n'), *sp;
		char stack[4096];
		unsigned long long n;
		char *save, *tok;

		ck_assert_msg(eol, "unterminated folded line: %s", line);
		sp = eol;
		while (sp > line && sp[-1] != ' ')
			sp--;
		ck_assert_msg(sp > line && sp < eol, "no count: %.*s", (int)(eol - line), line);
		n = strtoull(sp, NULL, 10);
		ck_assert_msg(n > 0, "bad count: %.*s", (int)(eol - line), line);
		snprintf(stack, sizeof(stack), "%.*s", (int)(sp - 1 - line), line);
		for (tok = strtok_r(stack, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
			if (!strcmp(tok, fn)) {
				sum += n;
				break;
			}
		}
		total += n;
		line = eol + 1;
	}
	ck_assert_uint_gt(total, 0);
	return sum;
}

START_TEST(test_profile_end_to_end)
{
	char ppath[512], fpath[600];
	char *table, *folded;
	struct pmuvm_result r;
	unsigned long long pmis, pending, samples;
	const char *hdr;

	REQUIRE_KVM();
	snprintf(ppath, sizeof(ppath), "%s", tmp_path("sample.profile"));
	snprintf(fpath, sizeof(fpath), "%s", tmp_path("sample.folded"));
	pmuvm_run(&r, "--timeout", "20", "--profile", ppath, "--profile-folded", fpath,
		  guest_path("pmu_sample"));
	expect_guest_pass(&r, "pmu_sample --profile");
	pmis = out_value(r.out, "pmu_sample: elapsed_tsc=", "pmis");
	pending = out_value(r.out, "pmu_sample: elapsed_tsc=", "pending");

	table = read_file_str(ppath);
	folded = read_file_str(fpath);
	ck_assert_ptr_nonnull(table);
	ck_assert_ptr_nonnull(folded);
	/*
	 * Every overflow pmuvm delivered is one sample: the guest's PMIs, and
	 * one it had no chance to take (pending at the loop's UD2 back to CPL0).
	 */
	hdr = strstr(table, ": ");
	ck_assert_ptr_nonnull(hdr);
	samples = strtoull(hdr + 2, NULL, 10);
	ck_assert_uint_eq(samples, pmis + pending);
	expect_hottest(table, "user_spin");
	/* Every sample the guest took interrupted user_spin (it checked each RIP). */
	ck_assert_uint_eq(folded_count_with(folded, "user_spin"), pmis);
	free(table);
	free(folded);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *pmu_suite(void)
{
	Suite *s = suite_create("pmu");
	TCase *tc = tcase_create("guests");

	tcase_set_tags(tc, TEST_TAG_TIMING);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pmu_sample);
	tcase_add_test(tc, test_pmu_sample_os);
	tcase_add_test(tc, test_cycles_cpl);
	tcase_add_loop_test(tc, test_pmu_overflow, 0,
			    (int)(sizeof(overflow_versions) / sizeof(overflow_versions[0])));
	tcase_add_test(tc, test_pmu_smp);
	tcase_add_test(tc, test_profile_end_to_end);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pmu_suite)
