/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the guest page-table walker and guest_linear_read/write
 * over random page tables in a fake guest RAM with a hole.
 *
 * Input: 24 bytes of state, then the RAM contents (the rest is zero).
 *   [0]      paging mode: off, off+LMA, 32-bit, 32-bit+PSE, PAE, 4-level,
 *            5-level, or CR0/CR4/EFER taken raw from the input
 *   [1]      bit 0 write, bit 1 user, bit 2 CR0.WP
 *   [2..9]   CR3           [10..17] linear address   [18..19] length
 *   [20]     low region: 1..32 pages, [21] minus 0..255 bytes (odd sizes)
 *   [22]     high region: none, or 1..31 pages
 *   [23]     high region start: after a hole of 1..16 pages, or at 4 GiB
 *   raw mode adds CR0, CR4, EFER (8 bytes each) before the RAM.
 * Both regions are exact-size allocations: ASan reports any access outside
 * guest RAM. The oracle: the walk returns only its documented errors; an
 * access allowed for write or user is allowed without those; a read returns
 * exactly the translated bytes; a write changes exactly what a page-by-page
 * replay on a copy of RAM changes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/pagewalk.h"

#define PAGE		0x1000ULL
#define CR0_PE		(1ULL << 0)
#define CR0_WP		(1ULL << 16)
#define CR0_PG		(1ULL << 31)
#define CR4_PSE		(1ULL << 4)
#define CR4_PAE		(1ULL << 5)
#define CR4_LA57	(1ULL << 12)
#define EFER_LME	(1ULL << 8)
#define EFER_LMA	(1ULL << 10)
#define MAX_LEN		(3 * PAGE)

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_pagewalk: invariant violated: %s\n", what);
		abort();
	}
}

struct cursor {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct cursor *c, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes && c->left; i++, c->left--)
		v |= (uint64_t)*c->p++ << (8 * i);
	return v;
}

static bool walk_error(int r)
{
	return r == -EINVAL || r == -EFAULT || r == -EACCES;
}

/* Fewer rights (no write, no user) never fail where more succeed, same gpa. */
static void check_walk(const struct guest_mem *mem, const struct paging_state *ps,
		       uint64_t la, unsigned int access)
{
	uint64_t gpa = 0, gpa2 = 0;
	unsigned int sub;
	int r = pagewalk(mem, ps, la, access, &gpa);

	check(r == 0 || walk_error(r), "pagewalk return value");
	if (r)
		return;
	if (!(ps->cr0 & CR0_PG))
		check(gpa == la, "paging off but gpa != la");
	for (sub = 0; sub < access; sub++) {
		if ((sub & access) != sub)
			continue;
		check(pagewalk(mem, ps, la, sub, &gpa2) == 0, "fewer rights fail");
		check(gpa2 == gpa, "fewer rights translate differently");
	}
}

/* The page-by-page copy guest_linear_write promises, on another RAM. */
static int replay_write(const struct guest_mem *mem, const struct paging_state *ps,
			uint64_t la, const uint8_t *buf, size_t len)
{
	if (len && la + (len - 1) < la)
		return -EINVAL;
	while (len) {
		size_t chunk = PAGE - (la & (PAGE - 1));
		uint64_t gpa;
		uint8_t *p;
		int r;

		if (chunk > len)
			chunk = len;
		r = pagewalk(mem, ps, la, PW_WRITE, &gpa);
		if (r)
			return r;
		p = guest_mem_ptr(mem, gpa, chunk);
		if (!p)
			return -EFAULT;
		memcpy(p, buf, chunk);
		buf += chunk;
		la += chunk;
		len -= chunk;
	}
	return 0;
}

static void check_read(const struct guest_mem *mem, const struct paging_state *ps,
		       uint64_t la, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	size_t off = 0;
	int r;

	check(buf != NULL, "out of memory");
	r = guest_linear_read(mem, ps, la, buf, len);
	check(r == 0 || walk_error(r), "guest_linear_read return value");
	while (r == 0 && off < len) {
		size_t chunk = PAGE - ((la + off) & (PAGE - 1));
		uint64_t gpa;
		const uint8_t *p;

		if (chunk > len - off)
			chunk = len - off;
		check(pagewalk(mem, ps, la + off, 0, &gpa) == 0, "read succeeded, walk fails");
		p = guest_mem_ptr(mem, gpa, chunk);
		check(p != NULL, "read succeeded from outside RAM");
		check(!memcmp(p, buf + off, chunk), "read returned other bytes");
		off += chunk;
	}
	free(buf);
}

static void check_write(const struct guest_mem *mem, const struct paging_state *ps,
			uint64_t la, size_t len)
{
	struct guest_mem copy = *mem;
	uint8_t *buf = malloc(len ? len : 1);
	unsigned int i;
	size_t k;
	int r, r2;

	check(buf != NULL, "out of memory");
	for (k = 0; k < len; k++)
		buf[k] = (uint8_t)(0x5a ^ k);
	for (i = 0; i < mem->nr; i++) {
		copy.regions[i].hva = malloc(mem->regions[i].size);
		check(copy.regions[i].hva != NULL, "out of memory");
		memcpy(copy.regions[i].hva, mem->regions[i].hva, mem->regions[i].size);
	}
	r = guest_linear_write(mem, ps, la, buf, len);
	check(r == 0 || walk_error(r), "guest_linear_write return value");
	r2 = replay_write(&copy, ps, la, buf, len);
	check(r == r2, "guest_linear_write result differs from the replay");
	for (i = 0; i < mem->nr; i++) {
		check(!memcmp(copy.regions[i].hva, mem->regions[i].hva, mem->regions[i].size),
		      "guest_linear_write changed other bytes than the replay");
		free(copy.regions[i].hva);
	}
	free(buf);
}

static void set_mode(struct paging_state *ps, uint8_t mode, struct cursor *c)
{
	switch (mode % 8) {
	case 0: ps->cr0 = CR0_PE; break;
	case 1: ps->cr0 = CR0_PE; ps->efer = EFER_LME | EFER_LMA; break;
	case 2: ps->cr0 = CR0_PE | CR0_PG; break;
	case 3: ps->cr0 = CR0_PE | CR0_PG; ps->cr4 = CR4_PSE; break;
	case 4: ps->cr0 = CR0_PE | CR0_PG; ps->cr4 = CR4_PAE; break;
	case 5:
		ps->cr0 = CR0_PE | CR0_PG;
		ps->cr4 = CR4_PAE;
		ps->efer = EFER_LME | EFER_LMA;
		break;
	case 6:
		ps->cr0 = CR0_PE | CR0_PG;
		ps->cr4 = CR4_PAE | CR4_LA57;
		ps->efer = EFER_LME | EFER_LMA;
		break;
	default:
		ps->cr0 = take(c, 8);
		ps->cr4 = take(c, 8);
		ps->efer = take(c, 8);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = { data, size };
	struct paging_state ps = { 0 };
	struct guest_mem mem = { .nr = 1 };
	uint8_t mode, flags, hi;
	uint64_t la, size0, size1, gpa1;
	unsigned int access, i;
	size_t len;

	if (size < 24)
		return 0;
	mode = (uint8_t)take(&c, 1);
	flags = (uint8_t)take(&c, 1);
	ps.cr3 = take(&c, 8);
	la = take(&c, 8);
	len = take(&c, 2) % (MAX_LEN + 1);
	size0 = (1 + take(&c, 1) % 32) * PAGE;
	size0 -= take(&c, 1) % (size0 / 2);
	hi = (uint8_t)take(&c, 1);
	size1 = (hi % 32) * PAGE;
	gpa1 = take(&c, 1) & 0x10 ? GUEST_HIGHMEM_START :
	       ((size0 + PAGE - 1) & ~(PAGE - 1)) + (1 + (hi >> 5)) * PAGE;
	set_mode(&ps, mode, &c);
	access = flags & (PW_WRITE | PW_USER);
	if (flags & 4)
		ps.cr0 |= CR0_WP;

	mem.regions[0] = (struct mem_region){ .gpa = 0, .size = size0, .hva = calloc(1, size0) };
	check(mem.regions[0].hva != NULL, "out of memory");
	if (size1) {
		mem.regions[1] = (struct mem_region){
			.gpa = gpa1, .size = size1, .hva = calloc(1, size1),
		};
		check(mem.regions[1].hva != NULL, "out of memory");
		mem.nr = 2;
	}
	for (i = 0; i < mem.nr && c.left; i++) {
		size_t n = c.left < mem.regions[i].size ? c.left : mem.regions[i].size;

		memcpy(mem.regions[i].hva, c.p, n);
		c.p += n;
		c.left -= n;
	}

	check_walk(&mem, &ps, la, access);
	check_walk(&mem, &ps, la + len, access);
	check_read(&mem, &ps, la, len);
	check_write(&mem, &ps, la, len);

	for (i = 0; i < mem.nr; i++)
		free(mem.regions[i].hva);
	return 0;
}
