/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Check suites register themselves so each test binary's main() never names
 * them: a file ends with TEST_SUITE(name_suite) where name_suite() returns a Suite.
 */
#ifndef TESTS_SUITE_H
#define TESTS_SUITE_H

#include <check.h>
#include <stdbool.h>

typedef Suite *(*test_suite_fn)(void);

void test_suite_register(test_suite_fn fn);

#define TEST_SUITE(fn)							\
	static void __attribute__((constructor)) register_##fn(void)	\
	{								\
		test_suite_register(fn);				\
	}

/*
 * Check tags (tcase_set_tags) by which scripts/run-tests.sh splits the
 * system tests among labs (tests/lab/README.md):
 * TEST_TAG_LINUX_BOOT and TEST_TAG_LINUX_RUN boot Linux, in a lab of their
 * own; TEST_TAG_LINUX_VMX boots Linux for the VMX lab's share, with
 * checks that a linux-boot test makes as well, so no SVM lab runs it;
 * TEST_TAG_KVM_NEUTRAL test pmuvm's own code above KVM (options,
 * outputs, guest results, filters, QEMU's runs, the benchmark hooks, the
 * guest shim's ETW and Perflib layers), whose outcome does not depend on the
 * kind of KVM, so the lab leaves them out where they ran on this machine's
 * KVM; TEST_TAG_TIMING hold checks that depend on the host's pace (PMI
 * floods and sampling against the wall clock), which the SVM lab runs with
 * no other lab beside it; TEST_TAG_ENGINE_CHOSEN pick their counting engine
 * on pmuvm's command line, so the runs of the exact suite under --exact
 * step leave them out: they would repeat the first run.
 */
#define TEST_TAG_LINUX_BOOT	"linux-boot"
#define TEST_TAG_LINUX_RUN	"linux-run"
#define TEST_TAG_LINUX_VMX	"linux-vmx"
#define TEST_TAG_KVM_NEUTRAL	"kvm-neutral"
#define TEST_TAG_TIMING		"timing"
#define TEST_TAG_ENGINE_CHOSEN	"engine-chosen"

/*
 * A test that cannot run here ends with TEST_SKIP("reason", ...) (a printf
 * format): it passes for Check, and its TAP line carries TAP's SKIP
 * directive, "ok N - FILE # SKIP reason:TCASE:TEST: Passed", which
 * scripts/run-tests.sh and main()'s closing line count as a skip (skip.c
 * says how). A helper that decides for its test calls test_skip(...) and
 * the test returns at once, before any other check.
 */
#define TEST_SKIP(...)							\
	do {								\
		test_skip(__VA_ARGS__);					\
		return;							\
	} while (0)
#define test_skip(...)	test_skip_at(__FILE__, __LINE__, __VA_ARGS__)
void test_skip_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The directive, and whether a finished test was skipped (main.c's count). */
#define TEST_SKIP_DIRECTIVE	" # SKIP"
bool test_result_skipped(TestResult *tr);

#endif
