/* SPDX-License-Identifier: GPL-2.0-only */
#include <stddef.h>

#include "mem/guest_mem.h"

void guest_mem_layout(struct guest_mem *mem, uint8_t *host, uint64_t size)
{
	uint64_t low = size < GUEST_LOWMEM_END ? size : GUEST_LOWMEM_END;

	mem->regions[0] = (struct mem_region){ .gpa = 0, .size = low, .hva = host };
	mem->nr = 1;
	mem->fd = -1;
	mem->fd_base = host;
	if (size > low)
		mem->regions[mem->nr++] = (struct mem_region){
			.gpa = GUEST_HIGHMEM_START, .size = size - low, .hva = host + low,
		};
}

void *guest_mem_ptr(const struct guest_mem *mem, uint64_t gpa, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < mem->nr; i++) {
		const struct mem_region *r = &mem->regions[i];

		/* Written so that no hostile gpa/len can overflow. */
		if (gpa >= r->gpa && gpa - r->gpa < r->size && len <= r->size - (gpa - r->gpa))
			return r->hva + (gpa - r->gpa);
	}
	return NULL;
}
