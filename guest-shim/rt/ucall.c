/* SPDX-License-Identifier: MIT */
/*
 * Guest side of the ucall protocol (rt/ucall.h, include/pmuvm/ucall.h):
 * fills a message and OUTs its address. Strings too long for their field
 * are cut, never left without their NUL (pmuvm rejects those).
 */
#include <stdint.h>
#include <rt/string.h>
#include <rt/ucall.h>

void ucall_out(uint32_t gpa)
{
	/* "memory": the message must be in RAM before pmuvm reads it. */
	asm volatile("outl %0, %1" : : "a"(gpa), "Nd"((uint16_t)UCALL_PORT) : "memory");
}

void ucall_send(const struct ucall_msg *msg)
{
	/* Below 4 GiB (pmuvm/ucall.h): the runtime's stacks and data are. */
	ucall_out((uint32_t)(uintptr_t)msg);
}

void ucall_msg_init(struct ucall_msg *msg, uint32_t cmd)
{
	memset(msg, 0, sizeof(*msg));
	msg->magic = UCALL_MAGIC;
	msg->cmd = cmd;
}

static void ucall_copy(char *dst, const char *src, size_t len)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

static void ucall_set_values(struct ucall_msg *msg, unsigned int nr, const uint64_t *values)
{
	unsigned int i;

	if (nr > UCALL_MAX_VALUES)
		nr = UCALL_MAX_VALUES;
	for (i = 0; i < nr; i++)
		msg->values[i] = values[i];
	msg->nr_values = nr;
}

void ucall_ok(const char *name)
{
	struct ucall_msg msg;

	ucall_msg_init(&msg, UCALL_CMD_OK);
	ucall_copy(msg.text, name, sizeof(msg.text));
	ucall_send(&msg);
}

void ucall_fail(const char *file, int line, const char *text, unsigned int nr_values,
		const uint64_t *values)
{
	struct ucall_msg msg;

	ucall_msg_init(&msg, UCALL_CMD_FAIL);
	ucall_copy(msg.file, file, sizeof(msg.file));
	msg.line = (uint32_t)line;
	ucall_copy(msg.text, text, sizeof(msg.text));
	ucall_set_values(&msg, nr_values, values);
	ucall_send(&msg);
}

void ucall_value(const char *name, unsigned int nr_values, const uint64_t *values)
{
	struct ucall_msg msg;

	ucall_msg_init(&msg, UCALL_CMD_VALUE);
	ucall_copy(msg.text, name, sizeof(msg.text));
	ucall_set_values(&msg, nr_values, values);
	ucall_send(&msg);
}

void ucall_done(int main_ret)
{
	struct ucall_msg msg;

	ucall_msg_init(&msg, UCALL_CMD_DONE);
	msg.values[0] = (uint64_t)(int64_t)main_ret;
	msg.nr_values = 1;
	ucall_send(&msg);
}
