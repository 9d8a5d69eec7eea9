/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A guest's results in a pmuvm report: the "guest" object that the ucalls
 * of the guest runtime fill (docs/guest-sdk.md, "Guest results (ucall)"),
 * looked up and put into words for Check failure messages.
 */
#ifndef TESTS_GUEST_RESULTS_H
#define TESTS_GUEST_RESULTS_H

#include <json-c/json.h>
#include <stddef.h>

/* report's "guest.results" array, or NULL (no report, or no such key). */
json_object *guest_results(json_object *report);

/* The first result of `kind` ("ok", "fail", "value", "done", "invalid") named `name` (NULL: any). */
json_object *guest_results_find(json_object *report, const char *kind, const char *name);

/* How many results of `kind` there are. */
size_t guest_results_count(json_object *report, const char *kind);

/* One result as a line, e.g. "FAIL tests/guests/x.c:12: a == b (0x2, 0x3) on vCPU 0". */
void guest_result_describe(json_object *res, char *buf, size_t len);

/* Every result, one line each, cut at len. */
void guest_results_describe(json_object *report, char *buf, size_t len);

/*
 * NULL if the results say the guest passed: main() returned 0 (its "done"
 * result), no assertion failed and no ucall was invalid. Else why not,
 * written to buf, the first failed assertion with its file:line,
 * expression and values.
 */
const char *guest_results_why_not(json_object *report, char *buf, size_t len);

#endif
