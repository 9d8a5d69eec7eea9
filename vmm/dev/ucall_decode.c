/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Decoding a ucall message (include/pmuvm/ucall.h) that a guest wrote: it
 * may be garbage, so every field is checked against the protocol before
 * anything is believed, and the strings are made safe to print.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dev/ucall.h"

static const char *const kind_names[] = {
	[UCALL_KIND_OK] = "ok",
	[UCALL_KIND_FAIL] = "fail",
	[UCALL_KIND_VALUE] = "value",
	[UCALL_KIND_DONE] = "done",
	[UCALL_KIND_INVALID] = "invalid",
};

const char *ucall_kind_name(enum ucall_kind kind)
{
	return (unsigned int)kind < sizeof(kind_names) / sizeof(kind_names[0]) ?
		kind_names[kind] : "invalid";
}

__attribute__((format(printf, 2, 3)))
static int ucall_reject(struct ucall_result *res, const char *fmt, ...)
{
	va_list ap;

	res->kind = UCALL_KIND_INVALID;
	va_start(ap, fmt);
	vsnprintf(res->invalid, sizeof(res->invalid), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Copies a field that must hold its NUL; false if it does not. */
static bool ucall_copy_str(char *dst, const char *src, size_t len)
{
	size_t i;

	if (!memchr(src, '\0', len))
		return false;
	for (i = 0; src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c >= 0x20 && c <= 0x7e ? (char)c : '?';
	}
	dst[i] = '\0';
	return true;
}

int ucall_decode(const struct ucall_msg *msg, struct ucall_result *res)
{
	res->line = 0;
	res->nr_values = 0;
	res->file[0] = res->text[0] = res->invalid[0] = '\0';
	if (msg->magic != UCALL_MAGIC)
		return ucall_reject(res, "bad magic 0x%08x", msg->magic);
	switch (msg->cmd) {
	case UCALL_CMD_OK:	res->kind = UCALL_KIND_OK; break;
	case UCALL_CMD_FAIL:	res->kind = UCALL_KIND_FAIL; break;
	case UCALL_CMD_VALUE:	res->kind = UCALL_KIND_VALUE; break;
	case UCALL_CMD_DONE:	res->kind = UCALL_KIND_DONE; break;
	default:
		return ucall_reject(res, "unknown command 0x%x", msg->cmd);
	}
	if (msg->nr_values > UCALL_MAX_VALUES)
		return ucall_reject(res, "%u values (at most %u)", msg->nr_values,
				    UCALL_MAX_VALUES);
	if (!ucall_copy_str(res->file, msg->file, sizeof(msg->file)))
		return ucall_reject(res, "file name without its NUL");
	if (!ucall_copy_str(res->text, msg->text, sizeof(msg->text)))
		return ucall_reject(res, "text without its NUL");
	if ((res->kind == UCALL_KIND_OK || res->kind == UCALL_KIND_VALUE) && !res->text[0])
		return ucall_reject(res, "%s without a name", ucall_kind_name(res->kind));
	if (res->kind == UCALL_KIND_VALUE && !msg->nr_values)
		return ucall_reject(res, "value without values");
	if (res->kind == UCALL_KIND_DONE && msg->nr_values != 1)
		return ucall_reject(res, "done with %u values (wants 1)", msg->nr_values);
	res->line = msg->line;
	res->nr_values = msg->nr_values;
	memcpy(res->values, msg->values, sizeof(res->values));
	return 0;
}

/* snprintf at *n in buf, which stays NUL-terminated; *n counts what did not fit too. */
__attribute__((format(printf, 4, 5)))
static void ucall_append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

int ucall_format(const struct ucall_result *res, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	switch (res->kind) {
	case UCALL_KIND_OK:
		ucall_append(buf, len, &n, "ok - %s", res->text);
		break;
	case UCALL_KIND_FAIL:
		ucall_append(buf, len, &n, "FAIL %s:%u: %s", res->file, res->line, res->text);
		for (i = 0; i < res->nr_values; i++)
			ucall_append(buf, len, &n, "%s0x%llx", i ? ", " : " (",
				     (unsigned long long)res->values[i]);
		if (res->nr_values)
			ucall_append(buf, len, &n, ")");
		break;
	case UCALL_KIND_VALUE:
		ucall_append(buf, len, &n, "value %s =", res->text);
		for (i = 0; i < res->nr_values; i++)
			ucall_append(buf, len, &n, "%s0x%llx", i ? ", " : " ",
				     (unsigned long long)res->values[i]);
		break;
	case UCALL_KIND_DONE:
		ucall_append(buf, len, &n, "done, main returned %lld", (long long)res->values[0]);
		break;
	case UCALL_KIND_INVALID:
	default:
		ucall_append(buf, len, &n, "invalid ucall from vCPU %d: %s", res->vcpu,
			     res->invalid);
		if (res->has_gpa)
			ucall_append(buf, len, &n, " (message at 0x%llx)",
				     (unsigned long long)res->gpa);
		break;
	}
	return (int)n;
}
