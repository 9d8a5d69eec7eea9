/* SPDX-License-Identifier: GPL-2.0-only */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

void expect_guest_pass(const struct pmuvm_result *r, const char *what)
{
	char why[4096];
	const char *no = guest_results_why_not(r->report, why, sizeof(why));

	ck_assert_msg(!no, "%s: %s\nexit status %d\nstderr:\n%s\nstdout:\n%s", what, no,
		      r->status, r->err, r->out);
	ck_assert_msg(r->status == GUEST_PASS, "%s: the guest passed but pmuvm's status is %d\n"
		      "stderr:\n%s", what, r->status, r->err);
}

void expect_guest_ok(const struct pmuvm_result *r, const char *name)
{
	char all[4096];

	if (guest_results_find(r->report, "ok", name))
		return;
	guest_results_describe(r->report, all, sizeof(all));
	ck_abort_msg("no 'ok - %s' among the guest's results:\n%s", name, all);
}

uint64_t expect_guest_value(const struct pmuvm_result *r, const char *name, unsigned int idx)
{
	json_object *res = guest_results_find(r->report, "value", name), *v = NULL, *values;
	char all[4096];

	values = res ? json_object_object_get(res, "values") : NULL;
	if (json_object_is_type(values, json_type_array))
		v = json_object_array_get_idx(values, idx);
	if (!v) {
		guest_results_describe(r->report, all, sizeof(all));
		ck_abort_msg("no value %u of '%s' among the guest's results:\n%s", idx, name, all);
	}
	return json_object_get_uint64(v);
}

json_object *json_get(json_object *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		json_object *next = NULL;

		if (json_object_is_type(o, json_type_array))
			next = json_object_array_get_idx(o, (size_t)strtoul(tok, NULL, 10));
		else
			json_object_object_get_ex(o, tok, &next);
		ck_assert_msg(next, "JSON has no '%s' (at '%s')", path, tok);
		o = next;
	}
	return o;
}

uint64_t json_u64(json_object *o, const char *path)
{
	return json_object_get_uint64(json_get(o, path));
}

uint64_t json_hex(json_object *o, const char *path)
{
	const char *s = json_object_get_string(json_get(o, path));
	char *end = NULL;
	uint64_t v = 0;

	ck_assert_msg(json_object_is_type(json_get(o, path), json_type_string) &&
		      !strncmp(s, "0x", 2), "'%s' is not a hex string: %s", path, s);
	errno = 0;
	v = strtoull(s + 2, &end, 16);
	ck_assert_msg(end != s + 2 && !*end && !errno, "'%s' is not a hex string: %s", path, s);
	return v;
}

json_object *report_load(const char *path)
{
	json_object *root = json_object_from_file(path);

	ck_assert_msg(root, "report %s missing or not JSON", path);
	return root;
}
