/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The subordinate-id lookup of pmuvm run's user namespace
 * (vmm/run/userns.c): subgid(5) lines by user name or uid, the first
 * range of several, and lines that name no usable range.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/userns.h"
#include "suite.h"

static const char *subid_file(const char *text)
{
	static char path[] = "/tmp/pmuvm-subid-XXXXXX";
	int fd;

	snprintf(path, sizeof(path), "/tmp/pmuvm-subid-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

START_TEST(test_userns_subid)
{
	const char *f = subid_file("alice:100000:65536\n"
				   "# a comment\n"
				   "bob:0\n"
				   "carol:300000:0\n"
				   "1002:400000:1000\n"
				   "alice:900000:10\n");
	unsigned long start = 7, count = 7;

	ck_assert_int_eq(userns_subid(f, "alice", 1000, &start, &count), 0);
	ck_assert_uint_eq(start, 100000);
	ck_assert_uint_eq(count, 65536);
	/* By uid where the name is not there. */
	ck_assert_int_eq(userns_subid(f, "dave", 1002, &start, &count), 0);
	ck_assert_uint_eq(start, 400000);
	ck_assert_uint_eq(count, 1000);
	/* A line without a count, a count of 0, and no line at all. */
	start = count = 7;
	ck_assert_int_eq(userns_subid(f, "bob", 1003, &start, &count), -ENOENT);
	ck_assert_int_eq(userns_subid(f, "carol", 1004, &start, &count), -ENOENT);
	ck_assert_int_eq(userns_subid(f, "erin", 1005, &start, &count), -ENOENT);
	ck_assert_int_eq(userns_subid(f, NULL, 1005, &start, &count), -ENOENT);
	ck_assert_uint_eq(start, 7);
	ck_assert_uint_eq(count, 7);
	unlink(f);
	ck_assert_int_eq(userns_subid(f, "alice", 1000, &start, &count), -ENOENT);
}
END_TEST

static Suite *run_userns_suite(void)
{
	Suite *s = suite_create("run_userns");
	TCase *tc = tcase_create("subid");

	tcase_add_test(tc, test_userns_subid);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(run_userns_suite)
