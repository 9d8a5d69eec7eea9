/*
 * Check suites register themselves so each test binary's main() never names
 * them: a file ends with TEST_SUITE(name_suite) where name_suite() returns a Suite.
 */
#ifndef TESTS_SUITE_H
#define TESTS_SUITE_H

#include <check.h>

typedef Suite *(*test_suite_fn)(void);

void test_suite_register(test_suite_fn fn);

#define TEST_SUITE(fn)							\
	static void __attribute__((constructor)) register_##fn(void)	\
	{								\
		test_suite_register(fn);				\
	}

#endif
