/* SPDX-License-Identifier: GPL-2.0-only */
/* Assertions the system tests share (Check): guest verdicts and report lookups. */
#ifndef TESTS_EXPECT_H
#define TESTS_EXPECT_H

#include <json-c/json.h>
#include <stdint.h>

#include "guest_results.h"
#include "pmuvm_run.h"

/* pmuvm exit status of a guest whose main() returned 0: (0 << 1) | 1. */
#define GUEST_PASS	1

/*
 * The guest passed, by its ucall results in r->report (guest_results.h):
 * main() returned 0, no assertion failed, no ucall was invalid; and pmuvm's
 * status is GUEST_PASS. A failed assertion is shown with its file:line,
 * expression and values. `what` names the run.
 */
void expect_guest_pass(const struct pmuvm_result *r, const char *what);

/* The guest reported test_ok(NAME) (rt/test.h). */
void expect_guest_ok(const struct pmuvm_result *r, const char *name);

/* Value `idx` of the guest's GUEST_VALUE(NAME) (rt/test.h); fails if there is none. */
uint64_t expect_guest_value(const struct pmuvm_result *r, const char *name, unsigned int idx);

/* The value at a dotted path ("vcpus.0.pmu.gp"; numbers index arrays); fails if absent. */
json_object *json_get(json_object *o, const char *path);
uint64_t json_u64(json_object *o, const char *path);
/* A register value, mask or address: a "0x..." string (docs/report.md); fails otherwise. */
uint64_t json_hex(json_object *o, const char *path);

/*
 * The least share of cycle samples, in percent, that perf record of
 * tests/linux/hot.c with 200M iterations may give hot_function, where
 * hardware gives it nearly all: samples at the kernel's exits put
 * native_write_msr first (docs/counting.md, "Sampling on cycles").
 */
#define LINUX_HOT_SHARE_MIN	50.0

/* The --report file, parsed; fails the test if it is missing or not JSON. */
json_object *report_load(const char *path);

#endif
