/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --event-filter with a guest: the pmu_filter guest counts core cycles
 * (0x3c/0x00) on GP0 and fixed counter 1 and reference cycles (0x3c/0x01)
 * on GP1 and fixed counter 2; each filter below must let exactly the
 * expected ones count, and the report must list the filter.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

struct filter_case {
	const char *text;	/* NULL: no --event-filter */
	const char *expect;	/* --append for the guest */
	const char *action;
	const char *bitmap;
};

static const struct filter_case cases[] = {
	{ NULL, "gp0=1 gp1=1 fc1=1 fc2=1", NULL, NULL },
	/* Deny core cycles and fixed counter 1: reference cycles still count. */
	{ "action deny\nevent 0x3c 0x00\nfixed_counter_bitmap 0x2\n",
	  "gp0=0 gp1=1 fc1=0 fc2=1", "deny", "0x2" },
	/* Allow only core cycles and fixed counter 1. */
	{ "# core cycles only\naction allow\nevent 0x3c 0\nfixed_counter_bitmap 2\n",
	  "gp0=1 gp1=0 fc1=1 fc2=0", "allow", "0x2" },
	/* Masked: every 0x3c unit mask denied; the bitmap governs fixed counters alone. */
	{ "action deny\nmasked 0x3c 0x00 0x00\n", "gp0=0 gp1=0 fc1=1 fc2=1", "deny", "0x0" },
};

static const char *jstr(json_object *o, const char *key)
{
	json_object *x = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &x), "no '%s'", key);
	return json_object_get_string(x);
}

START_TEST(test_event_filter_guest)
{
	const struct filter_case *c = &cases[_i];
	char filter[512], report[512], append[128];
	json_object *root, *config, *ef = NULL;
	struct pmuvm_result r;

	REQUIRE_KVM();
	snprintf(filter, sizeof(filter), "%s", tmp_path("filter.txt"));
	snprintf(report, sizeof(report), "%s", tmp_path("filter.json"));
	snprintf(append, sizeof(append), "%s", c->expect);
	if (c->text) {
		ck_assert(write_file(filter, c->text, strlen(c->text)));
		pmuvm_run(&r, "--timeout", "30", "--event-filter", filter, "--report", report,
			  "--append", append, guest_path("pmu_filter"));
	} else {
		pmuvm_run(&r, "--timeout", "30", "--report", report, "--append", append,
			  guest_path("pmu_filter"));
	}
	expect_guest_pass(&r, c->expect);
	ck_assert_str_eq(r.err, "");

	root = json_object_from_file(report);
	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "config", &config));
	ck_assert(json_object_object_get_ex(config, "event_filter", &ef));
	if (!c->text) {
		ck_assert_ptr_null(ef);
	} else {
		ck_assert_ptr_nonnull(ef);
		ck_assert_str_eq(jstr(ef, "path"), filter);
		ck_assert_str_eq(jstr(ef, "action"), c->action);
		ck_assert_str_eq(jstr(ef, "fixed_counter_bitmap"), c->bitmap);
		ck_assert(strstr(jstr(ef, "events"), "\"event\": \"0x3c\"") ||
			  strstr(jstr(ef, "events"), "\"event\":\"0x3c\""));
	}
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *event_filter_suite(void)
{
	Suite *s = suite_create("event_filter_guest");
	TCase *tc = tcase_create("guest");

	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_event_filter_guest, 0, sizeof(cases) / sizeof(cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(event_filter_suite)
