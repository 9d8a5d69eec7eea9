/* SPDX-License-Identifier: MIT */
/*
 * The PERF_COUNTER_IDENTIFIER block parser of PerfAddCounters and
 * PerfDeleteCounters (docs/windows-api.md 6.3-6.4).  Pure: it depends on nothing
 * but the buffer, so the fuzz target (fuzz/fuzz_perflib_blocks.c) runs it
 * alone.  It never reads outside [buf, buf + cb).
 */
#ifndef NTPMU_PERF_BLOCKS_H
#define NTPMU_PERF_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "nt/perflib.h"

/*
 * The sequence as a whole, before any block is acted on: buf not NULL and
 * 8-byte aligned (every block is, docs/windows-api.md 6.3), each block's Size at least
 * sizeof(PERF_COUNTER_IDENTIFIER), a multiple of 8 and inside what is left,
 * and the blocks exactly cover cb.  ERROR_SUCCESS with *count blocks, or
 * ERROR_INVALID_PARAMETER.
 */
ULONG ntpmu_perf_blocks_check(const void *buf, DWORD cb, unsigned int *count);

/* One block's own fields, once the sequence passed the check. */
struct ntpmu_perf_block {
	PERF_COUNTER_IDENTIFIER *id;
	const WCHAR *name;		/* in the block; NULL if it has none */
	size_t name_len;		/* UTF-16 units before the NUL */
};

/*
 * ERROR_SUCCESS, or ERROR_INVALID_PARAMETER (the block's Status) when:
 * Reserved is not 0; the name area has no NUL, an empty name, a name of
 * PERF_MAX_INSTANCE_NAME units or more with its NUL; or Size is not exactly
 * the structure plus name plus the padding to 8.
 */
ULONG ntpmu_perf_block_parse(PERF_COUNTER_IDENTIFIER *id, struct ntpmu_perf_block *out);

/* The block after `id` (the check guarantees it is inside the buffer or the end). */
static inline PERF_COUNTER_IDENTIFIER *ntpmu_perf_block_next(PERF_COUNTER_IDENTIFIER *id)
{
	return (PERF_COUNTER_IDENTIFIER *)((unsigned char *)id + id->Size);
}

/* Bytes of a block carrying a name of `len` units (0 and no name: the bare structure). */
static inline ULONG ntpmu_perf_block_size(size_t len, bool has_name)
{
	if (!has_name)
		return sizeof(PERF_COUNTER_IDENTIFIER);
	return (ULONG)((sizeof(PERF_COUNTER_IDENTIFIER) + (len + 1) * sizeof(WCHAR) + 7) & ~(size_t)7);
}

#endif
