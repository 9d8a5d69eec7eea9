/* vpmu_config_default() and vpmu_config_validate(): defaults and ranges. */
#include <errno.h>
#include <string.h>

#include "suite.h"
#include "model/vpmu.h"

START_TEST(test_default_v5)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	ck_assert_uint_eq(cfg.version, 5);
	ck_assert_uint_eq(cfg.nr_gp, 8);
	ck_assert_uint_eq(cfg.gp_width, 48);
	ck_assert_uint_eq(cfg.nr_fixed, 3);
	ck_assert_uint_eq(cfg.fixed_width, 48);
	ck_assert(cfg.full_width_write);
	ck_assert(cfg.pdcm);
	ck_assert(!cfg.pebs);
	ck_assert_uint_eq(cfg.pebs_format, 0);
	ck_assert(!cfg.pebs_baseline);
	ck_assert_uint_eq(cfg.available_events, (1u << PMU_EV_NR) - 1);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
}
END_TEST

START_TEST(test_default_v1)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 1);
	ck_assert_uint_eq(cfg.nr_gp, 8);
	ck_assert_uint_eq(cfg.nr_fixed, 0);
	ck_assert(!cfg.pdcm);
	ck_assert(!cfg.full_width_write);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
}
END_TEST

START_TEST(test_default_v0)
{
	struct vpmu_config cfg, zero;

	memset(&zero, 0, sizeof(zero));
	vpmu_config_default(&cfg, 0);
	ck_assert_mem_eq(&cfg, &zero, sizeof(cfg));
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert_mem_eq(&cfg, &zero, sizeof(cfg));
}
END_TEST

/* Zero numeric fields whose 0 is invalid for the version get defaults. */
START_TEST(test_validate_fills_zero_fields)
{
	struct vpmu_config cfg = { .version = 3 };

	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert_uint_eq(cfg.version, 3);
	ck_assert_uint_eq(cfg.nr_gp, 8);
	ck_assert_uint_eq(cfg.gp_width, 48);
	ck_assert_uint_eq(cfg.fixed_width, 48);
	/* 0 fixed counters, no PDCM and no events are legal choices. */
	ck_assert_uint_eq(cfg.nr_fixed, 0);
	ck_assert(!cfg.pdcm);
	ck_assert_uint_eq(cfg.available_events, 0);
}
END_TEST

START_TEST(test_validate_v1_forces_no_fixed)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 1);
	cfg.nr_fixed = 4;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert_uint_eq(cfg.nr_fixed, 0);
}
END_TEST

/* Version 0 has no PMU at all: counts, widths and capabilities go to 0. */
START_TEST(test_validate_v0_normalises)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	cfg.version = 0;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert_uint_eq(cfg.nr_gp, 0);
	ck_assert_uint_eq(cfg.nr_fixed, 0);
	ck_assert_uint_eq(cfg.gp_width, 0);
	ck_assert_uint_eq(cfg.fixed_width, 0);
	ck_assert(!cfg.pdcm);
	ck_assert(!cfg.full_width_write);
	ck_assert_uint_eq(cfg.available_events, (1u << PMU_EV_NR) - 1);
}
END_TEST

START_TEST(test_validate_fw_needs_pdcm)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 4);
	cfg.pdcm = false;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert(!cfg.full_width_write);
}
END_TEST

START_TEST(test_validate_pebs_default_format)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	cfg.pebs = true;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert_uint_eq(cfg.pebs_format, 4);
	ck_assert(!cfg.pebs_baseline);
}
END_TEST

/* One row per field: a value on each side of every documented limit. */
static const struct config_case {
	const char *name;
	unsigned int version, nr_gp, gp_width, nr_fixed, fixed_width;
	bool pdcm, pebs;
	unsigned int pebs_format;
	bool pebs_baseline;
	uint32_t available;
	int ret;
} config_cases[] = {
	{ "version 5",		5, 8, 48, 3, 48, true, false, 0, false, 0xff, 0 },
	{ "version 6",		6, 8, 48, 3, 48, true, false, 0, false, 0xff, -EINVAL },
	{ "nr_gp 1",		2, 1, 48, 3, 48, true, false, 0, false, 0xff, 0 },
	{ "nr_gp 9",		2, 9, 48, 3, 48, true, false, 0, false, 0xff, -EINVAL },
	{ "nr_fixed 4",		5, 8, 48, 4, 48, true, false, 0, false, 0xff, 0 },
	{ "nr_fixed 5",		5, 8, 48, 5, 48, true, false, 0, false, 0xff, -EINVAL },
	{ "gp_width 32",	5, 8, 32, 3, 48, true, false, 0, false, 0xff, 0 },
	{ "gp_width 31",	5, 8, 31, 3, 48, true, false, 0, false, 0xff, -EINVAL },
	{ "gp_width 63",	5, 8, 63, 3, 48, true, false, 0, false, 0xff, 0 },
	{ "gp_width 64",	5, 8, 64, 3, 48, true, false, 0, false, 0xff, -EINVAL },
	{ "fixed_width 32",	5, 8, 48, 3, 32, true, false, 0, false, 0xff, 0 },
	{ "fixed_width 31",	5, 8, 48, 3, 31, true, false, 0, false, 0xff, -EINVAL },
	{ "fixed_width 64",	5, 8, 48, 3, 64, true, false, 0, false, 0xff, -EINVAL },
	{ "unknown event bit",	5, 8, 48, 3, 48, true, false, 0, false, (1u << PMU_EV_NR) | 0xff, -EINVAL },
	{ "pebs fmt 3",		5, 8, 48, 3, 48, true, true, 3, false, 0xff, 0 },
	{ "pebs fmt 2",		5, 8, 48, 3, 48, true, true, 2, false, 0xff, -EINVAL },
	{ "pebs fmt 5 base",	5, 8, 48, 3, 48, true, true, 5, true, 0xff, 0 },
	{ "pebs fmt 6",		5, 8, 48, 3, 48, true, true, 6, false, 0xff, -EINVAL },
	{ "baseline fmt 3",	5, 8, 48, 3, 48, true, true, 3, true, 0xff, -EINVAL },
	{ "baseline fmt 4",	5, 8, 48, 3, 48, true, true, 4, true, 0xff, 0 },
	{ "pebs no pdcm",	5, 8, 48, 3, 48, false, true, 4, false, 0xff, -EINVAL },
	{ "pebs v1",		1, 8, 48, 0, 48, true, true, 4, false, 0xff, -EINVAL },
	{ "pebs v2",		2, 8, 48, 3, 48, true, true, 4, false, 0xff, 0 },
	{ "fmt without pebs",	5, 8, 48, 3, 48, true, false, 4, false, 0xff, -EINVAL },
	{ "base without pebs",	5, 8, 48, 3, 48, true, false, 0, true, 0xff, -EINVAL },
	{ "pebs on v0",		0, 0, 0, 0, 0, false, true, 4, false, 0, -EINVAL },
};

START_TEST(test_validate_table)
{
	const struct config_case *c = &config_cases[_i];
	struct vpmu_config cfg = {
		.version = c->version, .nr_gp = c->nr_gp, .gp_width = c->gp_width,
		.nr_fixed = c->nr_fixed, .fixed_width = c->fixed_width,
		.pdcm = c->pdcm, .full_width_write = c->pdcm, .pebs = c->pebs,
		.pebs_format = c->pebs_format, .pebs_baseline = c->pebs_baseline,
		.available_events = c->available,
	};

	ck_assert_msg(vpmu_config_validate(&cfg) == c->ret, "%s", c->name);
}
END_TEST

static Suite *vpmu_config_suite(void)
{
	Suite *s = suite_create("vpmu_config");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, test_default_v5);
	tcase_add_test(tc, test_default_v1);
	tcase_add_test(tc, test_default_v0);
	tcase_add_test(tc, test_validate_fills_zero_fields);
	tcase_add_test(tc, test_validate_v1_forces_no_fixed);
	tcase_add_test(tc, test_validate_v0_normalises);
	tcase_add_test(tc, test_validate_fw_needs_pdcm);
	tcase_add_test(tc, test_validate_pebs_default_format);
	tcase_add_loop_test(tc, test_validate_table, 0,
			    sizeof(config_cases) / sizeof(config_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_config_suite)
