/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm run's description of the command (vmm/run/spec.c) as the kernel's
 * initramfs unpacker reads it: newc headers, names and data padded to 4
 * bytes, the trailer; and the key=value strings run-init.c parses. The
 * console's escaping of a stream (vmm/run/console.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/console.h"
#include "run/spec.h"
#include "suite.h"

static unsigned long hexfield(const uint8_t *h, unsigned int i)
{
	char f[9];

	memcpy(f, h + 6 + 8 * i, 8);
	f[8] = 0;
	return strtoul(f, NULL, 16);
}

START_TEST(test_spec_cpio)
{
	char a0[] = "perf", a1[] = "stat", a2[] = "-e", a3[] = "instructions:u";
	char e0[] = "PATH=/usr/bin:/bin", e1[] = "HOME=/home/u";
	char *argv[] = { a0, a1, a2, a3, NULL };
	char *envp[] = { e0, e1, NULL };
	struct run_spec s = {
		.uid = 1000, .gid = 1001, .groups = { 1001, 27 }, .nr_groups = 2,
		.cwd = "/home/u/src", .stdin_tty = false, .stdout_tty = true,
		.rows = 50, .cols = 132, .argv = argv, .envp = envp,
	};
	static const char want[] =
		"uid=1000\0gid=1001\0groups=1001,27\0cwd=/home/u/src\0stdin_tty=0\0"
		"stdout_tty=1\0rows=50\0cols=132\0arg=perf\0arg=stat\0arg=-e\0"
		"arg=instructions:u\0env=PATH=/usr/bin:/bin\0env=HOME=/home/u";
	uint8_t *a;
	size_t len, namesize, filesize, off;

	ck_assert_int_eq(run_spec_cpio(&s, &a, &len), 0);
	ck_assert_uint_eq(len % 4, 0);
	ck_assert_mem_eq(a, "070701", 6);
	ck_assert_uint_eq(hexfield(a, 1), 0100644);		/* mode */
	ck_assert_uint_eq(hexfield(a, 4), 1);			/* nlink */
	filesize = hexfield(a, 6);
	namesize = hexfield(a, 11);
	ck_assert_uint_eq(namesize, sizeof("pmuvm-run"));
	ck_assert_mem_eq(a + 110, "pmuvm-run", namesize);
	off = (110 + namesize + 3) & ~3UL;
	ck_assert_uint_eq(filesize, sizeof(want));
	ck_assert_mem_eq(a + off, want, sizeof(want));
	off = (off + filesize + 3) & ~3UL;
	ck_assert_mem_eq(a + off, "070701", 6);
	ck_assert_uint_eq(hexfield(a + off, 11), sizeof("TRAILER!!!"));
	ck_assert_mem_eq(a + off + 110, "TRAILER!!!", sizeof("TRAILER!!!"));
	ck_assert_uint_eq(hexfield(a + off, 6), 0);
	ck_assert_uint_eq(len, (off + 110 + sizeof("TRAILER!!!") + 3) & ~3UL);
	free(a);
}
END_TEST

START_TEST(test_console_escape)
{
	static const uint8_t in[] = { 'a', 0xff, 0x00, 0xff, 0xff, 'b' };
	static const uint8_t want[] = { 'a', 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0xff, 'b' };
	uint8_t out[2 * sizeof(in)];

	ck_assert_uint_eq(run_console_escape(in, sizeof(in), out), sizeof(want));
	ck_assert_mem_eq(out, want, sizeof(want));
	ck_assert_uint_eq(run_console_escape(in, 0, out), 0);
}
END_TEST

static Suite *run_spec_suite(void)
{
	Suite *s = suite_create("run_spec");
	TCase *tc = tcase_create("spec");

	tcase_add_test(tc, test_spec_cpio);
	tcase_add_test(tc, test_console_escape);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(run_spec_suite)
