/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <string.h>

#include "mem/pagewalk.h"

#define CR0_WP		(1ULL << 16)
#define CR0_PG		(1ULL << 31)
#define CR4_PSE		(1ULL << 4)
#define CR4_PAE		(1ULL << 5)
#define CR4_LA57	(1ULL << 12)
#define EFER_LMA	(1ULL << 10)

#define PTE_P		(1ULL << 0)
#define PTE_RW		(1ULL << 1)
#define PTE_US		(1ULL << 2)
#define PTE_PS		(1ULL << 7)
#define PTE_ADDR	0x000ffffffffff000ULL	/* MAXPHYADDR 52 */

struct walk {
	const struct guest_mem *mem;
	unsigned int access;
	bool wp;
	bool writable, user;	/* AND of the permission bits seen so far */
};

static int read_entry(struct walk *w, uint64_t table, unsigned int index, unsigned int size,
		      uint64_t *entry)
{
	const void *p = guest_mem_ptr(w->mem, table + (uint64_t)index * size, size);
	uint32_t e32;

	if (!p)
		return -EFAULT;
	if (size == 4) {
		memcpy(&e32, p, 4);
		*entry = e32;
	} else {
		memcpy(entry, p, 8);
	}
	if (!(*entry & PTE_P))
		return -EFAULT;
	w->writable &= !!(*entry & PTE_RW);
	w->user &= !!(*entry & PTE_US);
	return 0;
}

/* SDM 4.6: user accesses need U/S everywhere; writes need R/W unless CR0.WP=0 at CPL0. */
static int check_access(const struct walk *w)
{
	if ((w->access & PW_USER) && !w->user)
		return -EACCES;
	if ((w->access & PW_WRITE) && !w->writable && ((w->access & PW_USER) || w->wp))
		return -EACCES;
	return 0;
}

static int walk_long(struct walk *w, uint64_t cr3, uint64_t la, int levels, uint64_t *gpa)
{
	uint64_t table = cr3 & PTE_ADDR, e;
	int level, r;

	for (level = levels; level >= 1; level--) {
		unsigned int shift = 12 + 9 * (level - 1);

		r = read_entry(w, table, (la >> shift) & 0x1ff, 8, &e);
		if (r)
			return r;
		/* PS is meaningful in PDPTEs (1 GiB) and PDEs (2 MiB) only. */
		if ((level == 2 || level == 3) && (e & PTE_PS)) {
			uint64_t mask = (1ULL << shift) - 1;

			*gpa = ((e & PTE_ADDR) & ~mask) | (la & mask);
			return check_access(w);
		}
		table = e & PTE_ADDR;
	}
	*gpa = table | (la & 0xfff);
	return check_access(w);
}

static int walk_pae(struct walk *w, uint64_t cr3, uint64_t la, uint64_t *gpa)
{
	const void *p = guest_mem_ptr(w->mem, (cr3 & 0xffffffe0ULL) + ((la >> 30) & 3) * 8, 8);
	uint64_t pdpte;

	if (!p)
		return -EFAULT;
	memcpy(&pdpte, p, 8);
	if (!(pdpte & PTE_P))
		return -EFAULT;
	/* PAE PDPTEs carry no R/W or U/S bits (SDM 4.4.1): continue as 2 levels. */
	return walk_long(w, pdpte & PTE_ADDR, la & 0x3fffffff, 2, gpa);
}

static int walk_32(struct walk *w, uint64_t cr3, bool pse, uint64_t la, uint64_t *gpa)
{
	uint64_t pde, pte;
	int r;

	r = read_entry(w, cr3 & 0xfffff000ULL, (la >> 22) & 0x3ff, 4, &pde);
	if (r)
		return r;
	if (pse && (pde & PTE_PS)) {
		/* 4 MiB page; PSE-36 puts physical bits 39:32 in PDE bits 20:13. */
		*gpa = (pde & 0xffc00000ULL) | (((pde >> 13) & 0xff) << 32) | (la & 0x3fffff);
		return check_access(w);
	}
	r = read_entry(w, pde & 0xfffff000ULL, (la >> 12) & 0x3ff, 4, &pte);
	if (r)
		return r;
	*gpa = (pte & 0xfffff000ULL) | (la & 0xfff);
	return check_access(w);
}

static bool canonical(uint64_t la, unsigned int bits)
{
	int64_t s = (int64_t)(la << (64 - bits)) >> (64 - bits);

	return (uint64_t)s == la;
}

int pagewalk(const struct guest_mem *mem, const struct paging_state *ps, uint64_t la,
	     unsigned int access, uint64_t *gpa)
{
	struct walk w = {
		.mem = mem, .access = access, .wp = !!(ps->cr0 & CR0_WP),
		.writable = true, .user = true,
	};

	if (!(ps->cr0 & CR0_PG)) {
		if (!(ps->efer & EFER_LMA) && la > 0xffffffffULL)
			return -EINVAL;
		*gpa = la;
		return 0;
	}
	if (ps->efer & EFER_LMA) {
		bool la57 = ps->cr4 & CR4_LA57;

		if (!canonical(la, la57 ? 57 : 48))
			return -EINVAL;
		return walk_long(&w, ps->cr3, la, la57 ? 5 : 4, gpa);
	}
	if (la > 0xffffffffULL)
		return -EINVAL;
	if (ps->cr4 & CR4_PAE)
		return walk_pae(&w, ps->cr3, la, gpa);
	return walk_32(&w, ps->cr3, ps->cr4 & CR4_PSE, la, gpa);
}

static int linear_copy(const struct guest_mem *mem, const struct paging_state *ps,
		       uint64_t la, void *buf, size_t len, bool write)
{
	uint8_t *b = buf;

	/* A range that wraps the linear address space is refused whole. */
	if (len && la + (len - 1) < la)
		return -EINVAL;
	while (len) {
		size_t chunk = 0x1000 - (la & 0xfff);
		uint64_t gpa;
		uint8_t *p;
		int r;

		if (chunk > len)
			chunk = len;
		r = pagewalk(mem, ps, la, write ? PW_WRITE : 0, &gpa);
		if (r)
			return r;
		p = guest_mem_ptr(mem, gpa, chunk);
		if (!p)
			return -EFAULT;	/* MMIO or beyond RAM */
		if (write)
			memcpy(p, b, chunk);
		else
			memcpy(b, p, chunk);
		b += chunk;
		la += chunk;
		len -= chunk;
	}
	return 0;
}

int guest_linear_read(const struct guest_mem *mem, const struct paging_state *ps,
		      uint64_t la, void *buf, size_t len)
{
	return linear_copy(mem, ps, la, buf, len, false);
}

int guest_linear_write(const struct guest_mem *mem, const struct paging_state *ps,
		       uint64_t la, const void *buf, size_t len)
{
	return linear_copy(mem, ps, la, (void *)buf, len, true);
}
