/* SPDX-License-Identifier: GPL-2.0-only */
/* CPUID leaf 0xA and the PMU bits of leaf 1 (docs/intel-pmu.md 1.1, 1.2). */
#include "suite.h"
#include "x86-pmu/cpuid.h"
#include "model/vpmu.h"

static void config(struct vpmu_config *cfg, unsigned int version)
{
	vpmu_config_default(cfg, version);
	ck_assert_int_eq(vpmu_config_validate(cfg), 0);
}

/* Default configuration of each version: exact EAX/EBX/ECX/EDX. */
static const struct {
	unsigned int version;
	uint32_t eax, ebx, ecx, edx;
} leaf_0a[] = {
	{ 0, 0, 0, 0, 0 },
	{ 1, 0x08300801, 0, 0, 0 },
	{ 2, 0x08300802, 0, 0, 0x8603 },
	{ 3, 0x08300803, 0, 0, 0x8603 },
	{ 4, 0x08300804, 0, 0, 0x8603 },
	{ 5, 0x08300805, 0, 0x7, 0x8603 },
};

START_TEST(test_0a_versions)
{
	struct vpmu_config cfg;
	uint32_t eax, ebx, ecx, edx;

	config(&cfg, leaf_0a[_i].version);
	vpmu_cpuid_0a(&cfg, &eax, &ebx, &ecx, &edx);
	ck_assert_uint_eq(eax, leaf_0a[_i].eax);
	ck_assert_uint_eq(ebx, leaf_0a[_i].ebx);
	ck_assert_uint_eq(ecx, leaf_0a[_i].ecx);
	ck_assert_uint_eq(edx, leaf_0a[_i].edx);
	ck_assert_uint_eq(CPUID_0A_EAX_EVLEN(eax), leaf_0a[_i].version ? PMU_EV_VECTOR_LEN : 0);
}
END_TEST

START_TEST(test_0a_fields)
{
	struct vpmu_config cfg;
	uint32_t eax, ebx, ecx, edx;

	config(&cfg, 5);
	cfg.nr_gp = 4;
	cfg.gp_width = 40;
	cfg.nr_fixed = 4;
	cfg.fixed_width = 36;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_cpuid_0a(&cfg, &eax, &ebx, &ecx, &edx);
	ck_assert_uint_eq(CPUID_0A_EAX_VERSION(eax), 5);
	ck_assert_uint_eq(CPUID_0A_EAX_NR_GP(eax), 4);
	ck_assert_uint_eq(CPUID_0A_EAX_GP_WIDTH(eax), 40);
	ck_assert_uint_eq(ecx, 0xf);
	ck_assert_uint_eq(CPUID_0A_EDX_NR_FIXED(edx), 4);
	ck_assert_uint_eq(CPUID_0A_EDX_FIXED_WIDTH(edx), 36);
	ck_assert_uint_eq(edx & CPUID_0A_EDX_ANYTHREAD_DEPRECATED,
			  CPUID_0A_EDX_ANYTHREAD_DEPRECATED);
	ck_assert_uint_eq(edx, 4 | 36 << 5 | 1 << 15);
}
END_TEST

/* v5 with no fixed counters: an empty bitmap and EDX[4:0] = 0. */
START_TEST(test_0a_no_fixed)
{
	struct vpmu_config cfg;
	uint32_t eax, ebx, ecx, edx;

	config(&cfg, 5);
	cfg.nr_fixed = 0;
	vpmu_cpuid_0a(&cfg, &eax, &ebx, &ecx, &edx);
	ck_assert_uint_eq(ecx, 0);
	ck_assert_uint_eq(edx, 48 << 5 | 1 << 15);
}
END_TEST

/* EBX bit i set = event i unavailable, over the 8-bit vector. */
static const struct {
	uint32_t available, ebx;
} ebx_cases[] = {
	{ 0xff, 0x00 },
	{ 0x00, 0xff },
	{ 0x22, 0xdd },		/* instructions + branches only */
	{ 0x01, 0xfe },
	{ 0x80, 0x7f },
};

START_TEST(test_0a_ebx)
{
	struct vpmu_config cfg;
	uint32_t eax, ebx, ecx, edx;

	config(&cfg, 4);
	cfg.available_events = ebx_cases[_i].available;
	vpmu_cpuid_0a(&cfg, &eax, &ebx, &ecx, &edx);
	ck_assert_uint_eq(ebx, ebx_cases[_i].ebx);
}
END_TEST

START_TEST(test_01_pdcm)
{
	struct vpmu_config cfg;
	uint32_t ecx = 0x81202000, edx = 0x0f8bfbff;

	config(&cfg, 2);
	vpmu_cpuid_01(&cfg, &ecx, &edx);
	ck_assert_uint_eq(ecx, 0x81202000 | CPUID_1_ECX_PDCM);
	ck_assert_uint_eq(edx, 0x0f8bfbff);
}
END_TEST

/* Without PDCM/PEBS the host's bits are cleared, the rest kept. */
START_TEST(test_01_clears)
{
	struct vpmu_config cfg;
	uint32_t ecx = 0xffffffff, edx = 0xffffffff;

	config(&cfg, 1);
	vpmu_cpuid_01(&cfg, &ecx, &edx);
	ck_assert_uint_eq(ecx, ~(CPUID_1_ECX_PDCM | CPUID_1_ECX_DTES64 | CPUID_1_ECX_DS_CPL));
	ck_assert_uint_eq(edx, ~CPUID_1_EDX_DS);
}
END_TEST

START_TEST(test_01_pebs)
{
	struct vpmu_config cfg;
	uint32_t ecx = 0, edx = 0;

	config(&cfg, 5);
	cfg.pebs = true;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_cpuid_01(&cfg, &ecx, &edx);
	ck_assert_uint_eq(ecx, CPUID_1_ECX_PDCM | CPUID_1_ECX_DTES64);
	ck_assert_uint_eq(edx, CPUID_1_EDX_DS);
}
END_TEST

/*
 * The operator's enumeration (docs/counting.md, "Architectural events the
 * CPUID leaves out"): the vector length goes to EAX[31:24] as given, the
 * hidden events are ORed into EBX, and the v5 ECX bitmap names every
 * fixed counter, the contiguous ones of EDX[4:0] too.
 */
static const struct {
	unsigned int len, nr_fixed;
	uint32_t hidden, available, bitmap, ebx, ecx;
} enum_cases[] = {
	{ 8, 3, 0x00, 0xff, 0x0, 0x00, 0x7 },
	{ 0, 3, 0xff, 0xff, 0x0, 0xff, 0x7 },
	{ 9, 0, 0x02, 0xdf, 0x5, 0x22, 0x5 },
	{ 1, 1, 0x80000000, 0xff, 0x4, 0x80000000, 0x5 },
	{ 32, 2, 0x20, 0xfd, 0x8, 0x22, 0xb },
	{ 7, 0, 0x00, 0xff, 0x0, 0x00, 0x0 },
};

START_TEST(test_0a_enumeration)
{
	struct vpmu_config cfg;
	uint32_t eax, ebx, ecx, edx;

	config(&cfg, 5);
	cfg.event_vector_len = enum_cases[_i].len;
	cfg.events_unavailable = enum_cases[_i].hidden;
	cfg.available_events = enum_cases[_i].available;
	cfg.nr_fixed = enum_cases[_i].nr_fixed;
	cfg.fixed_bitmap = enum_cases[_i].bitmap;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_cpuid_0a(&cfg, &eax, &ebx, &ecx, &edx);
	ck_assert_uint_eq(CPUID_0A_EAX_EVLEN(eax), enum_cases[_i].len);
	ck_assert_uint_eq(ebx, enum_cases[_i].ebx);
	ck_assert_uint_eq(ecx, enum_cases[_i].ecx);
	ck_assert_uint_eq(CPUID_0A_EDX_NR_FIXED(edx), enum_cases[_i].nr_fixed);
}
END_TEST

static Suite *vpmu_cpuid_suite(void)
{
	Suite *s = suite_create("vpmu_cpuid");
	TCase *tc = tcase_create("cpuid");

	tcase_add_loop_test(tc, test_0a_versions, 0, sizeof(leaf_0a) / sizeof(leaf_0a[0]));
	tcase_add_test(tc, test_0a_fields);
	tcase_add_test(tc, test_0a_no_fixed);
	tcase_add_loop_test(tc, test_0a_ebx, 0, sizeof(ebx_cases) / sizeof(ebx_cases[0]));
	tcase_add_loop_test(tc, test_0a_enumeration, 0, sizeof(enum_cases) / sizeof(enum_cases[0]));
	tcase_add_test(tc, test_01_pdcm);
	tcase_add_test(tc, test_01_clears);
	tcase_add_test(tc, test_01_pebs);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_cpuid_suite)
