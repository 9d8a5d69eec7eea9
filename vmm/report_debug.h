/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's debug part (report_debug.c, docs/report.md). */
#ifndef PMUVM_REPORT_DEBUG_H
#define PMUVM_REPORT_DEBUG_H

#include <json-c/json.h>

struct vcpu;
struct vm;

/* The top-level "debug" object. */
json_object *report_debug(const struct vm *vm);

/* A vCPU's "debug" object. */
json_object *report_vcpu_debug(const struct vcpu *vcpu);

#endif
