/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <string.h>

#include "exact/icache.h"

#define PAGE_SIZE	4096u

void icache_flush_tlb(struct icache *c)
{
	for (unsigned int i = 0; i < ICACHE_TLB_ENTRIES; i++)
		c->tlb[i].page = ~0ULL;
}

void icache_init(struct icache *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned int i = 0; i < ICACHE_ENTRIES; i++)
		c->e[i].gpa = ~0ULL;
	icache_flush_tlb(c);
}

static bool same_paging(const struct paging_state *a, const struct paging_state *b)
{
	return a->cr3 == b->cr3 && a->cr0 == b->cr0 && a->cr4 == b->cr4 && a->efer == b->efer;
}

/* pagewalk() for a fetch, through the TLB. */
static int icache_translate(struct icache *c, const struct guest_mem *mem,
			    const struct paging_state *ps, uint64_t rip, bool user, uint64_t *gpa)
{
	uint64_t page = rip / PAGE_SIZE;
	struct icache_tlb_entry *t = &c->tlb[page & (ICACHE_TLB_ENTRIES - 1)];
	int r;

	if (t->page == page && t->user == user && same_paging(&t->ps, ps)) {
		*gpa = t->gpa + (rip & (PAGE_SIZE - 1));
		return 0;
	}
	r = pagewalk(mem, ps, rip, user ? PW_USER : 0, gpa);
	if (r)
		return r;
	t->ps = *ps;
	t->page = page;
	t->user = user;
	t->gpa = *gpa & ~(uint64_t)(PAGE_SIZE - 1);
	return 0;
}

static unsigned int icache_slot(uint64_t gpa)
{
	return (unsigned int)((gpa ^ (gpa >> 12)) & (ICACHE_ENTRIES - 1));
}

/* Bytes [rip, rip + n) stay within rip's page. */
static size_t same_page_len(uint64_t rip)
{
	size_t n = PAGE_SIZE - (rip & (PAGE_SIZE - 1));

	return n < INSN_MAX_LEN ? n : INSN_MAX_LEN;
}

static int fetch_uncached(const struct guest_mem *mem, const struct paging_state *ps,
			  uint64_t rip, enum insn_mode mode, struct insn *out)
{
	uint8_t buf[INSN_MAX_LEN];
	size_t n = same_page_len(rip);
	int r = guest_linear_read(mem, ps, rip, buf, INSN_MAX_LEN);

	if (!r)
		return insn_decode(buf, INSN_MAX_LEN, mode, out);
	/* The next page is not there: fine if the instruction ends before it. */
	if (guest_linear_read(mem, ps, rip, buf, n) || insn_decode(buf, n, mode, out))
		return r;
	return 0;
}

int icache_fetch(struct icache *c, const struct guest_mem *mem, const struct paging_state *ps,
		 uint64_t rip, bool user, enum insn_mode mode, struct insn *out)
{
	size_t n = same_page_len(rip);
	uint8_t buf[INSN_MAX_LEN];
	struct icache_entry *e;
	const uint8_t *p, *code;
	uint64_t gpa;
	int r;

	r = icache_translate(c, mem, ps, rip, user, &gpa);
	if (r)
		return r;
	p = guest_mem_ptr(mem, gpa, n);
	if (!p)
		return -EFAULT;
	code = p;
	e = &c->e[icache_slot(gpa)];
	if (e->gpa == gpa && e->mode == mode) {
		if (!memcmp(e->bytes, p, e->insn.len)) {
			c->hits++;
			*out = e->insn;
			return 0;
		}
		c->stale++;
	}
	c->misses++;
	/* An RDPMC pmuvm turned into an RDMSR decodes as the RDPMC (mem/patch.c). */
	if (mem->nr_patches) {
		memcpy(buf, p, n);
		if (guest_mem_unpatch(mem, gpa, buf, n))
			code = buf;
	}
	if (insn_decode(code, n, mode, out)) {
		/* Cut short by the page end, or really invalid. */
		if (n == INSN_MAX_LEN)
			return -EINVAL;
		return fetch_uncached(mem, ps, rip, mode, out);
	}
	e->gpa = gpa;
	e->mode = (uint8_t)mode;
	e->insn = *out;
	memcpy(e->bytes, p, out->len);
	return 0;
}
