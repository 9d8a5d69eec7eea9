/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the PERF_COUNTER_IDENTIFIER block parser of
 * PerfAddCounters/PerfDeleteCounters (guest-shim/ntpmu/ntpmu_perf_blocks.c,
 * docs/windows-api.md 6.3).  The input is the caller's buffer, copied to an exact-size
 * heap block so ASan flags any read or write outside it.  Invariants: an
 * accepted sequence tiles the buffer exactly; an accepted block's name and
 * its NUL lie inside the block and within PERF_MAX_INSTANCE_NAME units.
 *
 * Built by mk/fuzz.mk (make fuzz); by hand: clang -fsanitize=fuzzer,address,undefined -Iguest-shim/include -Iguest-shim/ntpmu
 *        fuzz/fuzz_ntpmu_perflib.c guest-shim/ntpmu/ntpmu_perf_blocks.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ntpmu_perf_blocks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int n = 0, i;
	size_t off = 0;
	uint8_t *buf;
	PERF_COUNTER_IDENTIFIER *id;

	if (size > 1u << 20)
		return 0;
	buf = malloc(size ? size : 1);	/* malloc is 16-byte aligned */
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (ntpmu_perf_blocks_check(buf, (DWORD)size, &n) != ERROR_SUCCESS) {
		free(buf);
		return 0;
	}
	id = (PERF_COUNTER_IDENTIFIER *)buf;
	for (i = 0; i < n; i++, id = ntpmu_perf_block_next(id)) {
		struct ntpmu_perf_block b;

		if ((uint8_t *)id != buf + off || off + id->Size > size)
			__builtin_trap();
		if (ntpmu_perf_block_parse(id, &b) == ERROR_SUCCESS && b.name) {
			const uint8_t *end = (const uint8_t *)(b.name + b.name_len + 1);

			if (end > (uint8_t *)id + id->Size || b.name[b.name_len] ||
			    b.name_len + 1 > PERF_MAX_INSTANCE_NAME)
				__builtin_trap();
		}
		off += id->Size;
	}
	if (off != size)
		__builtin_trap();
	free(buf);
	return 0;
}
