/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm's patches of guest code (guest_mem.h): where they are, whether the
 * guest has left them in place, and the original bytes for pmuvm's own
 * decoders (exact/icache.c), so that an RDMSR pmuvm put over an RDPMC still
 * decodes, counts and classifies as that RDPMC.
 */
#include <errno.h>
#include <string.h>

#include "mem/guest_mem.h"

#define PAGE_MASK_4K	0xfffULL

int guest_mem_patch(struct guest_mem *mem, uint64_t gpa, const uint8_t bytes[MEM_PATCH_LEN])
{
	struct mem_patch *p;
	uint8_t *hva;

	if (mem->nr_patches == MEM_PATCH_MAX)
		return -ENOSPC;
	if ((gpa & PAGE_MASK_4K) > PAGE_MASK_4K + 1 - MEM_PATCH_LEN ||
	    !(hva = guest_mem_ptr(mem, gpa, MEM_PATCH_LEN)))
		return -EFAULT;
	p = &mem->patches[mem->nr_patches++];
	p->gpa = gpa;
	memcpy(p->orig, hva, MEM_PATCH_LEN);
	memcpy(p->now, bytes, MEM_PATCH_LEN);
	memcpy(hva, bytes, MEM_PATCH_LEN);
	return 0;
}

void guest_mem_patch_undo(struct guest_mem *mem, unsigned int from)
{
	while (mem->nr_patches > from) {
		struct mem_patch *p = &mem->patches[--mem->nr_patches];
		uint8_t *hva = guest_mem_ptr(mem, p->gpa, MEM_PATCH_LEN);

		if (hva && !memcmp(hva, p->now, MEM_PATCH_LEN))
			memcpy(hva, p->orig, MEM_PATCH_LEN);
	}
}

static bool patch_in_place(const struct guest_mem *mem, const struct mem_patch *p)
{
	const uint8_t *hva = guest_mem_ptr(mem, p->gpa, MEM_PATCH_LEN);

	return hva && !memcmp(hva, p->now, MEM_PATCH_LEN);
}

const struct mem_patch *guest_mem_patch_at(const struct guest_mem *mem, uint64_t gpa)
{
	for (unsigned int i = 0; i < mem->nr_patches; i++)
		if (mem->patches[i].gpa == gpa)
			return patch_in_place(mem, &mem->patches[i]) ? &mem->patches[i] : NULL;
	return NULL;
}

bool guest_mem_unpatch(const struct guest_mem *mem, uint64_t gpa, uint8_t *buf, size_t len)
{
	bool any = false;

	for (unsigned int i = 0; i < mem->nr_patches; i++) {
		const struct mem_patch *p = &mem->patches[i];

		if (p->gpa < gpa || p->gpa + MEM_PATCH_LEN > gpa + len || !patch_in_place(mem, p))
			continue;
		memcpy(buf + (p->gpa - gpa), p->orig, MEM_PATCH_LEN);
		any = true;
	}
	return any;
}
