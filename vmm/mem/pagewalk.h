/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest linear-to-physical translation by walking the guest's page tables
 * (SDM vol. 3A ch. 4): paging off, 32-bit (4 MiB pages with PSE), PAE,
 * 4-level and 5-level (LA57) with 2 MiB and 1 GiB pages.  Pure: every table
 * entry is read through guest_mem_ptr(), so a hostile CR3 or entry can only
 * make the walk fail, never touch host memory outside guest RAM.  Accessed
 * and dirty bits are not updated.
 */
#ifndef PMUVM_PAGEWALK_H
#define PMUVM_PAGEWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/guest_mem.h"

struct paging_state {
	uint64_t cr0, cr3, cr4, efer;
};

#define PW_WRITE	(1u << 0)	/* the access writes */
#define PW_USER		(1u << 1)	/* the access is made at CPL3 */

/*
 * Translates `la`.  Returns 0 with *gpa set, -EINVAL for a non-canonical
 * address, -EFAULT for a not-present entry or a table outside guest RAM,
 * -EACCES when the permission bits forbid the access.
 */
int pagewalk(const struct guest_mem *mem, const struct paging_state *ps, uint64_t la,
	     unsigned int access, uint64_t *gpa);

/* Copies between host and guest linear memory, page by page; 0 or the walk's error. */
int guest_linear_read(const struct guest_mem *mem, const struct paging_state *ps,
		      uint64_t la, void *buf, size_t len);
int guest_linear_write(const struct guest_mem *mem, const struct paging_state *ps,
		       uint64_t la, const void *buf, size_t len);

#endif
