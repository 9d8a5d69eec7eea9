/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scripts/pmuvm-compare on this machine: the compare guest under QEMU/KVM
 * and under pmuvm, read back from the table the script prints.  Here
 * QEMU/KVM has no PMU, so its column must say "not implemented" and
 * STATUS_NOT_IMPLEMENTED where pmuvm's has the configured PMU, successful
 * ntpmu calls and exact counts.  On a host whose KVM has a PMU the exact
 * events of both columns must agree instead.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuvm_run.h"
#include "suite.h"

enum { COL_LABEL, COL_QEMU, COL_PMUVM, COL_NOTE, NR_COLS };

struct table_row {
	char cell[NR_COLS][128];
};

static void trim_copy(char *dst, const char *s, size_t n)
{
	while (n && *s == ' ') {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		n--;
	snprintf(dst, 128, "%.*s", (int)n, s);
}

/* The row "| label | qemu | pmuvm | note" of the table in `out`. */
static struct table_row table_row(const char *out, const char *label)
{
	struct table_row r = { 0 };
	char want[160];
	const char *line, *end, *p;

	snprintf(want, sizeof(want), "\n| %s ", label);
	line = strstr(out, want);
	ck_assert_msg(line, "no row \"%s\" in:\n%s", label, out);
	line += 3;
	end = strchr(line, '\n');
	ck_assert(end);
	for (int c = 0; c < NR_COLS; c++) {
		p = c < COL_NOTE ? memchr(line, '|', (size_t)(end - line)) : end;
		ck_assert_msg(p, "row \"%s\" has too few cells", label);
		trim_copy(r.cell[c], line, (size_t)(p - line));
		line = p < end ? p + 1 : end;
	}
	return r;
}

static void assert_row(const char *out, const char *label, const char *qemu, const char *pmuvm)
{
	struct table_row r = table_row(out, label);

	ck_assert_msg(!strcmp(r.cell[COL_QEMU], qemu), "%s: QEMU/KVM \"%s\", want \"%s\"",
		      label, r.cell[COL_QEMU], qemu);
	ck_assert_msg(!strcmp(r.cell[COL_PMUVM], pmuvm), "%s: pmuvm \"%s\", want \"%s\"",
		      label, r.cell[COL_PMUVM], pmuvm);
}

static const char *const exact_rows[] = {
	"CPL0 loop: instructions (0xC0)", "CPL0 loop: instructions (fixed 0)",
	"CPL0 loop: branches (0xC4)", "CPL3 loop: instructions (0xC0)",
	"CPL3 loop: instructions (fixed 0)", "CPL3 loop: branches (0xC4)",
};

/* The loop's exact counts (tests/guests/compare.c). */
static const char *const exact_want[] = { "2000", "2000", "1000", "2000", "2000", "1000" };

/* Where QEMU/KVM has a PMU: every exact event agrees with pmuvm. */
static void assert_agree(const char *out)
{
	for (unsigned int i = 0; i < sizeof(exact_rows) / sizeof(exact_rows[0]); i++) {
		struct table_row r = table_row(out, exact_rows[i]);

		if (i >= 3 && !strcmp(r.cell[COL_PMUVM], "0 (not counted)"))
			continue;	/* pmuvm on a host that cannot step CPL3 */
		ck_assert_msg(!strcmp(r.cell[COL_NOTE], "agree"), "%s: %s / %s: %s",
			      exact_rows[i], r.cell[COL_QEMU], r.cell[COL_PMUVM],
			      r.cell[COL_NOTE]);
	}
}

/* scripts/pmuvm-compare with pmuvm's PMU `pmu`; false (after test_skip()) without QEMU. */
static bool run_compare(struct pmuvm_result *r, const char *pmu)
{
	const char *script = getenv("PMUVM_COMPARE") ? getenv("PMUVM_COMPARE")
						      : "scripts/pmuvm-compare";
	char guest[4096];

	if (!have_program("qemu-system-x86_64")) {
		test_skip("qemu-system-x86_64 is not installed");
		return false;
	}
	snprintf(guest, sizeof(guest), "%s", guest_path("compare"));
	cmd_run_args(r, script, "--pmuvm", pmuvm_path(), "--guest", guest, "--pmu", pmu,
		     "--timeout", "60");
	ck_assert_msg(r->status == 0, "status %d\n%s\n%s", r->status, r->out, r->err);
	return true;
}

/*
 * The loop's cycles under pmuvm: it is counted (stepped or emulated), so
 * --cpi (1) an instruction, the steps' own time left out
 * (docs/counting.md, "Cycles while stepping").
 */
#define LOOP_CYCLES	"2000"

START_TEST(test_compare_qemu_kvm_vs_pmuvm)
{
	struct pmuvm_result r;
	struct table_row row;

	REQUIRE_KVM();
	if (!run_compare(&r, "intel"))
		return;

	row = table_row(r.out, "PMU version (CPUID.0AH)");
	if (strcmp(row.cell[COL_QEMU], "not implemented (0)")) {
		printf("%s: QEMU/KVM offers a PMU here (version %s): checking agreement\n",
		       __func__, row.cell[COL_QEMU]);
		assert_agree(r.out);
		pmuvm_result_free(&r);
		return;
	}

	assert_row(r.out, "PMU version (CPUID.0AH)", "not implemented (0)", "5");
	assert_row(r.out, "general-purpose counters", "not implemented (0)", "8 x 48 bits");
	assert_row(r.out, "fixed counters", "not implemented (0)", "3 x 48 bits");
	assert_row(r.out, "KeSetHardwareCounterConfiguration",
		   "STATUS_NOT_IMPLEMENTED (0xc0000002)", "STATUS_SUCCESS (0x00000000)");
	assert_row(r.out, "KeQueryHardwareCounterConfiguration",
		   "STATUS_NOT_IMPLEMENTED (0xc0000002)", "STATUS_SUCCESS (0x00000000)");
	/* No PMU: the HAL has no allocate routine to offer (ntpmu_hal.c, step 5). */
	assert_row(r.out, "HalAllocateHardwareCounters",
		   "STATUS_INSUFFICIENT_RESOURCES (0xc000009a)", "STATUS_SUCCESS (0x00000000)");
	for (unsigned int i = 0; i < 3; i++)
		assert_row(r.out, exact_rows[i], "not implemented", exact_want[i]);
	for (unsigned int i = 3; i < 6; i++) {
		row = table_row(r.out, exact_rows[i]);
		ck_assert_str_eq(row.cell[COL_QEMU], "not implemented");
		/* User mode is exact where the host can step CPL3, else not counted. */
		if (strcmp(row.cell[COL_PMUVM], "0 (not counted)"))
			ck_assert_str_eq(row.cell[COL_PMUVM], exact_want[i]);
		else
			ck_assert_str_eq(row.cell[COL_NOTE], "pmuvm: this host cannot step CPL3");
	}
	row = table_row(r.out, "CPL0 loop: core cycles (0x3C)");
	ck_assert_str_eq(row.cell[COL_QEMU], "not implemented");
	ck_assert_str_eq(row.cell[COL_PMUVM], LOOP_CYCLES);
	printf("%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

/* The same with pmuvm's AMD PMU (--pmu amd): AMD's counters and encodings. */
START_TEST(test_compare_amd)
{
	static const char *const rows[][2] = {
		{ "PMU version (CPUID.0AH)", "2" },
		{ "general-purpose counters", "6 x 48 bits" },
		{ "fixed counters", "not implemented (0)" },
		{ "KeSetHardwareCounterConfiguration", "STATUS_SUCCESS (0x00000000)" },
		{ "HalAllocateHardwareCounters", "STATUS_SUCCESS (0x00000000)" },
		{ "CPL0 loop: instructions (0xC0)", "2000" },
		{ "CPL0 loop: instructions (fixed 0)", "not implemented" },
		{ "CPL0 loop: branches (0xC2)", "1000" },
	};
	struct pmuvm_result r;
	struct table_row row;

	REQUIRE_KVM();
	if (!run_compare(&r, "amd"))
		return;
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		row = table_row(r.out, rows[i][0]);
		ck_assert_msg(!strcmp(row.cell[COL_PMUVM], rows[i][1]), "%s: pmuvm \"%s\", want \"%s\"\n%s",
			      rows[i][0], row.cell[COL_PMUVM], rows[i][1], r.out);
	}
	row = table_row(r.out, "CPL0 loop: core cycles (0x76)");
	ck_assert_str_eq(row.cell[COL_PMUVM], LOOP_CYCLES);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("qemu-kvm-vs-pmuvm");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_compare_qemu_kvm_vs_pmuvm);
	tcase_add_test(tc, test_compare_amd);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(compare_suite)
