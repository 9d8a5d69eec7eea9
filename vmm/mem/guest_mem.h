/*
 * Guest-physical memory layout: up to two RAM regions (below the PCI hole and
 * above 4 GiB), each backed by host memory.  Pure: used by the loader, the
 * page-table walker and their fuzzers as well as by the VM.
 */
#ifndef PMUVM_GUEST_MEM_H
#define PMUVM_GUEST_MEM_H

#include <stdint.h>

struct mem_region {
	uint64_t gpa;
	uint64_t size;
	uint8_t *hva;
};

#define GUEST_MEM_MAX_REGIONS	2

struct guest_mem {
	struct mem_region regions[GUEST_MEM_MAX_REGIONS];
	unsigned int nr;
};

/* RAM below the PCI hole ends here; the rest starts at 4 GiB (QEMU pc layout). */
#define GUEST_LOWMEM_END	0xc0000000ULL
#define GUEST_HIGHMEM_START	0x100000000ULL

/* Lays out `size` bytes of RAM backed by `host` (contiguous) as regions. */
void guest_mem_layout(struct guest_mem *mem, uint8_t *host, uint64_t size);

/* Host pointer to [gpa, gpa+len) if it lies entirely inside one RAM region, else NULL. */
void *guest_mem_ptr(const struct guest_mem *mem, uint64_t gpa, uint64_t len);

#endif
