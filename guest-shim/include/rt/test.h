/* SPDX-License-Identifier: MIT */
/*
 * Guest test harness.  A test guest defines int main(void): 0 means pass
 * (the runtime prints "PASS" and exits with code 0 -> VMM status 1), any
 * other value fails (code 1 -> status 3).  Assertions fail immediately.
 *
 * Every verdict is printed on the console and also sent to pmuvm as a
 * ucall (rt/ucall.h, docs/guest-sdk.md "Guest results (ucall)"), which the
 * report lists and the system tests check: test_ok("name") prints
 * "ok - name", a failed assertion "FAIL file:line: ..." with the expression
 * and its operands, GUEST_VALUE("name", v) "value name = v", and main()'s
 * return is a "done" ucall.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stdint.h>
#include <rt/exit.h>
#include <rt/printf.h>

/*
 * expr: what pmuvm reports as the failed expression (NULL: the formatted
 * message); values: its operands.  Prints "FAIL file:line: <message>".
 */
__attribute__((noreturn, format(printf, 6, 7)))
void __guest_fail(const char *file, int line, const char *expr, unsigned int nr_values,
		  const uint64_t *values, const char *fmt, ...);

#define GUEST_ASSERT(cond)						\
	do {								\
		if (!(cond))						\
			__guest_fail(__FILE__, __LINE__, #cond, 0, NULL,\
				     "%s", #cond);			\
	} while (0)

#define GUEST_ASSERT_EQ(a, b)						\
	do {								\
		unsigned long long __a = (unsigned long long)(a);	\
		unsigned long long __b = (unsigned long long)(b);	\
		if (__a != __b)						\
			__guest_fail(__FILE__, __LINE__, #a " == " #b, 2,\
				     (const uint64_t[]){ __a, __b },	\
				     "%s == %s: 0x%llx != 0x%llx",	\
				     #a, #b, __a, __b);			\
	} while (0)

/* Fail with a message of your own. */
#define GUEST_FAIL(fmt, ...)						\
	__guest_fail(__FILE__, __LINE__, NULL, 0, NULL, fmt, ##__VA_ARGS__)

/* A named check passed: prints "ok - NAME". */
void test_ok(const char *name);

/* A named value for the host: prints "value NAME = N"; GUEST_VALUE("name", v). */
void test_value(const char *name, uint64_t value);
#define GUEST_VALUE(name, v)	test_value((name), (uint64_t)(v))

#endif
