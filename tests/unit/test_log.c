/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Warnings said once (vmm/log.h): per vCPU, one bit per warning in the
 * vCPU's own word, so 300 vCPUs' warnings stay apart; per guest address or
 * port, a key is first-time once per domain.
 */
#include "log.h"
#include "suite.h"

#define NR_TEST_VCPUS	300

START_TEST(test_once_per_vcpu)
{
	static uint32_t warned[NR_TEST_VCPUS];
	unsigned int id, w;

	for (id = 0; id < NR_TEST_VCPUS; id++) {
		ck_assert(log_once_bit(&warned[id], LOG_ONCE_RDPMC_BP_SET));
		ck_assert(log_once_bit(&warned[id], LOG_ONCE_PEBS_XSAVE));
		ck_assert(!log_once_bit(&warned[id], LOG_ONCE_RDPMC_BP_SET));
	}
	for (id = 0; id < NR_TEST_VCPUS; id++) {
		ck_assert(!log_once_bit(&warned[id], LOG_ONCE_PEBS_XSAVE));
		ck_assert(log_once_bit(&warned[id], LOG_ONCE_RDPMC_BP_RESTORE));
		for (w = 0; w < LOG_ONCE_NR; w++)
			ck_assert_uint_eq(!!(warned[id] & (1u << w)),
					  w == LOG_ONCE_RDPMC_BP_SET || w == LOG_ONCE_PEBS_XSAVE ||
					  w == LOG_ONCE_RDPMC_BP_RESTORE);
	}
	ck_assert_uint_le(LOG_ONCE_NR, 32);
}
END_TEST

START_TEST(test_once_per_domain_and_key)
{
	for (unsigned long long port = 0; port < 4096; port++) {
		ck_assert(log_first_time(LOG_ONCE_PIO, port));
		ck_assert(log_first_time(LOG_ONCE_MMIO, port));
		ck_assert(!log_first_time(LOG_ONCE_PIO, port));
	}
	ck_assert(!log_first_time(LOG_ONCE_MMIO, 4095));
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("once");

	tcase_add_test(tc, test_once_per_vcpu);
	tcase_add_test(tc, test_once_per_domain_and_key);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(log_suite)
