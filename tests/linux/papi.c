/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PAPI's counts of code whose counts are known, through PAPI's own API
 * (the shapes of PAPI's validation tests: total instructions, a REP
 * string counted once, the branch family). Each preset is measured alone
 * around a kernel run with N + 1 iterations and with 1; the difference
 * leaves out what PAPI_start() and PAPI_stop() run themselves.
 *
 *   papi          "papi: KERNEL PRESET=DIFF" lines ("na" when PAPI has no
 *                 such preset here, "error CODE" when it fails)
 */
#include <papi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PAPI_N		1000L
#define PAPI_REP_N	6000L

static char papi_buf[PAPI_REP_N];

/* 1 + 2n instructions: n conditional branches, n - 1 of them taken. */
static void papi_loop(long n)
{
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

/* One REP STOSB of n bytes: the same instructions whatever n is. */
static void papi_rep(long n)
{
	void *d = papi_buf;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}

/*
 * Per iteration five instructions, three branches: a JMP, a JZ not taken
 * (n is not zero there) and a JNZ taken but for the last.
 */
static void papi_branches(long n)
{
	__asm__ volatile("1: jmp 2f\n2: test %0, %0\n\tjz 3f\n3: dec %0\n\tjnz 1b"
			 : "+r"(n) : : "cc");
}

static const struct {
	const char *name;
	void (*run)(long n);
	long n;
} papi_kernels[] = {
	{ "loop", papi_loop, PAPI_N },
	{ "rep", papi_rep, PAPI_REP_N },
	{ "branches", papi_branches, PAPI_N },
};

static const char *const papi_presets[] = {
	"PAPI_TOT_INS", "PAPI_BR_INS", "PAPI_BR_CN", "PAPI_BR_TKN", "PAPI_BR_NTK", "PAPI_BR_UCN",
};

/* The preset's count over one run of `run(n)`, in *v; a PAPI error code otherwise. */
static int papi_measure(int code, void (*run)(long n), long n, long long *v)
{
	int es = PAPI_NULL, r;

	r = PAPI_create_eventset(&es);
	if (r == PAPI_OK)
		r = PAPI_add_event(es, code);
	if (r == PAPI_OK)
		r = PAPI_start(es);
	if (r == PAPI_OK) {
		run(n);
		r = PAPI_stop(es, v);
	}
	if (es != PAPI_NULL) {
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
	}
	return r;
}

/* One "papi: KERNEL ..." line per kernel, the presets in the order of papi_presets[]. */
int main(void)
{
	enum { NK = sizeof(papi_kernels) / sizeof(papi_kernels[0]),
	       NP = sizeof(papi_presets) / sizeof(papi_presets[0]) };
	char lines[NK][512];
	int r = PAPI_library_init(PAPI_VER_CURRENT);

	if (r != PAPI_VER_CURRENT) {
		printf("papi: init error %d\n", r);
		return 1;
	}
	for (size_t k = 0; k < NK; k++)
		snprintf(lines[k], sizeof(lines[k]), "papi: %s", papi_kernels[k].name);
	for (size_t p = 0; p < NP; p++) {
		long long one, more;
		int code;
		bool avail = PAPI_event_name_to_code(papi_presets[p], &code) == PAPI_OK &&
			     PAPI_query_event(code) == PAPI_OK;

		/* A first run warms what the later ones run (lazy binding, first faults). */
		r = avail ? papi_measure(code, papi_loop, 1, &one) : PAPI_OK;
		for (size_t k = 0; k < NK; k++) {
			size_t len = strlen(lines[k]);

			if (!avail) {
				snprintf(lines[k] + len, sizeof(lines[k]) - len, " %s=na",
					 papi_presets[p]);
				continue;
			}
			if (r == PAPI_OK)
				r = papi_measure(code, papi_kernels[k].run, 1, &one);
			if (r == PAPI_OK)
				r = papi_measure(code, papi_kernels[k].run, papi_kernels[k].n + 1,
						 &more);
			if (r != PAPI_OK)
				snprintf(lines[k] + len, sizeof(lines[k]) - len, " %s=error%d",
					 papi_presets[p], r);
			else
				snprintf(lines[k] + len, sizeof(lines[k]) - len, " %s=%lld",
					 papi_presets[p], more - one);
		}
	}
	for (size_t k = 0; k < NK; k++)
		printf("%s\n", lines[k]);
	return 0;
}
