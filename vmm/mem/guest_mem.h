/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest-physical memory layout: up to two RAM regions (below the PCI hole and
 * above 4 GiB), each backed by host memory.  Pure: used by the loader, the
 * page-table walker and their fuzzers as well as by the VM.
 */
#ifndef PMUVM_GUEST_MEM_H
#define PMUVM_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mem_region {
	uint64_t gpa;
	uint64_t size;
	uint8_t *hva;
};

#define GUEST_MEM_MAX_REGIONS	2

/*
 * Bytes pmuvm wrote over guest code (rdpmc/trap.c: an RDMSR over each of
 * the image's RDPMCs), with what was there: pmuvm's own decoders see the
 * original instruction (patch.c).
 */
#define MEM_PATCH_LEN	2
#define MEM_PATCH_MAX	64

struct mem_patch {
	uint64_t gpa;
	uint8_t orig[MEM_PATCH_LEN];
	uint8_t now[MEM_PATCH_LEN];
};

struct guest_mem {
	struct mem_region regions[GUEST_MEM_MAX_REGIONS];
	unsigned int nr;
	/*
	 * The memfd behind the regions (-1: anonymous memory), its offset 0 at
	 * `fd_base`: another mapping of the same pages (exact/emulate.c's
	 * mirrors) maps offset hva - fd_base.
	 */
	int fd;
	const uint8_t *fd_base;
	unsigned int nr_patches;
	struct mem_patch patches[MEM_PATCH_MAX];
};

/* RAM below the PCI hole ends here; the rest starts at 4 GiB (QEMU pc layout). */
#define GUEST_LOWMEM_END	0xc0000000ULL
#define GUEST_HIGHMEM_START	0x100000000ULL

/* Lays out `size` bytes of RAM backed by `host` (contiguous) as regions. */
void guest_mem_layout(struct guest_mem *mem, uint8_t *host, uint64_t size);

/* Host pointer to [gpa, gpa+len) if it lies entirely inside one RAM region, else NULL. */
void *guest_mem_ptr(const struct guest_mem *mem, uint64_t gpa, uint64_t len);

/*
 * Writes `bytes` over the MEM_PATCH_LEN bytes at `gpa` and remembers what
 * was there: 0, -ENOSPC, or -EFAULT where they are not RAM of one page.
 */
int guest_mem_patch(struct guest_mem *mem, uint64_t gpa, const uint8_t bytes[MEM_PATCH_LEN]);
/* Takes back the patches from the `from`th on, where they are still in place. */
void guest_mem_patch_undo(struct guest_mem *mem, unsigned int from);
/*
 * The patch at `gpa` that still holds the bytes pmuvm wrote (the guest may
 * have overwritten them since), or NULL.
 */
const struct mem_patch *guest_mem_patch_at(const struct guest_mem *mem, uint64_t gpa);
/*
 * `buf` holds the `len` guest bytes from `gpa`: puts back the original
 * bytes of every patch in it that is still in place. True if there was one.
 */
bool guest_mem_unpatch(const struct guest_mem *mem, uint64_t gpa, uint8_t *buf, size_t len);

#endif
