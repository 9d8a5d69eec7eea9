/*
 * Guest test harness.  A test guest defines int main(void): 0 means pass
 * (the runtime prints "PASS" and exits with code 0 -> VMM status 1), any
 * other value fails (code 1 -> status 3).  Assertions fail immediately.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <rt/exit.h>
#include <rt/printf.h>

__attribute__((noreturn, format(printf, 3, 4)))
void __guest_fail(const char *file, int line, const char *fmt, ...);

#define GUEST_ASSERT(cond)						\
	do {								\
		if (!(cond))						\
			__guest_fail(__FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define GUEST_ASSERT_EQ(a, b)						\
	do {								\
		unsigned long long __a = (unsigned long long)(a);	\
		unsigned long long __b = (unsigned long long)(b);	\
		if (__a != __b)						\
			__guest_fail(__FILE__, __LINE__,		\
				     "%s == %s: 0x%llx != 0x%llx",	\
				     #a, #b, __a, __b);			\
	} while (0)

/* Fail with a message of your own. */
#define GUEST_FAIL(fmt, ...)						\
	__guest_fail(__FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define test_ok(name)	printf("ok - %s\n", (name))

#endif
