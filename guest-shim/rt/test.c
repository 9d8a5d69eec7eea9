/* SPDX-License-Identifier: MIT */
/*
 * Verdicts of GUEST_ASSERT() and friends (rt/test.h): each is printed on the
 * console, as a reader or QEMU sees it, and sent to pmuvm as a ucall.
 */
#include <stdarg.h>
#include <rt/exit.h>
#include <rt/printf.h>
#include <rt/test.h>
#include <rt/ucall.h>

void __guest_fail(const char *file, int line, const char *expr, unsigned int nr_values,
		  const uint64_t *values, const char *fmt, ...)
{
	char msg[UCALL_TEXT_LEN];
	va_list ap;

	/* One printf, so the line cannot interleave with another CPU's. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("FAIL %s:%d: %s\n", file, line, msg);
	ucall_fail(file, line, expr ? expr : msg, nr_values, values);
	rt_exit(RT_EXIT_FAIL);
}

void test_ok(const char *name)
{
	printf("ok - %s\n", name);
	ucall_ok(name);
}

void test_value(const char *name, uint64_t value)
{
	printf("value %s = %llu\n", name, (unsigned long long)value);
	ucall_value(name, 1, &value);
}
