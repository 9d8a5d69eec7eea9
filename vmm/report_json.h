/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report's values (docs/report.md): counts are JSON integers; register
 * values, masks and guest addresses are strings of lower-case hex digits
 * after "0x", as the SDM and APM write them.
 */
#ifndef PMUVM_REPORT_JSON_H
#define PMUVM_REPORT_JSON_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

static inline json_object *report_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static inline json_object *report_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

#endif
