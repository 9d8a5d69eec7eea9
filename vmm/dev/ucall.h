/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest results through the ucall port (the protocol: include/pmuvm/ucall.h,
 * docs/guest-sdk.md): the decoder, the log of results the report
 * lists under "guest", and the port device.
 */
#ifndef PMUVM_DEV_UCALL_H
#define PMUVM_DEV_UCALL_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/guest_mem.h"
#include "pmuvm/ucall.h"

struct vm;

enum ucall_kind {
	UCALL_KIND_OK,
	UCALL_KIND_FAIL,
	UCALL_KIND_VALUE,
	UCALL_KIND_DONE,
	UCALL_KIND_INVALID,
};

/* One ucall as decoded; strings are always NUL-terminated printable ASCII. */
struct ucall_result {
	enum ucall_kind kind;
	int vcpu;
	bool has_gpa;			/* false: a bad access to the port, no message */
	uint64_t gpa;			/* where the message was */
	uint32_t line;
	uint32_t nr_values;
	uint64_t values[UCALL_MAX_VALUES];
	char file[UCALL_FILE_LEN];
	char text[UCALL_TEXT_LEN];
	char invalid[96];		/* UCALL_KIND_INVALID: why */
};

/*
 * Decodes a message already copied out of guest RAM: 0, or -EINVAL with
 * res->kind UCALL_KIND_INVALID and res->invalid saying why. Bytes outside
 * printable ASCII in the strings become '?', so that a guest cannot put
 * line breaks or terminal escapes into pmuvm's stderr or invalid UTF-8
 * into the report. res->vcpu and res->gpa are the caller's.
 */
int ucall_decode(const struct ucall_msg *msg, struct ucall_result *res);

/* The decoded line pmuvm prints after "pmuvm: guest: " (snprintf's return). */
int ucall_format(const struct ucall_result *res, char *buf, size_t len);

/* "ok", "fail", "value", "done", "invalid": the report's "kind". */
const char *ucall_kind_name(enum ucall_kind kind);

/* Every result of a run, in arrival order, for the report. Thread-safe. */
#define UCALL_LOG_MAX		4096	/* results kept; later ones are counted */
#define UCALL_WARN_MAX		8	/* invalid ucalls warned about one by one */

struct ucall_log {
	pthread_mutex_t lock;
	struct ucall_result *results;
	unsigned int nr, cap, max;
	uint64_t received;		/* every ucall, invalid ones included */
	uint64_t invalid;
	uint64_t dropped;		/* not kept: more than max */
	unsigned int warned;		/* invalid ones warned about */
};

void ucall_log_init(struct ucall_log *log, unsigned int max);
void ucall_log_free(struct ucall_log *log);
/* Counts res and keeps it: 0, or -ENOSPC (full: counted as dropped) or -ENOMEM. */
int ucall_log_add(struct ucall_log *log, const struct ucall_result *res);
/* The report's "guest" object (docs/report.md): counts and "results". */
json_object *ucall_log_json(struct ucall_log *log);

/*
 * One access to the ucall port: a 32-bit OUT at offset 0 carries the
 * message's address in `value`; anything else is an invalid ucall. Reads
 * the message from `mem` (never outside its RAM regions), logs the result
 * and prints its line: failures always, invalid ones as warnings (the first
 * UCALL_WARN_MAX, then one line saying the rest are only counted), the
 * others with -v.
 */
void ucall_handle(struct ucall_log *log, const struct guest_mem *mem, int vcpu,
		  uint16_t offset, unsigned int size, uint32_t value);

/* Copies the message at gpa out of guest RAM: 0, or -EFAULT if not all RAM. */
int ucall_read(const struct guest_mem *mem, uint64_t gpa, struct ucall_msg *msg);

/* The device (vmm/dev/pio.c's table): 0 or a PMUVM_EXIT_* code. */
int ucall_init(struct vm *vm);
void ucall_exit(struct vm *vm);

#endif
