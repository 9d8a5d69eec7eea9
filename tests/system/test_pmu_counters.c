/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The checks of Linux's KVM selftest pmu_counters_test, run by
 * tests/guests/pmu_counters.c over a matrix of CPUID.0AH configurations
 * (docs/counting.md, "Checks shared with KVM's selftests"): PMU versions,
 * event vector lengths and hidden events, GP counter counts with and
 * without full-width writes, fixed counter counts and version 5 bitmaps.
 * Each run checks the guest saw the CPUID.0AH asked for and passed every
 * rule for it; the labs run the cases on which counters exist (host_cases,
 * no_pmu_case), where a host's KVM answering RDPMC shows.  The same guest then mirrors pmu_event_filter_test: under
 * each --event-filter, exactly the allowed events and fixed counters count.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "pmuvm_run.h"
#include "suite.h"

/*
 * The architectural events pmuvm's default sources produce (exact
 * instructions and branches, cycles from the clock), bit i: CPUID.0AH:EBX
 * event i; the rest no source produces, and the CPUID marks them unavailable.
 */
#define PRODUCED	0x27u
#define NOT_PRODUCED	(0xffu & ~PRODUCED)

#define DEF	(-1)	/* option not given */

static const struct counters_case {
	int version, gp, fixed, fixed_mask, evlen;
	long long hidden;
	bool fw_off;
} cases[] = {
	/* The event vector: every version, full/empty/over-long, none/all hidden. */
	{ 1, DEF, DEF, DEF, 8, 0, false }, { 1, DEF, DEF, DEF, 8, 0xff, false },
	{ 1, DEF, DEF, DEF, 0, 0, false }, { 1, DEF, DEF, DEF, 9, 0x1ff, false },
	{ 2, DEF, DEF, DEF, 8, 0, false }, { 2, DEF, DEF, DEF, 8, 0xff, false },
	{ 2, DEF, DEF, DEF, 0, 0, false }, { 2, DEF, DEF, DEF, 9, 0x1ff, false },
	{ 3, DEF, DEF, DEF, 8, 0, false }, { 3, DEF, DEF, DEF, 8, 0xff, false },
	{ 3, DEF, DEF, DEF, 0, 0, false }, { 3, DEF, DEF, DEF, 9, 0x1ff, false },
	{ 4, DEF, DEF, DEF, 8, 0, false }, { 4, DEF, DEF, DEF, 8, 0xff, false },
	{ 4, DEF, DEF, DEF, 0, 0, false }, { 4, DEF, DEF, DEF, 9, 0x1ff, false },
	{ 5, DEF, DEF, DEF, 8, 0, false }, { 5, DEF, DEF, DEF, 8, 0xff, false },
	{ 5, DEF, DEF, DEF, 0, 0, false }, { 5, DEF, DEF, DEF, 9, 0x1ff, false },
	{ 5, DEF, DEF, DEF, 32, 0xffffffff, false },
	/* Version 5: each event hidden alone, each shorter length. */
	{ 5, DEF, DEF, DEF, 8, 0x01, false }, { 5, DEF, DEF, DEF, 8, 0x02, false },
	{ 5, DEF, DEF, DEF, 8, 0x04, false }, { 5, DEF, DEF, DEF, 8, 0x08, false },
	{ 5, DEF, DEF, DEF, 8, 0x10, false }, { 5, DEF, DEF, DEF, 8, 0x20, false },
	{ 5, DEF, DEF, DEF, 8, 0x40, false }, { 5, DEF, DEF, DEF, 8, 0x80, false },
	{ 5, DEF, DEF, DEF, 1, 0, false }, { 5, DEF, DEF, DEF, 2, 0, false },
	{ 5, DEF, DEF, DEF, 3, 0, false }, { 5, DEF, DEF, DEF, 4, 0, false },
	{ 5, DEF, DEF, DEF, 5, 0, false }, { 5, DEF, DEF, DEF, 6, 0, false },
	{ 5, DEF, DEF, DEF, 7, 0, false },
	/* Fixed counters: counts before version 5, counts and bitmaps from it. */
	{ 2, DEF, 0, DEF, DEF, DEF, false }, { 2, DEF, 1, DEF, DEF, DEF, false },
	{ 2, DEF, 4, DEF, DEF, DEF, false }, { 3, DEF, 2, DEF, DEF, DEF, false },
	{ 4, DEF, 4, DEF, DEF, DEF, false },
	{ 5, DEF, 0, DEF, DEF, DEF, false }, { 5, DEF, 4, DEF, DEF, DEF, false },
	{ 5, DEF, 0, 0x0, DEF, DEF, false }, { 5, DEF, 0, 0x1, DEF, DEF, false },
	{ 5, DEF, 0, 0x8, DEF, DEF, false }, { 5, DEF, 0, 0xf, DEF, DEF, false },
	{ 5, DEF, 1, 0x4, DEF, DEF, false }, { 5, DEF, 2, 0x8, DEF, DEF, false },
	{ 5, DEF, 3, 0x0, DEF, DEF, false },
	{ 5, DEF, DEF, 0xb, DEF, DEF, false }, { 5, DEF, DEF, 0x6, DEF, DEF, false },
};

/*
 * Which counters exist, where the host's KVM may answer RDPMC for counters
 * pmuvm does not have (docs/counting.md, "RDPMC that KVM answers"): run on
 * every host, the labs included.
 */
static const struct counters_case host_cases[] = {
	/* GP counters: none, one, two, all; with the legacy alias only. */
	{ 1, 0, DEF, DEF, DEF, DEF, false }, { 1, 1, DEF, DEF, DEF, DEF, false },
	{ 1, 2, DEF, DEF, DEF, DEF, false },
	{ 2, 0, DEF, DEF, DEF, DEF, false }, { 2, 1, DEF, DEF, DEF, DEF, false },
	{ 2, 2, DEF, DEF, DEF, DEF, false }, { 2, 1, DEF, DEF, DEF, DEF, true },
	{ 2, 8, DEF, DEF, DEF, DEF, true },
	{ 5, 0, DEF, DEF, DEF, DEF, false }, { 5, 1, DEF, DEF, DEF, DEF, false },
	{ 5, 3, DEF, DEF, DEF, DEF, false }, { 5, 0, DEF, DEF, DEF, DEF, true },
	{ 5, 2, DEF, DEF, DEF, DEF, true },
	/* Fixed-counter bitmaps with holes. */
	{ 5, DEF, 0, 0x5, DEF, DEF, false }, { 5, DEF, 0, 0xa, DEF, DEF, false },
	{ 5, DEF, 3, 0x5, DEF, DEF, false }, { 5, 0, 0, 0x4, DEF, DEF, false },
};

/* No PMU (version 0): every counter MSR and RDPMC #GPs. */
static const struct counters_case no_pmu_case = { 0, DEF, DEF, DEF, DEF, DEF, false };

/*
 * ...as the Intel model's --pmu-version 0, and as --pmu none under an AMD
 * CPU (the AMD model has no version 0: a guest that sees an AMD CPU
 * without a PMU has --pmu none).
 */
static const char *const no_pmu_vendors[] = { NULL, "amd" };

#define MAX_ARGS 24

struct run_args {
	const char *argv[MAX_ARGS];
	char buf[7][24];
	size_t n, nbuf;
};

static void add(struct run_args *a, const char *s)
{
	ck_assert(a->n < MAX_ARGS - 1);
	a->argv[a->n++] = s;
}

/* "opt V" unless v is DEF; masks in hex, after `prefix`. */
static void add_num(struct run_args *a, const char *opt, const char *prefix, bool hex,
		    long long v)
{
	if (v == DEF)
		return;
	ck_assert(a->nbuf < sizeof(a->buf) / sizeof(a->buf[0]));
	if (hex)
		snprintf(a->buf[a->nbuf], sizeof(a->buf[0]), "%s0x%llx", prefix, v);
	else
		snprintf(a->buf[a->nbuf], sizeof(a->buf[0]), "%s%lld", prefix, v);
	add(a, opt);
	add(a, a->buf[a->nbuf++]);
}

/*
 * EDX[4:0] the options ask for: 3 (version 1: 0), or the counters from 0 a
 * bitmap names without a gap.
 */
static unsigned int case_edx_fixed(const struct counters_case *c)
{
	if (c->version == 1)
		return 0;
	return c->fixed != DEF ? (unsigned int)c->fixed :
	       c->fixed_mask != DEF ? (unsigned int)__builtin_ctz(~(unsigned int)c->fixed_mask) : 3;
}

/*
 * The CPUID.0AH the options ask for (docs/cli.md; SDM vol. 2A, CPUID leaf
 * 0AH): EDX[4:0] defaults to 3 (version 1: 0), or to the counters from 0 a
 * bitmap names without a gap; ECX is that bitmap with the contiguous ones
 * (version 5 only); EBX adds what no source produces.
 */
static void expected_line(const struct counters_case *c, char *line, size_t size)
{
	unsigned int gp = c->gp == DEF ? 8 : (unsigned int)c->gp;
	unsigned int fixed = case_edx_fixed(c);
	unsigned int ecx = 0, evlen = c->evlen == DEF ? 8 : (unsigned int)c->evlen;
	unsigned int ebx = (unsigned int)(c->hidden == DEF ? 0 : c->hidden) | NOT_PRODUCED;

	if (c->version == 5)
		ecx = (fixed ? (1u << fixed) - 1 : 0) | (c->fixed_mask == DEF ? 0 : (unsigned int)c->fixed_mask);
	if (!c->version)
		gp = fixed = evlen = ebx = 0;
	snprintf(line, size, "pmu_counters: version=%d gp=%u fixed=%u ecx=0x%x evlen=%u ebx=0x%x\n",
		 c->version, gp, fixed, ecx, evlen, ebx);
}

/*
 * The fixed counters the guest's readers find in that CPUID.0AH: none
 * before version 2, the first EDX[4:0] from it, and from version 5 those
 * of ECX too; nr_fixed one past the highest.  pmu_common.h's reader, then
 * rt_pmc_probe()'s, which finds no PMU without a GP counter (rt/pmc.h).
 */
static void expected_discovery(const struct counters_case *c, char *line, size_t size)
{
	unsigned int gp = c->gp == DEF ? 8 : (unsigned int)c->gp;
	unsigned int fixed = case_edx_fixed(c);
	unsigned int mask = 0, span, rt_mask, rt_span;

	if (c->version >= 2)
		mask = fixed ? (1u << fixed) - 1 : 0;
	if (c->version >= 5 && c->fixed_mask != DEF)
		mask |= (unsigned int)c->fixed_mask;
	span = mask ? 32 - (unsigned int)__builtin_clz(mask) : 0;
	rt_mask = c->version && gp ? mask : 0;
	rt_span = c->version && gp ? span : 0;
	snprintf(line, size,
		 "pmu_counters: fixed_counters=0x%x nr_fixed=%u rt_pmc fixed_counters=0x%x "
		 "nr_fixed=%u\n", mask, span, rt_mask, rt_span);
}

/* pmuvm's only complaint: the guest counts events it does not produce. */
static void expect_only_unproduced_warnings(const char *err, const char *what)
{
	static const char warn[] = "pmuvm: warning: the guest counts ";
	const char *p = err;

	while (*p) {
		const char *nl = strchr(p, '\n');

		ck_assert_msg(!strncmp(p, warn, sizeof(warn) - 1), "%s: unexpected stderr:\n%s",
			      what, err);
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* `c`, with --pmu none and --cpu-vendor `no_pmu_vendor` unless that is NULL. */
static void run_counters_case(const struct counters_case *c, const char *no_pmu_vendor)
{
	struct run_args a = { .n = 0 };
	char what[256], line[256];
	struct pmuvm_result r;
	size_t len = 0, i;

	REQUIRE_KVM();
	if (no_pmu_vendor) {
		add(&a, "--pmu");
		add(&a, "none");
		add(&a, "--cpu-vendor");
		add(&a, no_pmu_vendor);
	}
	add_num(&a, "--pmu-version", "", false, c->version);
	add_num(&a, "--gp-counters", "", false, c->gp);
	add_num(&a, "--fixed-counters", "", false, c->fixed);
	add_num(&a, "--fixed-counter-mask", "", true, c->fixed_mask);
	add_num(&a, "--pmu-event-vector-len", "", false, c->evlen);
	add_num(&a, "--pmu-events-unavailable", "", true, c->hidden);
	if (c->fw_off) {
		add(&a, "--full-width-writes");
		add(&a, "off");
	}
	for (i = 0; i < a.n; i++)
		len += (size_t)snprintf(what + len, sizeof(what) - len, "%s ", a.argv[i]);
	/* PEBS is test_pebs.c's; the counters here are the architectural ones. */
	add(&a, "--pebs");
	add(&a, "off");
	add_num(&a, "--append", "counting=", true, PRODUCED);
	add(&a, "--timeout");
	add(&a, "60");
	add(&a, guest_path("pmu_counters"));
	a.argv[a.n] = NULL;
	pmuvm_run_env(&r, NULL, 120, a.argv);

	expect_guest_pass(&r, what);
	expected_line(c, line, sizeof(line));
	ck_assert_msg(strstr(r.out, line), "%s: guest saw another CPUID.0AH (want %s):\n%s",
		      what, line, r.out);
	expected_discovery(c, line, sizeof(line));
	ck_assert_msg(strstr(r.out, line), "%s: guest found other fixed counters (want %s):\n%s",
		      what, line, r.out);
	expect_guest_ok(&r, "GP counters");
	expect_guest_ok(&r, "fixed counters");
	if (c->version >= 2)
		expect_guest_ok(&r, "GLOBAL_CTRL reset");
	if (c->version >= 1)
		expect_guest_ok(&r, "architectural events");
	expect_only_unproduced_warnings(r.err, what);
	pmuvm_result_free(&r);
}

START_TEST(test_pmu_counters)
{
	run_counters_case(&cases[_i], NULL);
}
END_TEST

START_TEST(test_pmu_counters_exist)
{
	run_counters_case(&host_cases[_i], NULL);
}
END_TEST

START_TEST(test_pmu_counters_no_pmu)
{
	run_counters_case(&no_pmu_case, no_pmu_vendors[_i]);
}
END_TEST

/*
 * pmu_event_filter_test's cases on instructions (0xC0) and branches
 * (0xC4): a list with or without them, allowing or denying; the fixed
 * counters by the bitmap alone (docs/kvm-vpmu.md 1.6).  `counting` and
 * `fixed` are what counts, of PRODUCED and fixed counters 0-2.
 */
static const struct filter_case {
	const char *text;
	unsigned int counting, fixed;
} filter_cases[] = {
	{ "action deny\nevent 0xc0 0x00\nevent 0xc4 0x00\n", PRODUCED & ~0x22u, 0x7 },
	{ "action allow\nevent 0xc0 0x00\nevent 0xc4 0x00\n", 0x22, 0x0 },
	{ "action deny\nevent 0x2e 0x4f\nevent 0x2e 0x41\n", PRODUCED, 0x7 },
	{ "action allow\nevent 0x2e 0x4f\nevent 0x2e 0x41\n", 0x0, 0x0 },
	{ "action allow\nevent 0xc0 0x00\nfixed_counter_bitmap 0x5\n", 0x02, 0x5 },
	{ "action deny\nevent 0xc4 0x00\nfixed_counter_bitmap 0x1\n", PRODUCED & ~0x20u, 0x6 },
	{ "action deny\nmasked 0xc0 0x00 0x00\nfixed_counter_bitmap 0x7\n", PRODUCED & ~0x02u, 0x0 },
};

START_TEST(test_pmu_counters_filter)
{
	const struct filter_case *c = &filter_cases[_i];
	char filter[512], append[64];
	struct pmuvm_result r;

	REQUIRE_KVM();
	snprintf(filter, sizeof(filter), "%s", tmp_path("filter.txt"));
	ck_assert(write_file(filter, c->text, strlen(c->text)));
	snprintf(append, sizeof(append), "counting=0x%x fixed_counting=0x%x", c->counting, c->fixed);
	pmuvm_run(&r, "--pebs", "off", "--timeout", "60", "--event-filter", filter, "--append",
		  append, guest_path("pmu_counters"));
	expect_guest_pass(&r, c->text);
	expect_guest_ok(&r, "fixed counters");
	expect_guest_ok(&r, "architectural events");
	expect_only_unproduced_warnings(r.err, c->text);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *pmu_counters_suite(void)
{
	Suite *s = suite_create("pmu_counters");
	TCase *tc = tcase_create("counters");

	tcase_set_timeout(tc, 150);
	tcase_add_loop_test(tc, test_pmu_counters_exist, 0,
			    (int)(sizeof(host_cases) / sizeof(host_cases[0])));
	tcase_add_loop_test(tc, test_pmu_counters_no_pmu, 0,
			    (int)(sizeof(no_pmu_vendors) / sizeof(no_pmu_vendors[0])));
	suite_add_tcase(s, tc);
	/*
	 * What the guest is told (CPUID.0AH) and which events count: the
	 * model's choices, which do not depend on the kind of KVM; how counts
	 * are taken on each kind is the exact suite's (tests/lib/suite.h).
	 */
	tc = tcase_create("cpuid_0a");
	tcase_set_timeout(tc, 150);
	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_add_loop_test(tc, test_pmu_counters, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("event_filter");
	tcase_set_timeout(tc, 150);
	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_add_loop_test(tc, test_pmu_counters_filter, 0,
			    (int)(sizeof(filter_cases) / sizeof(filter_cases[0])));
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pmu_counters_suite)
