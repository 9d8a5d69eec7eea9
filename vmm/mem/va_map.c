/* SPDX-License-Identifier: GPL-2.0-only */
/* Runs of a 4-level linear address space (va_map.h). */
#include <errno.h>
#include <string.h>

#include "mem/va_map.h"

#define CR0_PG		(1ULL << 31)
#define CR0_WP		(1ULL << 16)
#define CR4_PAE		(1ULL << 5)
#define CR4_LA57	(1ULL << 12)
#define CR4_SMEP	(1ULL << 20)
#define EFER_LMA	(1ULL << 10)
#define EFER_NXE	(1ULL << 11)

#define PTE_P		(1ULL << 0)
#define PTE_RW		(1ULL << 1)
#define PTE_US		(1ULL << 2)
#define PTE_A		(1ULL << 5)
#define PTE_D		(1ULL << 6)
#define PTE_PS		(1ULL << 7)
#define PTE_XD		(1ULL << 63)
#define PTE_ADDR	0x000ffffffffff000ULL	/* MAXPHYADDR 52 */

#define PAGE_4K		4096ULL

struct va_build {
	const struct guest_mem *mem;
	bool user, wp, nxe, smep;
	struct va_run *out;
	unsigned int max, n;
	int err;
};

/*
 * The rights of a page whose levels allow `rw`, `us` and forbid execution
 * with `xd`, and whose leaf entry is `leaf`: no write while its dirty flag
 * is clear (va_map.h).
 */
static unsigned int va_prot(const struct va_build *b, bool rw, bool us, bool xd, uint64_t leaf)
{
	unsigned int prot = VA_READ;

	if ((rw || (!b->user && !b->wp)) && (leaf & PTE_D))
		prot |= VA_WRITE;
	if (!xd && !(!b->user && b->smep && us))
		prot |= VA_EXEC;
	return prot;
}

/* Appends [la, la + len) backed by `host`, merged into the last run where it continues it. */
static void va_emit(struct va_build *b, uint64_t la, uint8_t *host, uint64_t len, unsigned int prot)
{
	struct va_run *last = b->n ? &b->out[b->n - 1] : NULL;

	if (last && last->la + last->len == la && last->host + last->len == host &&
	    last->prot == prot) {
		last->len += len;
		return;
	}
	if (b->n == b->max) {
		b->err = -E2BIG;
		return;
	}
	b->out[b->n++] = (struct va_run){ la, len, host, prot };
}

/* A page of `size` at `gpa`: the parts of it that are guest RAM (each RAM region it overlaps). */
static void va_page(struct va_build *b, uint64_t la, uint64_t gpa, uint64_t size, unsigned int prot)
{
	for (unsigned int i = 0; i < b->mem->nr && !b->err; i++) {
		const struct mem_region *r = &b->mem->regions[i];
		uint64_t lo = gpa > r->gpa ? gpa : r->gpa;
		uint64_t hi = gpa + size < r->gpa + r->size ? gpa + size : r->gpa + r->size;

		if (lo < hi)
			va_emit(b, la + (lo - gpa), r->hva + (lo - r->gpa), hi - lo, prot);
	}
}

/* Level 4 (PML4) down to 1 (PT): each entry maps 4 KiB << 9 * (level - 1). */
static void va_walk(struct va_build *b, uint64_t table, int level, uint64_t la_base,
		    bool rw, bool us, bool xd)
{
	const uint64_t *t = guest_mem_ptr(b->mem, table, PAGE_4K);
	unsigned int shift = 12 + 9 * (level - 1);

	if (!t)
		return;
	for (unsigned int i = 0; i < 512 && !b->err; i++) {
		uint64_t e, la = la_base + ((uint64_t)i << shift);
		bool e_rw, e_us, e_xd;

		memcpy(&e, &t[i], sizeof(e));
		if ((e & (PTE_P | PTE_A)) != (PTE_P | PTE_A))
			continue;
		if (level == 4 && (la & (1ULL << 47)))
			la |= 0xffff000000000000ULL;	/* canonical: bits 63:48 copy bit 47 */
		e_rw = rw && (e & PTE_RW);
		e_us = us && (e & PTE_US);
		e_xd = xd || (b->nxe && (e & PTE_XD));
		if (b->user && !e_us)
			continue;
		if (level == 1 || (level <= 3 && (e & PTE_PS))) {
			uint64_t size = 1ULL << shift;

			va_page(b, la, e & PTE_ADDR & ~(size - 1), size,
				va_prot(b, e_rw, e_us, e_xd, e));
			continue;
		}
		va_walk(b, e & PTE_ADDR, level - 1, la, e_rw, e_us, e_xd);
	}
}

int va_map_build(const struct guest_mem *mem, const struct paging_state *ps, bool user,
		 struct va_run *out, unsigned int max)
{
	struct va_build b = {
		.mem = mem, .user = user, .out = out, .max = max,
		.wp = ps->cr0 & CR0_WP, .nxe = ps->efer & EFER_NXE, .smep = ps->cr4 & CR4_SMEP,
	};

	if (!(ps->cr0 & CR0_PG) || !(ps->cr4 & CR4_PAE) || !(ps->efer & EFER_LMA) ||
	    (ps->cr4 & CR4_LA57))
		return -EOPNOTSUPP;
	va_walk(&b, ps->cr3 & PTE_ADDR, 4, 0, true, true, false);
	return b.err ? b.err : (int)b.n;
}

int va_map_page(const struct guest_mem *mem, const struct paging_state *ps, bool user,
		uint64_t la, struct va_run *out)
{
	struct va_run pieces[GUEST_MEM_MAX_REGIONS];
	struct va_build b = {
		.mem = mem, .user = user, .out = pieces, .max = GUEST_MEM_MAX_REGIONS,
		.wp = ps->cr0 & CR0_WP, .nxe = ps->efer & EFER_NXE, .smep = ps->cr4 & CR4_SMEP,
	};
	uint64_t table = ps->cr3 & PTE_ADDR;
	bool rw = true, us = true, xd = false;

	if (!(ps->cr0 & CR0_PG) || !(ps->cr4 & CR4_PAE) || !(ps->efer & EFER_LMA) ||
	    (ps->cr4 & CR4_LA57))
		return -EOPNOTSUPP;
	for (int level = 4; level >= 1; level--) {
		const uint64_t *t = guest_mem_ptr(mem, table, PAGE_4K);
		unsigned int shift = 12 + 9 * (level - 1);
		uint64_t e, size = 1ULL << shift;

		if (!t)
			return -EFAULT;
		memcpy(&e, &t[(la >> shift) & 511], sizeof(e));
		if ((e & (PTE_P | PTE_A)) != (PTE_P | PTE_A))
			return -EFAULT;
		rw = rw && (e & PTE_RW);
		us = us && (e & PTE_US);
		xd = xd || (b.nxe && (e & PTE_XD));
		if (user && !us)
			return -EFAULT;
		if (level == 1 || (level <= 3 && (e & PTE_PS))) {
			va_page(&b, la & ~(size - 1), e & PTE_ADDR & ~(size - 1), size,
				va_prot(&b, rw, us, xd, e));
			for (unsigned int i = 0; i < b.n; i++)
				if (la - pieces[i].la < pieces[i].len) {
					*out = pieces[i];
					return 0;
				}
			return -EFAULT;	/* not RAM */
		}
		table = e & PTE_ADDR;
	}
	return -EFAULT;
}
