/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loader fuzzers' guest RAM: each region its own exact-size allocation,
 * so ASan reports any write outside guest RAM, kept while its size stays
 * the same (allocating megabytes per run would dominate the time); and
 * their invariant check, which aborts with what was violated.
 */
#ifndef FUZZ_RAM_H
#define FUZZ_RAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void fuzz_check(const char *target, bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: invariant violated: %s\n", target, what);
		abort();
	}
}

/* An exact-size buffer of `size` bytes, reallocated only when the size changes. */
static inline uint8_t *fuzz_region(uint8_t **buf, uint64_t *have, uint64_t size)
{
	if (!*buf || *have != size) {
		free(*buf);
		*buf = malloc(size);	/* ASan gives 0 bytes a valid, inaccessible pointer */
		fuzz_check("fuzz", *buf != NULL, "out of memory");
		memset(*buf, 0xaa, size);
		*have = size;
	}
	return *buf;
}

#endif
