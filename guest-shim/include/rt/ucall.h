/* SPDX-License-Identifier: MIT */
/*
 * Structured results to pmuvm through the ucall port (include/pmuvm/ucall.h,
 * docs/guest-sdk.md "Guest results (ucall)"). rt/test.h's macros call these
 * and also print their usual lines, so a guest seldom calls them itself.
 *
 * Each call builds its message on the caller's stack and hands pmuvm its
 * address with one OUT: the identity map makes that address the
 * guest-physical one, and pmuvm has copied the message when the OUT
 * retires. CPL0 only (port I/O, like printf). Under QEMU the OUT does
 * nothing.
 */
#ifndef RT_UCALL_H
#define RT_UCALL_H

#include <stdint.h>
#include <pmuvm/ucall.h>

void ucall_ok(const char *name);
/* text: the failed expression or message; up to UCALL_MAX_VALUES values. */
void ucall_fail(const char *file, int line, const char *text, unsigned int nr_values,
		const uint64_t *values);
void ucall_value(const char *name, unsigned int nr_values, const uint64_t *values);
void ucall_done(int main_ret);

/* The raw protocol, for guests that test pmuvm's side of it (hostile ones). */
void ucall_msg_init(struct ucall_msg *msg, uint32_t cmd);
void ucall_send(const struct ucall_msg *msg);
void ucall_out(uint32_t gpa);

#endif
