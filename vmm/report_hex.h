/*
 * Register values, masks and guest addresses in the report are strings of
 * lower-case hex digits after "0x", as the SDM and APM write them; counts
 * stay JSON integers (docs/report.md).
 */
#ifndef PMUVM_REPORT_HEX_H
#define PMUVM_REPORT_HEX_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

static inline json_object *report_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

#endif
