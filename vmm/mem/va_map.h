/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A guest's linear address space as runs of host memory: every page its
 * 4-level page tables (SDM vol. 3A 4.5) map to guest RAM, merged into runs
 * that are contiguous in linear address and host memory and share their
 * rights, as an access at one privilege level sees them. An emulator that
 * has no MMU of its own maps these runs (exact/emulate.c); an address
 * outside them is one the guest's own walk would fault on, or not RAM
 * (MMIO), and left to KVM. Pure: tables are read through guest_mem_ptr().
 */
#ifndef PMUVM_MEM_VA_MAP_H
#define PMUVM_MEM_VA_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/guest_mem.h"
#include "mem/pagewalk.h"

#define VA_READ		(1u << 0)
#define VA_WRITE	(1u << 1)
#define VA_EXEC		(1u << 2)

struct va_run {
	uint64_t la;		/* canonical linear address, 4 KiB aligned */
	uint64_t len;
	uint8_t *host;		/* guest RAM backing [la, la + len) */
	unsigned int prot;	/* VA_* */
};

/*
 * The runs as code at CPL3 (`user`) or CPL0-2 sees them, in increasing
 * linear address (negative addresses last), at most `max`: their number,
 * -E2BIG past `max`, -EOPNOTSUPP for paging other than 4-level (paging off,
 * 32-bit, PAE without long mode, LA57).
 *
 * Rights: present at every level; writable where every level allows it,
 * or at CPL0-2 with CR0.WP clear; executable where no level sets XD (with
 * EFER.NXE) and, at CPL0-2 with CR4.SMEP, the page is not a user page.
 * SMAP is not modelled: supervisor data accesses see user pages, as a
 * kernel between STAC and CLAC does (docs/counting.md, "The emulation engine").
 * The emulator cannot set the accessed and dirty flags a CPU sets as it
 * walks (SDM vol. 3A 4.8), which the guest's memory management reads: a
 * page with an entry whose accessed flag is clear is left out, and one
 * whose dirty flag is clear is not writable, so that such an access goes
 * to KVM, which sets them.
 */
int va_map_build(const struct guest_mem *mem, const struct paging_state *ps, bool user,
		 struct va_run *out, unsigned int max);

/*
 * The run of one page (4 KiB, 2 MiB or 1 GiB, clipped to a RAM region)
 * that holds `la`, with the same rights: for a space of too many runs to
 * walk whole. 0, -EFAULT where `la` maps no RAM at that CPL, -EOPNOTSUPP
 * as above.
 */
int va_map_page(const struct guest_mem *mem, const struct paging_state *ps, bool user,
		uint64_t la, struct va_run *out);

#endif
