/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The results a guest reported through ucalls, in arrival order, and their
 * JSON for the report's "guest" object (docs/report.md).
 * Bounded: a guest that loops on ucalls cannot make pmuvm grow without end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/ucall.h"
#include "report_json.h"

void ucall_log_init(struct ucall_log *log, unsigned int max)
{
	memset(log, 0, sizeof(*log));
	pthread_mutex_init(&log->lock, NULL);
	log->max = max;
}

void ucall_log_free(struct ucall_log *log)
{
	free(log->results);
	log->results = NULL;
	log->nr = log->cap = 0;
	pthread_mutex_destroy(&log->lock);
}

int ucall_log_add(struct ucall_log *log, const struct ucall_result *res)
{
	int r = 0;

	pthread_mutex_lock(&log->lock);
	log->received++;
	if (res->kind == UCALL_KIND_INVALID)
		log->invalid++;
	if (log->nr == log->max) {
		r = -ENOSPC;
	} else if (log->nr == log->cap) {
		unsigned int ncap = log->cap ? log->cap * 2 : 16;
		struct ucall_result *n;

		if (ncap > log->max)
			ncap = log->max;
		n = realloc(log->results, (size_t)ncap * sizeof(*n));
		if (!n) {
			r = -ENOMEM;
		} else {
			log->results = n;
			log->cap = ncap;
		}
	}
	if (r)
		log->dropped++;
	else
		log->results[log->nr++] = *res;
	pthread_mutex_unlock(&log->lock);
	return r;
}

static json_object *ucall_values_json(const struct ucall_result *res)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < res->nr_values; i++)
		json_object_array_add(a, json_object_new_uint64(res->values[i]));
	return a;
}

static json_object *ucall_result_json(const struct ucall_result *res)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(ucall_kind_name(res->kind)));
	json_object_object_add(o, "vcpu", json_object_new_int(res->vcpu));
	switch (res->kind) {
	case UCALL_KIND_OK:
		json_object_object_add(o, "name", json_object_new_string(res->text));
		break;
	case UCALL_KIND_FAIL:
		json_object_object_add(o, "file", json_object_new_string(res->file));
		json_object_object_add(o, "line", json_object_new_uint64(res->line));
		json_object_object_add(o, "expr", json_object_new_string(res->text));
		json_object_object_add(o, "values", ucall_values_json(res));
		break;
	case UCALL_KIND_VALUE:
		json_object_object_add(o, "name", json_object_new_string(res->text));
		json_object_object_add(o, "values", ucall_values_json(res));
		break;
	case UCALL_KIND_DONE:
		json_object_object_add(o, "status", json_object_new_int64((int64_t)res->values[0]));
		break;
	case UCALL_KIND_INVALID:
	default:
		json_object_object_add(o, "gpa", res->has_gpa ? report_hex(res->gpa) : NULL);
		json_object_object_add(o, "reason", json_object_new_string(res->invalid));
		break;
	}
	return o;
}

json_object *ucall_log_json(struct ucall_log *log)
{
	static struct ucall_log none;	/* no device (pmuvm stopped before): all zero */
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	unsigned int i;

	if (log)
		pthread_mutex_lock(&log->lock);
	else
		log = &none;
	json_object_object_add(o, "ucalls", json_object_new_uint64(log->received));
	json_object_object_add(o, "invalid", json_object_new_uint64(log->invalid));
	json_object_object_add(o, "dropped", json_object_new_uint64(log->dropped));
	for (i = 0; i < log->nr; i++)
		json_object_array_add(a, ucall_result_json(&log->results[i]));
	if (log != &none)
		pthread_mutex_unlock(&log->lock);
	json_object_object_add(o, "results", a);
	return o;
}
