/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ucall port (include/pmuvm/ucall.h, docs/guest-sdk.md):
 * a guest OUTs the guest-physical address of a message; pmuvm copies it out
 * of guest RAM, decodes it, prints it and keeps it for the report. Any guest
 * can write anything here, so an address outside RAM, a wrong access width
 * or a garbage message is one more invalid result with a warning, never a
 * read outside guest RAM or a stop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/devices.h"
#include "dev/ucall.h"
#include "exitcode.h"
#include "machine/vm.h"
#include "log.h"

int ucall_read(const struct guest_mem *mem, uint64_t gpa, struct ucall_msg *msg)
{
	const void *p = guest_mem_ptr(mem, gpa, sizeof(*msg));

	if (!p)
		return -EFAULT;
	/* One copy first: another vCPU may rewrite the message while it is decoded. */
	memcpy(msg, p, sizeof(*msg));
	return 0;
}

static void ucall_print(struct ucall_log *log, const struct ucall_result *res)
{
	char line[UCALL_FILE_LEN + UCALL_TEXT_LEN + 160];
	bool warn = false, last = false;

	if (res->kind == UCALL_KIND_INVALID) {
		pthread_mutex_lock(&log->lock);
		if (log->warned <= UCALL_WARN_MAX) {
			warn = log->warned < UCALL_WARN_MAX;
			last = log->warned == UCALL_WARN_MAX;
			log->warned++;
		}
		pthread_mutex_unlock(&log->lock);
		if (last)
			pr_warn("guest: more invalid ucalls; further ones are only counted "
				"(report: guest.invalid)");
		if (!warn)
			return;
	}
	ucall_format(res, line, sizeof(line));
	if (warn)
		pr_warn("guest: %s", line);
	else if (res->kind == UCALL_KIND_FAIL)
		pr_err("guest: %s", line);
	else
		pr_info("guest: %s", line);
}

void ucall_handle(struct ucall_log *log, const struct guest_mem *mem, int vcpu,
		  uint16_t offset, unsigned int size, uint32_t value)
{
	struct ucall_result res = { .vcpu = vcpu };
	struct ucall_msg msg;

	if (offset != 0 || size != 4) {
		res.kind = UCALL_KIND_INVALID;
		snprintf(res.invalid, sizeof(res.invalid),
			 "a %u-byte OUT to port 0x%x (a ucall is one 4-byte OUT to 0x%x)",
			 size, UCALL_PORT + offset, UCALL_PORT);
	} else {
		res.gpa = value;
		res.has_gpa = true;
		if (!ucall_read(mem, value, &msg)) {
			ucall_decode(&msg, &res);
		} else {
			res.kind = UCALL_KIND_INVALID;
			snprintf(res.invalid, sizeof(res.invalid),
				 "the %zu-byte message is not all in guest RAM", sizeof(msg));
		}
	}
	ucall_log_add(log, &res);
	ucall_print(log, &res);
}

static void ucall_io(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
		     uint8_t *data, unsigned int size)
{
	if (!is_write) {
		/* Nothing to read: the port answers like one nobody claims. */
		memset(data, 0xff, size);
		return;
	}
	ucall_handle(opaque, &vcpu->vm->mem, vcpu->id, offset, size, pio_get(data, size));
}

int ucall_init(struct vm *vm)
{
	struct ucall_log *log = malloc(sizeof(*log));
	struct pio_device dev = {
		.name = "ucall", .base = UCALL_PORT, .len = UCALL_PORT_LEN, .io = ucall_io,
		.opaque = log,
	};

	if (!log) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	ucall_log_init(log, UCALL_LOG_MAX);
	vm->ucall = log;
	return pio_register(vm, &dev);
}

void ucall_exit(struct vm *vm)
{
	if (!vm->ucall)
		return;
	ucall_log_free(vm->ucall);
	free(vm->ucall);
	vm->ucall = NULL;
}
