/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PEBS end to end: the pebs_records guest checks enumeration,
 * records of a known CPL0 instruction stream field by field, the threshold
 * PMI and the absolute-maximum skip from inside, for each record format;
 * here the report must count every record and every dropped one, and pmuvm
 * must have kept running through DS pointers at MMIO, beyond RAM, unmapped
 * and non-canonical addresses.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

static const char *const ok_lines[] = {
	"pebs enumeration", "pebs records", "pebs threshold pmi", "pebs absolute maximum",
	"pebs bad pointers",
};

static uint64_t rep_u64(json_object *root, const char *vcpu_key, const char *key)
{
	json_object *vcpus, *v, *o, *x;

	ck_assert(json_object_object_get_ex(root, "vcpus", &vcpus));
	v = json_object_array_get_idx(vcpus, 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_msg(json_object_object_get_ex(v, vcpu_key, &o), "no vcpus.0.%s", vcpu_key);
	ck_assert_msg(json_object_object_get_ex(o, key, &x), "no vcpus.0.%s.%s", vcpu_key, key);
	return json_object_get_uint64(x);
}

START_TEST(test_pebs_formats)
{
	const char *fmt = _i == 3 ? "3" : _i == 4 ? "4" : "5";
	const char *rep = tmp_path("pebs.json");
	char append[16], what[32];
	struct pmuvm_result r;
	json_object *root, *cfg, *pmu, *f;
	/*
	 * 3 records with groups, 3 basic-only and 3 with LBR entries (formats
	 * 4/5), 3 to the threshold, 2 to the maximum.
	 */
	uint64_t records = _i == 3 ? 8 : 14;

	REQUIRE_KVM();
	snprintf(append, sizeof(append), "fmt=%s", fmt);
	pmuvm_run(&r, "--mem", "64M", "--pebs-format", fmt, "--append", append, "--report", rep,
		  "--timeout", "60", guest_path("pebs_records"));
	snprintf(what, sizeof(what), "format %s", fmt);
	expect_guest_pass(&r, what);
	for (size_t i = 0; i < sizeof(ok_lines) / sizeof(ok_lines[0]); i++)
		expect_guest_ok(&r, ok_lines[i]);
	if (_i >= 4) {
		expect_guest_ok(&r, "pebs basic records");
		expect_guest_ok(&r, "pebs records with LBRs");
	}
	/* Said once, not per record. */
	ck_assert_msg(strstr(r.err, "PEBS record dropped"), "no drop warning:\n%s", r.err);
	ck_assert_ptr_null(strstr(strstr(r.err, "PEBS record dropped") + 1, "PEBS record dropped"));

	root = json_object_from_file(rep);
	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "config", &cfg));
	ck_assert(json_object_object_get_ex(cfg, "pmu", &pmu));
	ck_assert(json_object_object_get_ex(pmu, "pebs_format", &f));
	ck_assert_uint_eq(json_object_get_uint64(f), (uint64_t)_i);
	ck_assert_uint_eq(rep_u64(root, "pebs", "records"), records);
	ck_assert_uint_eq(rep_u64(root, "pebs", "skipped_full"), 1);
	ck_assert_uint_eq(rep_u64(root, "pebs", "threshold_pmis"), 1);
	/* DS areas: LAPIC and beyond RAM, above the identity map; buffers: the same and non-canonical. */
	ck_assert_uint_eq(rep_u64(root, "pebs", "dropped_not_ram"), 4);
	ck_assert_uint_eq(rep_u64(root, "pebs", "dropped_unmapped"), 2);
	ck_assert_uint_eq(rep_u64(root, "pebs", "dropped_noncanonical"), 1);
	ck_assert_uint_eq(rep_u64(root, "pebs", "assists"), records + 1 + 7);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/* --pebs off: no PEBS format, PEBS_UNAVAILABLE set, the PEBS MSRs #GP (pmu_msr checks that). */
START_TEST(test_pebs_off_report)
{
	const char *rep = tmp_path("pebs_off.json");
	struct pmuvm_result r;
	json_object *root, *cfg, *pmu, *f;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pebs", "off", "--report", rep, "--timeout", "30", guest_path("boot"));
	expect_guest_pass(&r, "--pebs off");
	root = json_object_from_file(rep);
	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "config", &cfg));
	ck_assert(json_object_object_get_ex(cfg, "pmu", &pmu));
	ck_assert(json_object_object_get_ex(pmu, "pebs_format", &f));
	ck_assert_uint_eq(json_object_get_uint64(f), 0);
	ck_assert_uint_eq(rep_u64(root, "pebs", "assists"), 0);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/* ntpmu's SystemProcessorProfileControlArea and PEBS reader. */
START_TEST(test_ntpmu_control_area)
{
	static const char *const oks[] = {
		"control area status codes", "pebs profile", "control area freed",
	};
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", guest_path("ntpmu_pebs"));
	expect_guest_pass(&r, "ntpmu_pebs");
	for (size_t i = 0; i < sizeof(oks) / sizeof(oks[0]); i++)
		expect_guest_ok(&r, oks[i]);
	ck_assert_msg(strstr(r.out, "ntpmu_pebs: 9 samples\n"), "%s", r.out);
	ck_assert_str_eq(r.err, "");
	pmuvm_result_free(&r);

	pmuvm_run(&r, "--pebs", "off", "--append", "nopebs=1", "--timeout", "60",
		  guest_path("ntpmu_pebs"));
	expect_guest_pass(&r, "ntpmu_pebs --pebs off");
	expect_guest_ok(&r, "control area not supported");
	pmuvm_result_free(&r);
}
END_TEST

/* The demo guest's PEBS profile: every sample in its two loops, most in the hot one. */
START_TEST(test_demo_profile)
{
	unsigned int add = 0, dec = 0, jnz = 0, cold = 0, other = 99;
	struct pmuvm_result r;
	const char *p;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", guest_path("demo"));
	expect_guest_pass(&r, "demo");
	p = strstr(r.out, "demo: pebs profile, instructions retired every 101");
	ck_assert_msg(p, "no profile:\n%s", r.out);
	ck_assert_msg(sscanf(strstr(p, "add esi, ebx"), "add esi, ebx %u", &add) == 1 &&
		      sscanf(strstr(p, "dec ebx"), "dec ebx %u", &dec) == 1 &&
		      sscanf(strstr(p, "jnz demo_hot"), "jnz demo_hot %u", &jnz) == 1 &&
		      sscanf(strstr(p, "cold loop"), "cold loop %u", &cold) == 1 &&
		      sscanf(strstr(p, "elsewhere"), "elsewhere %u", &other) == 1,
		      "unparsable profile:\n%s", p);
	/* 1200 hot instructions, 80 cold: 11 or 12 hot samples, at most 1 cold. */
	ck_assert_uint_ge(add + dec + jnz, 11);
	ck_assert_uint_le(cold, 1);
	ck_assert_uint_eq(other, 0);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *pebs_suite(void)
{
	Suite *s = suite_create("pebs");
	TCase *tc = tcase_create("guest");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_pebs_formats, 3, 6);
	tcase_add_test(tc, test_pebs_off_report);
	tcase_add_test(tc, test_ntpmu_control_area);
	tcase_add_test(tc, test_demo_profile);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pebs_suite)
