/* SPDX-License-Identifier: GPL-2.0-only */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "guest_results.h"

json_object *guest_results(json_object *report)
{
	json_object *guest, *results;

	if (!report || !json_object_object_get_ex(report, "guest", &guest) ||
	    !json_object_object_get_ex(guest, "results", &results) ||
	    !json_object_is_type(results, json_type_array))
		return NULL;
	return results;
}

static const char *field_str(json_object *res, const char *key)
{
	const char *s = json_object_get_string(json_object_object_get(res, key));

	return s ? s : "(none)";
}

json_object *guest_results_find(json_object *report, const char *kind, const char *name)
{
	json_object *results = guest_results(report);
	size_t i, n = results ? json_object_array_length(results) : 0;

	for (i = 0; i < n; i++) {
		json_object *res = json_object_array_get_idx(results, i);

		if (!strcmp(field_str(res, "kind"), kind) &&
		    (!name || !strcmp(field_str(res, "name"), name)))
			return res;
	}
	return NULL;
}

size_t guest_results_count(json_object *report, const char *kind)
{
	json_object *results = guest_results(report);
	size_t i, n = results ? json_object_array_length(results) : 0, count = 0;

	for (i = 0; i < n; i++)
		count += !strcmp(field_str(json_object_array_get_idx(results, i), "kind"), kind);
	return count;
}

/* snprintf at *n; *n may pass len (then nothing more is written). */
__attribute__((format(printf, 4, 5)))
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

static void append_values(char *buf, size_t len, size_t *n, json_object *res)
{
	json_object *v = json_object_object_get(res, "values");
	size_t i, nr = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;

	for (i = 0; i < nr; i++)
		append(buf, len, n, "%s0x%" PRIx64, i ? ", " : "",
		       json_object_get_uint64(json_object_array_get_idx(v, i)));
}

void guest_result_describe(json_object *res, char *buf, size_t len)
{
	const char *kind = field_str(res, "kind");
	json_object *values = json_object_object_get(res, "values");
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	if (!strcmp(kind, "ok")) {
		append(buf, len, &n, "ok - %s", field_str(res, "name"));
	} else if (!strcmp(kind, "fail")) {
		append(buf, len, &n, "FAIL %s:%d: %s", field_str(res, "file"),
		       json_object_get_int(json_object_object_get(res, "line")),
		       field_str(res, "expr"));
		if (values && json_object_array_length(values)) {
			append(buf, len, &n, " (");
			append_values(buf, len, &n, res);
			append(buf, len, &n, ")");
		}
	} else if (!strcmp(kind, "value")) {
		append(buf, len, &n, "value %s = ", field_str(res, "name"));
		append_values(buf, len, &n, res);
	} else if (!strcmp(kind, "done")) {
		append(buf, len, &n, "done: main() returned %" PRId64,
		       json_object_get_int64(json_object_object_get(res, "status")));
	} else {
		append(buf, len, &n, "%s: %s", kind, field_str(res, "reason"));
		if (json_object_object_get(res, "gpa"))	/* "0x..." (docs/report.md) */
			append(buf, len, &n, " (message at %s)", field_str(res, "gpa"));
	}
	append(buf, len, &n, " on vCPU %d", json_object_get_int(json_object_object_get(res, "vcpu")));
}

void guest_results_describe(json_object *report, char *buf, size_t len)
{
	json_object *results = guest_results(report);
	size_t i, nr = results ? json_object_array_length(results) : 0, n = 0;
	char line[1024];

	if (len)
		buf[0] = '\0';
	if (!nr)
		append(buf, len, &n, "  (no results)\n");
	for (i = 0; i < nr; i++) {
		guest_result_describe(json_object_array_get_idx(results, i), line, sizeof(line));
		append(buf, len, &n, "  %s\n", line);
	}
}

const char *guest_results_why_not(json_object *report, char *buf, size_t len)
{
	json_object *res, *done;
	char line[1024];
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	if (!report) {
		append(buf, len, &n, "pmuvm wrote no report");
		return buf;
	}
	if (!guest_results(report)) {
		append(buf, len, &n, "the report has no guest.results");
		return buf;
	}
	if ((res = guest_results_find(report, "fail", NULL))) {
		guest_result_describe(res, line, sizeof(line));
		append(buf, len, &n, "guest assertion failed: %s", line);
		return buf;
	}
	if ((res = guest_results_find(report, "invalid", NULL))) {
		guest_result_describe(res, line, sizeof(line));
		append(buf, len, &n, "invalid ucall: %s", line);
		return buf;
	}
	done = guest_results_find(report, "done", NULL);
	if (!done) {
		append(buf, len, &n, "the guest did not report main()'s return (no \"done\" result); "
		       "its results:\n");
		guest_results_describe(report, n < len ? buf + n : NULL, n < len ? len - n : 0);
		return buf;
	}
	if (json_object_get_int64(json_object_object_get(done, "status")) != 0) {
		guest_result_describe(done, line, sizeof(line));
		append(buf, len, &n, "%s", line);
		return buf;
	}
	return NULL;
}
