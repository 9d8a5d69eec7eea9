/*
 * Warnings said once (vmm/log.c): a key is first-time once per domain, and
 * the same key in two domains is two warnings, for every vCPU id up to
 * pmuvm's limit of 4096.
 */
#include "log.h"
#include "suite.h"

START_TEST(test_once_per_domain_and_key)
{
	for (unsigned long long id = 0; id < 4096; id++) {
		ck_assert(log_first_time(LOG_ONCE_RDPMC_BP_SET, id));
		ck_assert(log_first_time(LOG_ONCE_PEBS_XSAVE, id));
		ck_assert(log_first_time(LOG_ONCE_RDPMC_BP_RESTORE, id));
		ck_assert(!log_first_time(LOG_ONCE_RDPMC_BP_SET, id));
		ck_assert(!log_first_time(LOG_ONCE_PEBS_XSAVE, id));
	}
	ck_assert(!log_first_time(LOG_ONCE_RDPMC_BP_RESTORE, 4095));
	ck_assert(log_first_time(LOG_ONCE_PEBS_DROPPED, 4095));
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("once");

	tcase_add_test(tc, test_once_per_domain_and_key);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(log_suite)
