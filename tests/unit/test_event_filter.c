/* SPDX-License-Identifier: GPL-2.0-only */
/* The --event-filter file format (vmm/config_filter.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"
#include "config_filter.h"

START_TEST(test_parse_full)
{
	static const char text[] =
		"# deny core cycles everywhere\n"
		"action deny\n"
		"\n"
		"fixed_counter_bitmap 0x2   # fixed counter 1\n"
		"event 0x3c 0x00\n"
		"  event\t196 0\r\n"
		"masked 0xd0 0xfc 0x80\n"
		"masked 0xd0 0xff 0x82 exclude";
	struct vpmu_filter f;

	ck_assert_int_eq(event_filter_parse("t", text, &f), 0);
	ck_assert_int_eq(f.action, VPMU_FILTER_DENY);
	ck_assert_uint_eq(f.fixed_counter_bitmap, 0x2);
	ck_assert_uint_eq(f.nr_events, 4);
	ck_assert_uint_eq(f.events[0].event, 0x3c);
	ck_assert_uint_eq(f.events[0].umask_mask, 0xff);
	ck_assert_uint_eq(f.events[0].umask_match, 0x00);
	ck_assert(!f.events[0].exclude);
	ck_assert_uint_eq(f.events[1].event, 0xc4);
	ck_assert_uint_eq(f.events[2].event, 0xd0);
	ck_assert_uint_eq(f.events[2].umask_mask, 0xfc);
	ck_assert_uint_eq(f.events[2].umask_match, 0x80);
	ck_assert(!f.events[2].exclude);
	ck_assert(f.events[3].exclude);
	ck_assert_uint_eq(f.events[3].umask_match, 0x82);
	ck_assert(!vpmu_filter_gp_allowed(&f, 0x003c));
	ck_assert(vpmu_filter_gp_allowed(&f, 0x013c));
	ck_assert(!vpmu_filter_fixed_allowed(&f, 1));
	ck_assert(vpmu_filter_fixed_allowed(&f, 2));
}
END_TEST

START_TEST(test_parse_allow_defaults)
{
	struct vpmu_filter f;

	ck_assert_int_eq(event_filter_parse("t", "action allow\n", &f), 0);
	ck_assert_int_eq(f.action, VPMU_FILTER_ALLOW);
	ck_assert_uint_eq(f.fixed_counter_bitmap, 0);
	ck_assert_uint_eq(f.nr_events, 0);
}
END_TEST

static const char *const bad_texts[] = {
	"",
	"# only a comment\n",
	"event 0x3c 0\n",
	"action maybe\n",
	"action allow\naction deny\n",
	"action allow extra\n",
	"action allow\nfixed_counter_bitmap 1\nfixed_counter_bitmap 2\n",
	"action allow\nfixed_counter_bitmap 0x100000000\n",
	"action allow\nfixed_counter_bitmap -1\n",
	"action allow\nevent 0x1000 0\n",
	"action allow\nevent 0x3c\n",
	"action allow\nevent 0x3c 0 0\n",
	"action allow\nevent 0x3c 0x1ff\n",
	"action allow\nevent x3c 0\n",
	"action allow\nmasked 0x3c 0x0f\n",
	"action allow\nmasked 0x3c 0x0f 0x10\n",
	"action allow\nmasked 0x3c 0x0f 0x01 include\n",
	"action allow\nwhatever 1\n",
	"action allow\na b c d e f g\n",
};

START_TEST(test_parse_errors)
{
	struct vpmu_filter f;

	ck_assert_int_eq(event_filter_parse("t", bad_texts[_i], &f), -EINVAL);
}
END_TEST

START_TEST(test_parse_too_many)
{
	size_t len = 16 + 301 * 16;
	char *text = malloc(len), *p = text;
	struct vpmu_filter f;
	int i;

	ck_assert_ptr_nonnull(text);
	p += sprintf(p, "action deny\n");
	for (i = 0; i < 300; i++)
		p += sprintf(p, "event %d 0\n", i & 0xff);
	ck_assert_int_eq(event_filter_parse("t", text, &f), 0);
	ck_assert_uint_eq(f.nr_events, 300);
	sprintf(p, "event 1 1\n");
	ck_assert_int_eq(event_filter_parse("t", text, &f), -EINVAL);
	free(text);
}
END_TEST

static Suite *event_filter_suite(void)
{
	Suite *s = suite_create("event_filter");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_parse_full);
	tcase_add_test(tc, test_parse_allow_defaults);
	tcase_add_loop_test(tc, test_parse_errors, 0, sizeof(bad_texts) / sizeof(bad_texts[0]));
	tcase_add_test(tc, test_parse_too_many);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(event_filter_suite)
