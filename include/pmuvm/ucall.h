/* SPDX-License-Identifier: MIT */
/*
 * The ucall protocol: how a guest reports structured test results to pmuvm
 * (docs/guest-sdk.md, "Guest results (ucall)"), in the spirit of the
 * ucalls of Linux's KVM selftests. Shared by pmuvm and the freestanding
 * guest runtime, so only <stdint.h>-level C here.
 *
 * The guest fills a struct ucall_msg in its RAM and writes the message's
 * guest-physical address with one 32-bit OUT to UCALL_PORT; pmuvm copies
 * the message out of guest RAM during that exit, so the guest may reuse it
 * as soon as the OUT retires. The message must lie below 4 GiB (the OUT
 * carries 32 bits) and entirely inside guest RAM. Under QEMU nothing claims
 * the port and the OUT does nothing, which is why the runtime prints the
 * same results on the console as well.
 *
 * Layout (little-endian, no padding, 368 bytes):
 *
 *	offset	size	field
 *	0	4	magic		UCALL_MAGIC
 *	4	4	cmd		UCALL_CMD_*
 *	8	4	line		source line (UCALL_CMD_FAIL), else 0
 *	12	4	nr_values	values used, 0 to UCALL_MAX_VALUES
 *	16	32	values[4]	64-bit values
 *	48	64	file[64]	source file (UCALL_CMD_FAIL), NUL-terminated
 *	112	256	text[256]	NUL-terminated; what it holds depends on cmd
 *
 * Commands:
 *	UCALL_CMD_OK	a named check passed (test_ok()): text = its name
 *	UCALL_CMD_FAIL	an assertion failed: file, line, text = the expression
 *			or message, values = the operands (GUEST_ASSERT_EQ: 2)
 *	UCALL_CMD_VALUE	a named value (GUEST_VALUE()), also usable as a sync
 *			point: text = its name, values = its 1 to 4 values
 *	UCALL_CMD_DONE	main() returned: values[0] = its return value
 *
 * pmuvm rejects (counts as invalid, never acts on) a message that is not
 * entirely in guest RAM, has another magic, an unknown cmd, more than
 * UCALL_MAX_VALUES values, a string without its NUL inside its field, an
 * OK or VALUE without a name, or a DONE without exactly one value; and any
 * port access other than a 32-bit OUT to UCALL_PORT.
 */
#ifndef PMUVM_UCALL_H
#define PMUVM_UCALL_H

#include <stdint.h>

/*
 * Free on QEMU's pc machine and in pmuvm (vmm/dev/), and not one of the
 * unclaimed ports the hostile_io guest writes garbage to.
 */
#define UCALL_PORT		0x7e0
#define UCALL_PORT_LEN		4

/* The bytes 'u' 'c' 'a' '1' (protocol version 1) in memory order. */
#define UCALL_MAGIC		0x31616375u

#define UCALL_MAX_VALUES	4
#define UCALL_FILE_LEN		64
#define UCALL_TEXT_LEN		256

enum ucall_cmd {
	UCALL_CMD_OK = 1,
	UCALL_CMD_FAIL = 2,
	UCALL_CMD_VALUE = 3,
	UCALL_CMD_DONE = 4,
};

struct ucall_msg {
	uint32_t magic;
	uint32_t cmd;
	uint32_t line;
	uint32_t nr_values;
	uint64_t values[UCALL_MAX_VALUES];
	char file[UCALL_FILE_LEN];
	char text[UCALL_TEXT_LEN];
};

_Static_assert(sizeof(struct ucall_msg) == 368, "ucall_msg layout is the protocol");
_Static_assert(__builtin_offsetof(struct ucall_msg, values) == 16, "ucall_msg layout");
_Static_assert(__builtin_offsetof(struct ucall_msg, file) == 48, "ucall_msg layout");
_Static_assert(__builtin_offsetof(struct ucall_msg, text) == 112, "ucall_msg layout");

#endif
