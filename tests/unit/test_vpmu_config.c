/* SPDX-License-Identifier: GPL-2.0-only */
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
	ck_assert_uint_eq(cfg.event_vector_len, PMU_EV_VECTOR_LEN);
	ck_assert_uint_eq(cfg.events_unavailable, 0);
	ck_assert_uint_eq(cfg.fixed_bitmap, 0);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
}
END_TEST

/* The CPUID.0AH enumeration fields: their limits, per version and vendor. */
static const struct {
	const char *name;
	enum vpmu_vendor_id vendor;
	unsigned int version, len;
	uint32_t bitmap, hidden;
	int ret;
} enum_cases[] = {
	{ "len 0",		VPMU_VENDOR_INTEL, 5, 0, 0, 0, 0 },
	{ "len 32",		VPMU_VENDOR_INTEL, 5, 32, 0, 0, 0 },
	{ "len 33",		VPMU_VENDOR_INTEL, 5, 33, 0, 0, -EINVAL },
	{ "all hidden",		VPMU_VENDOR_INTEL, 1, 8, 0, 0xffffffff, 0 },
	{ "bitmap v5",		VPMU_VENDOR_INTEL, 5, 8, 0xf, 0, 0 },
	{ "bitmap bit 4",	VPMU_VENDOR_INTEL, 5, 8, 0x10, 0, -EINVAL },
	{ "bitmap v4",		VPMU_VENDOR_INTEL, 4, 8, 0x1, 0, -EINVAL },
	{ "bitmap v1",		VPMU_VENDOR_INTEL, 1, 8, 0x1, 0, -EINVAL },
	{ "amd len",		VPMU_VENDOR_AMD, 2, 8, 0, 0, -EINVAL },
	{ "amd hidden",		VPMU_VENDOR_AMD, 2, 0, 0, 1, -EINVAL },
	{ "amd bitmap",		VPMU_VENDOR_AMD, 2, 0, 1, 0, -EINVAL },
};

START_TEST(test_validate_enumeration)
{
	struct vpmu_config cfg;

	if (enum_cases[_i].vendor == VPMU_VENDOR_AMD)
		vpmu_config_default_amd(&cfg, enum_cases[_i].version);
	else
		vpmu_config_default(&cfg, enum_cases[_i].version);
	cfg.event_vector_len = enum_cases[_i].len;
	cfg.fixed_bitmap = enum_cases[_i].bitmap;
	cfg.events_unavailable = enum_cases[_i].hidden;
	ck_assert_msg(vpmu_config_validate(&cfg) == enum_cases[_i].ret, "%s", enum_cases[_i].name);
}
END_TEST

/* Version 0 has no leaf 0AH at all: nothing of it survives validation. */
START_TEST(test_validate_v0_no_enumeration)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 0);
	cfg.event_vector_len = 8;
	cfg.events_unavailable = 0xff;
	cfg.fixed_bitmap = 0x3;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	ck_assert_uint_eq(cfg.event_vector_len, 0);
	ck_assert_uint_eq(cfg.events_unavailable, 0);
	ck_assert_uint_eq(cfg.fixed_bitmap, 0);
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
	ck_assert_uint_eq(cfg.gp_width, 48);
	ck_assert_uint_eq(cfg.fixed_width, 48);
	/*
	 * 0 GP or fixed counters, no PDCM, no events and an empty event
	 * vector are legal choices (CPUID.0AH can say each).
	 */
	ck_assert_uint_eq(cfg.nr_gp, 0);
	ck_assert_uint_eq(cfg.event_vector_len, 0);
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

/* An unknown vendor is refused, not taken for Intel. */
START_TEST(test_validate_unknown_vendor)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	cfg.vendor = (enum vpmu_vendor_id)(VPMU_VENDOR_AMD + 1);
	ck_assert_int_eq(vpmu_config_validate(&cfg), -EINVAL);
	ck_assert(!vpmu_msr_is_pmu(&cfg, MSR_IA32_PMC0));
}
END_TEST

/* What each vendor and version has, as the core sees it (struct vpmu_caps). */
#define CAP_GLOBAL	1	/* GLOBAL_CTRL and GLOBAL_STATUS */
#define CAP_STATUS_SET	2
#define CAP_CTR_FRZ	4
#define CAP_FREEZE	8	/* DEBUGCTL's freeze-on-PMI bits */
#define CAP_CORE_EXT	16
static const struct caps_case {
	enum vpmu_vendor_id vendor;
	unsigned int version, nr_gp;
	bool pdcm;
	unsigned int caps;
} caps_cases[] = {
	{ VPMU_VENDOR_INTEL, 0, 0, false, 0 },
	{ VPMU_VENDOR_INTEL, 1, 8, false, 0 },
	{ VPMU_VENDOR_INTEL, 2, 8, true, CAP_GLOBAL | CAP_FREEZE },
	{ VPMU_VENDOR_INTEL, 2, 8, false, CAP_GLOBAL },
	{ VPMU_VENDOR_INTEL, 3, 8, true, CAP_GLOBAL | CAP_FREEZE },
	{ VPMU_VENDOR_INTEL, 4, 8, true, CAP_GLOBAL | CAP_STATUS_SET | CAP_CTR_FRZ | CAP_FREEZE },
	{ VPMU_VENDOR_INTEL, 5, 8, true, CAP_GLOBAL | CAP_STATUS_SET | CAP_CTR_FRZ | CAP_FREEZE },
	{ VPMU_VENDOR_AMD, 0, 0, false, 0 },
	{ VPMU_VENDOR_AMD, 1, 4, false, 0 },
	{ VPMU_VENDOR_AMD, 1, 6, false, CAP_CORE_EXT },
	{ VPMU_VENDOR_AMD, 2, 6, false, CAP_GLOBAL | CAP_CORE_EXT },
	{ VPMU_VENDOR_AMD, 2, 1, false, CAP_GLOBAL | CAP_CORE_EXT },
};

START_TEST(test_caps)
{
	const struct caps_case *c = &caps_cases[_i];
	struct vpmu_config cfg;
	struct vpmu pmu;
	unsigned int caps;

	if (c->vendor == VPMU_VENDOR_AMD)
		vpmu_config_default_amd(&cfg, c->version);
	else
		vpmu_config_default(&cfg, c->version);
	cfg.nr_gp = c->nr_gp;
	cfg.pdcm = c->pdcm;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&pmu, &cfg);
	caps = (pmu.caps.global_ctrl ? CAP_GLOBAL : 0) |
	       (pmu.caps.global_status_set ? CAP_STATUS_SET : 0) |
	       (pmu.caps.ctr_frz ? CAP_CTR_FRZ : 0) |
	       (pmu.caps.freeze_on_pmi ? CAP_FREEZE : 0) |
	       (pmu.caps.core_ext ? CAP_CORE_EXT : 0);
	ck_assert_msg(caps == c->caps, "case %d: caps %#x, want %#x", _i, caps, c->caps);
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
	tcase_add_loop_test(tc, test_validate_enumeration, 0,
			    sizeof(enum_cases) / sizeof(enum_cases[0]));
	tcase_add_test(tc, test_validate_v0_no_enumeration);
	tcase_add_test(tc, test_validate_v1_forces_no_fixed);
	tcase_add_test(tc, test_validate_v0_normalises);
	tcase_add_test(tc, test_validate_fw_needs_pdcm);
	tcase_add_test(tc, test_validate_pebs_default_format);
	tcase_add_test(tc, test_validate_unknown_vendor);
	tcase_add_loop_test(tc, test_caps, 0, sizeof(caps_cases) / sizeof(caps_cases[0]));
	tcase_add_loop_test(tc, test_validate_table, 0,
			    sizeof(config_cases) / sizeof(config_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vpmu_config_suite)
