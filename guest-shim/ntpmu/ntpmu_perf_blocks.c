/* SPDX-License-Identifier: MIT */
/* PERF_COUNTER_IDENTIFIER block parsing (see ntpmu_perf_blocks.h). */
#include <stdint.h>

#include "ntpmu_perf_blocks.h"

ULONG ntpmu_perf_blocks_check(const void *buf, DWORD cb, unsigned int *count)
{
	const unsigned char *p = buf;
	size_t left = cb;
	unsigned int n = 0;

	*count = 0;
	if (!p || ((uintptr_t)p & 7) || left < sizeof(PERF_COUNTER_IDENTIFIER))
		return ERROR_INVALID_PARAMETER;
	while (left) {
		const PERF_COUNTER_IDENTIFIER *id = (const PERF_COUNTER_IDENTIFIER *)p;
		ULONG size;

		if (left < sizeof(*id))
			return ERROR_INVALID_PARAMETER;
		size = id->Size;
		if (size < sizeof(*id) || size % 8 || size > left)
			return ERROR_INVALID_PARAMETER;
		p += size;
		left -= size;
		n++;
	}
	*count = n;
	return ERROR_SUCCESS;
}

ULONG ntpmu_perf_block_parse(PERF_COUNTER_IDENTIFIER *id, struct ntpmu_perf_block *out)
{
	const WCHAR *name = (const WCHAR *)(id + 1);
	size_t units = (id->Size - sizeof(*id)) / sizeof(WCHAR), len = 0;

	*out = (struct ntpmu_perf_block){ .id = id };
	if (id->Reserved)
		return ERROR_INVALID_PARAMETER;
	if (!units)
		return ERROR_SUCCESS;
	while (len < units && name[len])
		len++;
	if (len == units || len == 0 || len + 1 > PERF_MAX_INSTANCE_NAME)
		return ERROR_INVALID_PARAMETER;
	if (id->Size != ntpmu_perf_block_size(len, true))
		return ERROR_INVALID_PARAMETER;
	out->name = name;
	out->name_len = len;
	return ERROR_SUCCESS;
}
