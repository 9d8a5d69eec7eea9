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

#include "mem/guest_mem.h"

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

/* Guest RAM of `low_size` bytes from 0 and, unless 0, `high_size` at 4 GiB. */
static inline void fuzz_guest_mem(struct guest_mem *mem, uint64_t low_size, uint64_t high_size)
{
	static uint8_t *low, *high;
	static uint64_t have_low, have_high;

	mem->nr = 1;
	mem->regions[0] = (struct mem_region){
		.gpa = 0, .size = low_size, .hva = fuzz_region(&low, &have_low, low_size),
	};
	if (high_size)
		mem->regions[mem->nr++] = (struct mem_region){
			.gpa = GUEST_HIGHMEM_START, .size = high_size,
			.hva = fuzz_region(&high, &have_high, high_size),
		};
}

#endif
