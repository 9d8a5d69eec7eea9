/* Assertions the system tests share (Check): guest verdicts and report lookups. */
#ifndef TESTS_EXPECT_H
#define TESTS_EXPECT_H

#include <json-c/json.h>
#include <stdint.h>

#include "pmuvm_run.h"

/* pmuvm exit status of a guest whose main() returned 0: (0 << 1) | 1. */
#define GUEST_PASS	1

/* The guest passed: status GUEST_PASS and a "PASS" line; `what` names the run. */
void expect_guest_pass(const struct pmuvm_result *r, const char *what);

/* stdout has the line "ok - NAME" (rt/test.h test_ok()). */
void expect_guest_ok(const struct pmuvm_result *r, const char *name);

/* The value at a dotted path ("vcpus.0.pmu.gp"; numbers index arrays); fails if absent. */
json_object *json_get(json_object *o, const char *path);
uint64_t json_u64(json_object *o, const char *path);

/* The --report file, parsed; fails the test if it is missing or not JSON. */
json_object *report_load(const char *path);

#endif
