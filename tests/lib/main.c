/*
 * main() of every Check test binary: runs every registered suite. Check's own
 * CK_RUN_SUITE / CK_RUN_CASE variables select a subset.
 */
#include <stdio.h>
#include <stdlib.h>

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

int main(void)
{
	SRunner *sr;
	int i, failed;

	if (!nr_suites) {
		fprintf(stderr, "tests: no suites registered\n");
		return EXIT_FAILURE;
	}
	sr = srunner_create(suites[0]());
	for (i = 1; i < nr_suites; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
