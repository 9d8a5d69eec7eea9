/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the hostile_* guests: a seeded xorshift64 and its edge values. */
#ifndef HOSTILE_COMMON_H
#define HOSTILE_COMMON_H

#include <rt.h>

#define HOSTILE_DEFAULT_SEED	0x9e3779b97f4a7c15ull

static uint64_t hostile_rng;

/* seed=N from --append (0 or absent: the fixed default); returns it. */
static inline uint64_t hostile_seed(void)
{
	if (!mbi_arg_u64("seed", &hostile_rng) || !hostile_rng)
		hostile_rng = HOSTILE_DEFAULT_SEED;
	return hostile_rng;
}

static inline uint64_t xorshift64(void)
{
	hostile_rng ^= hostile_rng << 13;
	hostile_rng ^= hostile_rng >> 7;
	hostile_rng ^= hostile_rng << 17;
	return hostile_rng;
}

/* Mostly random, sometimes the edge values a fuzzer would try. */
static inline uint64_t hostile_value(void)
{
	uint64_t r = xorshift64();

	switch (r & 7) {
	case 0:		return 0;
	case 1:		return ~0ull;
	case 2:		return 1ull << (r >> 58);
	case 3:		return (uint32_t)xorshift64();
	default:	return xorshift64();
	}
}

/* Null IDT, then #UD: #UD -> #GP -> #DF cannot be delivered, shutdown. */
static inline __attribute__((noreturn)) void hostile_triple_fault(void)
{
	static const struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) null_idt = { 0, 0 };

	asm volatile("cli; lidt %0; ud2" : : "m"(null_idt));
	__builtin_unreachable();
}

#endif
