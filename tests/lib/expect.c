#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

void expect_guest_pass(const struct pmuvm_result *r, const char *what)
{
	ck_assert_msg(r->status == GUEST_PASS, "%s: status %d\nstdout:\n%s\nstderr:\n%s", what,
		      r->status, r->out, r->err);
	ck_assert_msg(strstr(r->out, "PASS\n"), "%s: no PASS line:\n%s", what, r->out);
}

void expect_guest_ok(const struct pmuvm_result *r, const char *name)
{
	char line[256];

	snprintf(line, sizeof(line), "ok - %s\n", name);
	ck_assert_msg(strstr(r->out, line), "missing '%s' in:\n%s", name, r->out);
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

json_object *report_load(const char *path)
{
	json_object *root = json_object_from_file(path);

	ck_assert_msg(root, "report %s missing or not JSON", path);
	return root;
}
