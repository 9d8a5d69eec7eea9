/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Decoded instructions cached by guest-physical address.
 * An entry keeps the bytes it was decoded from and is used only while guest
 * memory still holds those bytes, so self-modifying code, a reloaded image
 * or a page reused for other code never sees a stale decode; there is no
 * write tracking to get wrong.  Instructions that cross a page boundary are
 * decoded every time (their second half lives at an unrelated GPA).
 *
 * The page-table walk of a fetch is cached too, in a small TLB of code
 * pages keyed by the paging registers, as the CPU's own TLB caches it: the
 * exact source flushes it where the CPU's would be (INVLPG, INVPCID) and
 * wherever the guest may have run unobserved (any exit but a plain step).
 */
#ifndef PMUVM_EXACT_ICACHE_H
#define PMUVM_EXACT_ICACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/guest_mem.h"
#include "mem/pagewalk.h"
#include "x86/decode.h"

#define ICACHE_ENTRIES	4096	/* direct-mapped, a power of two */

struct icache_entry {
	uint64_t gpa;		/* ~0: empty */
	uint8_t mode;
	uint8_t bytes[INSN_MAX_LEN];
	struct insn insn;
};

#define ICACHE_TLB_ENTRIES	4	/* a power of two */

struct icache_tlb_entry {
	struct paging_state ps;
	uint64_t page;		/* linear page number; ~0: empty */
	uint64_t gpa;		/* its guest-physical page */
	bool user;
};

struct icache {
	struct icache_entry e[ICACHE_ENTRIES];
	struct icache_tlb_entry tlb[ICACHE_TLB_ENTRIES];
	uint64_t hits, misses, stale;	/* for the report and the benchmark */
};

void icache_init(struct icache *c);

/* Forgets every cached translation (not the decoded instructions). */
void icache_flush_tlb(struct icache *c);

/*
 * Decodes the instruction at linear `rip` through the guest's page tables
 * (`user`: fetched at CPL3).  0, or the walk's error, or -EINVAL for bytes
 * that are not an instruction.
 */
int icache_fetch(struct icache *c, const struct guest_mem *mem, const struct paging_state *ps,
		 uint64_t rip, bool user, enum insn_mode mode, struct insn *out);

#endif
