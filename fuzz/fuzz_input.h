/* SPDX-License-Identifier: GPL-2.0-only */
/* The fuzzers' input cursor: bytes taken in order, zeros once it runs out. */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct cursor {
	const uint8_t *p;
	size_t left;
};

static inline uint8_t u8(struct cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

/* `bytes` little-endian bytes (up to 8). */
static inline uint64_t u64(struct cursor *c, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)u8(c) << (8 * i);
	return v;
}

#endif
