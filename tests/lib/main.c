/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main() of every Check test binary: runs every registered suite, one runner
 * each, so a suite's result line (and, with CK_VERBOSITY=verbose, each test's)
 * appears as soon as it ends. Check's own CK_RUN_SUITE / CK_RUN_CASE
 * variables select a subset; PMUVM_TESTS_SUITES="a b:c ..." runs the suites
 * named (suite b's test case c only), in that order (the VMX lab's share:
 * scripts/run-tests.sh);
 * PMUVM_TESTS_SKIP=N skips the first N suites of those that would run
 * (scripts/run-tests.sh resumes a run that the lab's own failure cut short,
 * counting the suites by Check's "Running suite(s)" lines). The last line
 * totals the checks run, those that failed and those skipped (TEST_SKIP,
 * suite.h), which Check counts as passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "suite.h"

#define MAX_SUITES 64

static test_suite_fn suites[MAX_SUITES];
static int nr_suites;

void test_suite_register(test_suite_fn fn)
{
	if (nr_suites == MAX_SUITES) {
		fprintf(stderr, "tests: too many suites (max %d)\n", MAX_SUITES);
		exit(2);
	}
	suites[nr_suites++] = fn;
}

/* The checks a finished runner ran that were skips (suite.h). */
static int nr_skipped(SRunner *sr)
{
	TestResult **results = srunner_results(sr);
	int i, n = srunner_ntests_run(sr), skipped = 0;

	for (i = 0; i < n; i++)
		skipped += test_result_skipped(results[i]);
	free(results);
	return skipped;
}

/* The longest failure message kept, in bytes. */
#define TESTS_MAX_MSG	(1u << 20)

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A runner with every suite registered. */
static SRunner *runner_all(void)
{
	SRunner *sr = srunner_create(suites[0]());

	for (int i = 1; i < nr_suites; i++)
		srunner_add_suite(sr, suites[i]());
	return sr;
}

/* PMUVM_TESTS_SUITES: the suites `names` names, each in a runner of its own. */
static int run_named(char *names, int first, double t0)
{
	int run = 0, failed = 0;

	for (char *save, *name = strtok_r(names, " ", &save); name;
	     name = strtok_r(NULL, " ", &save)) {
		SRunner *sr;
		double ts;
		int n;

		char *tcase = strchr(name, ':');

		if (first-- > 0)
			continue;
		if (tcase)
			*tcase++ = '\0';
		sr = runner_all();
		ts = mono_s();
		srunner_run(sr, name, tcase, CK_ENV);
		n = srunner_ntests_run(sr);
		if (!n) {
			fprintf(stderr, "tests: PMUVM_TESTS_SUITES: no suite '%s'%s%s with tests\n", name,
				tcase ? " with a test case " : "", tcase ? tcase : "");
			failed++;
		}
		printf("(%.1f s)\n", mono_s() - ts);
		run += n;
		failed += srunner_ntests_failed(sr);
		srunner_free(sr);
		fflush(stdout);
	}
	printf("total: %d checks run, %d failed (%.0f s)\n", run, failed, mono_s() - t0);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(void)
{
	const char *skip = getenv("PMUVM_TESTS_SKIP");
	int i, run = 0, failed = 0, skipped = 0, first = skip ? atoi(skip) : 0;
	double t0 = mono_s();

	/* Lines reach a pipe as they are written (TAP: CK_TAP_LOG_FILE_NAME=-). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * A failure's message carries the guest's output, often more than
	 * Check's default 4 KiB, past which the test process exits with no
	 * message at all (CK_MAX_MSG_SIZE still overrides this).
	 */
	check_set_max_msg_size(TESTS_MAX_MSG);
	if (!nr_suites) {
		fprintf(stderr, "tests: no suites registered\n");
		return EXIT_FAILURE;
	}
	if (getenv("PMUVM_TESTS_SUITES")) {
		char *names = strdup(getenv("PMUVM_TESTS_SUITES"));

		if (!names || first < 0)
			return EXIT_FAILURE;
		return run_named(names, first, t0);
	}
	/* A selection by name needs every suite in one runner (Check filters). */
	if (getenv("CK_RUN_SUITE") || getenv("CK_RUN_CASE")) {
		SRunner *sr = runner_all();

		srunner_run_all(sr, CK_ENV);
		failed = srunner_ntests_failed(sr);
		printf("total: %d checks run, %d failed, %d skipped (%.0f s)\n",
		       srunner_ntests_run(sr), failed, nr_skipped(sr), mono_s() - t0);
		srunner_free(sr);
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	if (first < 0 || first > nr_suites) {
		fprintf(stderr, "tests: PMUVM_TESTS_SKIP=%s: there are %d suites\n", skip, nr_suites);
		return EXIT_FAILURE;
	}
	for (i = first; i < nr_suites; i++) {
		SRunner *sr = srunner_create(suites[i]());
		double ts = mono_s();
		int n;

		srunner_run_all(sr, CK_ENV);
		n = srunner_ntests_run(sr);
		if (n)
			printf("(%.1f s)\n", mono_s() - ts);
		run += n;
		failed += srunner_ntests_failed(sr);
		skipped += nr_skipped(sr);
		srunner_free(sr);
		fflush(stdout);
	}
	printf("total: %d checks run, %d failed, %d skipped (%.0f s)\n", run, failed, skipped,
	       mono_s() - t0);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
