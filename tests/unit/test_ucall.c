/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ucall decoder, log and port handler (vmm/dev/ucall*.c) in-process,
 * against a fake guest RAM with a hole: every message include/pmuvm/ucall.h
 * rejects is rejected with its reason, strings come out printable, nothing
 * is read outside RAM (make check SANITIZE=1 puts each region in an
 * exact-size allocation under ASan), and the warnings stop after
 * UCALL_WARN_MAX.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/ucall.h"
#include "suite.h"

#define LOW_SIZE	0x10000ULL	/* RAM [0, 64K), then a hole */
#define HIGH_GPA	0x100000000ULL	/* and [4G, 4G + 64K) */

static struct guest_mem mem;
static uint8_t *low, *high;

static void setup(void)
{
	low = calloc(1, LOW_SIZE);
	high = calloc(1, LOW_SIZE);
	ck_assert(low && high);
	mem.regions[0] = (struct mem_region){ 0, LOW_SIZE, low };
	mem.regions[1] = (struct mem_region){ HIGH_GPA, LOW_SIZE, high };
	mem.nr = 2;
}

static void teardown(void)
{
	free(low);
	free(high);
}

static struct ucall_msg msg_of(uint32_t cmd, const char *text)
{
	struct ucall_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = UCALL_MAGIC;
	m.cmd = cmd;
	snprintf(m.text, sizeof(m.text), "%s", text);
	return m;
}

/* Decodes m, which must be rejected with a reason containing `why`. */
static void expect_invalid(const struct ucall_msg *m, const char *why)
{
	struct ucall_result res;

	memset(&res, 0x5a, sizeof(res));
	ck_assert_int_eq(ucall_decode(m, &res), -EINVAL);
	ck_assert_int_eq(res.kind, UCALL_KIND_INVALID);
	ck_assert_msg(strstr(res.invalid, why), "reason '%s' lacks '%s'", res.invalid, why);
}

START_TEST(test_decode_each_command)
{
	struct ucall_msg m = msg_of(UCALL_CMD_FAIL, "a == b");
	struct ucall_result res;
	char line[512];

	snprintf(m.file, sizeof(m.file), "tests/guests/x.c");
	m.line = 42;
	m.nr_values = 2;
	m.values[0] = 2;
	m.values[1] = 0xffffffffffffffffULL;
	res.vcpu = 1;
	ck_assert_int_eq(ucall_decode(&m, &res), 0);
	ck_assert_int_eq(res.kind, UCALL_KIND_FAIL);
	ck_assert_str_eq(res.file, "tests/guests/x.c");
	ck_assert_uint_eq(res.line, 42);
	ck_assert_str_eq(res.text, "a == b");
	ck_assert_uint_eq(res.nr_values, 2);
	ucall_format(&res, line, sizeof(line));
	ck_assert_str_eq(line, "FAIL tests/guests/x.c:42: a == b (0x2, 0xffffffffffffffff)");

	m = msg_of(UCALL_CMD_OK, "pmu overflow");
	ck_assert_int_eq(ucall_decode(&m, &res), 0);
	ck_assert_int_eq(res.kind, UCALL_KIND_OK);
	ucall_format(&res, line, sizeof(line));
	ck_assert_str_eq(line, "ok - pmu overflow");

	m = msg_of(UCALL_CMD_VALUE, "pmis");
	m.nr_values = 1;
	m.values[0] = 300;
	ck_assert_int_eq(ucall_decode(&m, &res), 0);
	ck_assert_int_eq(res.kind, UCALL_KIND_VALUE);
	ucall_format(&res, line, sizeof(line));
	ck_assert_str_eq(line, "value pmis = 0x12c");

	m = msg_of(UCALL_CMD_DONE, "");
	m.nr_values = 1;
	m.values[0] = (uint64_t)-3;
	ck_assert_int_eq(ucall_decode(&m, &res), 0);
	ck_assert_int_eq(res.kind, UCALL_KIND_DONE);
	ucall_format(&res, line, sizeof(line));
	ck_assert_str_eq(line, "done, main returned -3");
	ck_assert_str_eq(ucall_kind_name(UCALL_KIND_DONE), "done");
}
END_TEST

START_TEST(test_decode_rejects)
{
	struct ucall_msg m = msg_of(UCALL_CMD_OK, "x");

	m.magic = 0x31616376;
	expect_invalid(&m, "bad magic 0x31616376");
	m = msg_of(0, "x");
	expect_invalid(&m, "unknown command 0x0");
	m = msg_of(UCALL_CMD_DONE + 1, "x");
	expect_invalid(&m, "unknown command 0x5");
	m = msg_of(0xdeadbeef, "x");
	expect_invalid(&m, "unknown command 0xdeadbeef");
	m = msg_of(UCALL_CMD_FAIL, "x");
	m.nr_values = UCALL_MAX_VALUES + 1;
	expect_invalid(&m, "5 values (at most 4)");
	m.nr_values = 0xffffffff;
	expect_invalid(&m, "values (at most 4)");
	/* Strings that fill their whole field: no NUL anywhere in it. */
	m = msg_of(UCALL_CMD_FAIL, "x");
	memset(m.file, 'A', sizeof(m.file));
	expect_invalid(&m, "file name without its NUL");
	m = msg_of(UCALL_CMD_FAIL, "");
	memset(m.text, 'B', sizeof(m.text));
	expect_invalid(&m, "text without its NUL");
	m = msg_of(UCALL_CMD_OK, "");
	expect_invalid(&m, "ok without a name");
	m = msg_of(UCALL_CMD_VALUE, "");
	m.nr_values = 1;
	expect_invalid(&m, "value without a name");
	m = msg_of(UCALL_CMD_VALUE, "v");
	expect_invalid(&m, "value without values");
	m = msg_of(UCALL_CMD_DONE, "");
	expect_invalid(&m, "done with 0 values (wants 1)");
	m.nr_values = 2;
	expect_invalid(&m, "done with 2 values (wants 1)");
}
END_TEST

/* Control characters and bytes above 0x7e never reach stderr or the report. */
START_TEST(test_decode_sanitizes_strings)
{
	struct ucall_msg m = msg_of(UCALL_CMD_FAIL, "a\nb\x1b[2J\xff\t");
	struct ucall_result res;

	snprintf(m.file, sizeof(m.file), "f\r.c");
	ck_assert_int_eq(ucall_decode(&m, &res), 0);
	ck_assert_str_eq(res.text, "a?b?[2J??");
	ck_assert_str_eq(res.file, "f?.c");
}
END_TEST

/* A line longer than the buffer is cut, still NUL-terminated, its length returned. */
START_TEST(test_format_truncates)
{
	struct ucall_msg m = msg_of(UCALL_CMD_FAIL, "a == b");
	struct ucall_result res;
	char line[16];

	memset(m.file, 'f', sizeof(m.file) - 1);
	m.nr_values = 1;
	ck_assert_int_eq(ucall_decode(&m, &res), 0);
	memset(line, 0x7f, sizeof(line));
	ck_assert_int_eq(ucall_format(&res, line, sizeof(line)),
			 (int)strlen("FAIL :0: a == b (0x0)") + (int)sizeof(m.file) - 1);
	ck_assert_uint_eq(strlen(line), sizeof(line) - 1);
	ck_assert_int_eq(ucall_format(&res, NULL, 0), ucall_format(&res, line, sizeof(line)));
}
END_TEST

START_TEST(test_read_stays_in_ram)
{
	struct ucall_msg m = msg_of(UCALL_CMD_OK, "in ram"), out;
	const uint64_t sz = sizeof(m);
	static const uint64_t bad[] = {
		LOW_SIZE - sizeof(struct ucall_msg) + 1,	/* straddles the end of low RAM */
		LOW_SIZE,					/* the hole */
		0xfee00000,					/* LAPIC MMIO */
		0xffffffff,
		HIGH_GPA - 8,					/* straddles into high RAM */
		HIGH_GPA + LOW_SIZE - 8,			/* past the end of high RAM */
		~0ULL - 4,					/* gpa + size wraps */
	};
	size_t i;

	memcpy(low + LOW_SIZE - sz, &m, sz);
	ck_assert_int_eq(ucall_read(&mem, LOW_SIZE - sz, &out), 0);
	ck_assert_str_eq(out.text, "in ram");
	memcpy(high, &m, sz);
	ck_assert_int_eq(ucall_read(&mem, HIGH_GPA, &out), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(ucall_read(&mem, bad[i], &out) == -EFAULT, "read at 0x%llx",
			      (unsigned long long)bad[i]);
}
END_TEST

/* Runs fn with stderr going to a temporary file; returns what was written (malloc'd). */
static char *capture_stderr(void (*fn)(struct ucall_log *), struct ucall_log *log)
{
	FILE *f = tmpfile();
	int saved = dup(2);
	char *text;
	long n;

	ck_assert(f && saved >= 0);
	fflush(stderr);
	ck_assert_int_ge(dup2(fileno(f), 2), 0);
	fn(log);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	text = calloc(1, (size_t)n + 1);
	rewind(f);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

static unsigned int count_lines(const char *text, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void handle_mixed(struct ucall_log *log)
{
	struct ucall_msg m = msg_of(UCALL_CMD_FAIL, "x == y");
	unsigned int i;

	snprintf(m.file, sizeof(m.file), "g.c");
	m.line = 7;
	memcpy(low + 0x1000, &m, sizeof(m));
	m = msg_of(UCALL_CMD_OK, "fine");
	memcpy(low + 0x2000, &m, sizeof(m));
	ucall_handle(log, &mem, 0, 0, 4, 0x2000);		/* ok: printed only with -v */
	ucall_handle(log, &mem, 1, 0, 4, 0x1000);		/* fail: always printed */
	ucall_handle(log, &mem, 0, 0, 1, 0x1000);		/* a 1-byte OUT */
	ucall_handle(log, &mem, 0, 2, 2, 0x1000);		/* a 2-byte OUT at port + 2 */
	for (i = 0; i < 10; i++)
		ucall_handle(log, &mem, 0, 0, 4, 0xfee00000);	/* MMIO */
	ucall_handle(log, &mem, 0, 0, 4, 0x3000);		/* zeros: bad magic */
}

START_TEST(test_handle_logs_and_warns)
{
	struct ucall_log log;
	char *err;
	json_object *j, *results, *r;

	ucall_log_init(&log, UCALL_LOG_MAX);
	err = capture_stderr(handle_mixed, &log);
	ck_assert_uint_eq(log.received, 15);
	ck_assert_uint_eq(log.invalid, 13);
	ck_assert_uint_eq(log.nr, 15);
	ck_assert_msg(!strstr(err, "ok - fine"), "%s", err);
	ck_assert_msg(strstr(err, "pmuvm: guest: FAIL g.c:7: x == y\n"), "%s", err);
	ck_assert_msg(strstr(err, "pmuvm: warning: guest: invalid ucall from vCPU 0: a 1-byte OUT "
			     "to port 0x7e0 (a ucall is one 4-byte OUT to 0x7e0)\n"), "%s", err);
	ck_assert_msg(strstr(err, "a 2-byte OUT to port 0x7e2"), "%s", err);
	ck_assert_msg(strstr(err, "is not all in guest RAM (message at 0xfee00000)\n"), "%s", err);
	/* UCALL_WARN_MAX invalid ones, then one line for the rest, which are only counted. */
	ck_assert_uint_eq(count_lines(err, "pmuvm: warning: guest: invalid ucall"), UCALL_WARN_MAX);
	ck_assert_uint_eq(count_lines(err, "further ones are only counted"), 1);
	ck_assert_uint_eq(count_lines(err, "\n"), 1 + UCALL_WARN_MAX + 1);
	ck_assert_ptr_null(strstr(err, "bad magic"));	/* the 13th: counted only */
	free(err);

	j = ucall_log_json(&log);
	ck_assert_uint_eq(json_object_get_uint64(json_object_object_get(j, "ucalls")), 15);
	ck_assert_uint_eq(json_object_get_uint64(json_object_object_get(j, "invalid")), 13);
	ck_assert_uint_eq(json_object_get_uint64(json_object_object_get(j, "dropped")), 0);
	results = json_object_object_get(j, "results");
	ck_assert_uint_eq(json_object_array_length(results), 15);
	r = json_object_array_get_idx(results, 1);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "kind")), "fail");
	ck_assert_int_eq(json_object_get_int(json_object_object_get(r, "vcpu")), 1);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "file")), "g.c");
	ck_assert_int_eq(json_object_get_int(json_object_object_get(r, "line")), 7);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "expr")), "x == y");
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(r, "values")), 0);
	r = json_object_array_get_idx(results, 2);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "kind")), "invalid");
	ck_assert(json_object_is_type(json_object_object_get(r, "gpa"), json_type_null));
	r = json_object_array_get_idx(results, 14);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "gpa")), "0x3000");
	ck_assert(strstr(json_object_get_string(json_object_object_get(r, "reason")), "bad magic"));
	json_object_put(j);
	ucall_log_free(&log);
}
END_TEST

/* A guest that loops on ucalls fills the log to its bound; the rest are counted. */
START_TEST(test_log_bounded)
{
	struct ucall_result res = { .kind = UCALL_KIND_OK, .text = "n" };
	struct ucall_log log;
	json_object *j;
	unsigned int i;

	ucall_log_init(&log, 40);
	for (i = 0; i < 45; i++)
		ck_assert_int_eq(ucall_log_add(&log, &res), i < 40 ? 0 : -ENOSPC);
	ck_assert_uint_eq(log.nr, 40);
	ck_assert_uint_eq(log.received, 45);
	ck_assert_uint_eq(log.dropped, 5);
	j = ucall_log_json(&log);
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(j, "results")), 40);
	ck_assert_uint_eq(json_object_get_uint64(json_object_object_get(j, "dropped")), 5);
	json_object_put(j);
	ucall_log_free(&log);

	/* No device (pmuvm stopped before creating it): the same keys, all zero. */
	j = ucall_log_json(NULL);
	ck_assert_uint_eq(json_object_get_uint64(json_object_object_get(j, "ucalls")), 0);
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(j, "results")), 0);
	json_object_put(j);
}
END_TEST

static Suite *ucall_suite(void)
{
	Suite *s = suite_create("ucall");
	TCase *tc = tcase_create("decode");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_decode_each_command);
	tcase_add_test(tc, test_decode_rejects);
	tcase_add_test(tc, test_decode_sanitizes_strings);
	tcase_add_test(tc, test_format_truncates);
	tcase_add_test(tc, test_read_stays_in_ram);
	tcase_add_test(tc, test_handle_logs_and_warns);
	tcase_add_test(tc, test_log_bounded);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ucall_suite)
