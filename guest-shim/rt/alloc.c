/* SPDX-License-Identifier: MIT */
/*
 * The kernel heap (rt/alloc.h).  A chunk handed out is
 *
 *	[chunk start ... padding for alignment][struct chunk_hdr][user bytes]
 *
 * and the header records the whole chunk, so rt_free() gives back exactly
 * what was taken.  Free blocks carry their size and the next free block's
 * address in their first bytes, sorted by address so that merging on free
 * looks only at the two neighbours.  First fit keeps it short: the heap is
 * walked by CPL0 code, which kvm_pvm hosts emulate (docs/counting.md, "kvm_pvm").
 */
#include <stdint.h>
#include <rt/alloc.h>
#include <rt/multiboot.h>
#include <rt/panic.h>
#include <rt/printf.h>
#include <rt/spinlock.h>
#include <rt/string.h>

#define ALLOC_GRAIN	16
#define HDR_MAGIC	0x6b6e756863747200ull	/* "\0rtchunk" */
#define HEAP_FALLBACK	(16ull << 20)	/* end of heap without multiboot mem info */

struct free_blk {
	uint64_t size;			/* whole block, multiple of ALLOC_GRAIN */
	struct free_blk *next;		/* next higher free block */
};

struct chunk_hdr {
	uint64_t start;			/* chunk start (a former free block) */
	uint64_t size;			/* whole chunk */
	uint64_t magic;
	uint64_t pad;			/* keeps the header ALLOC_GRAIN-sized */
};

_Static_assert(sizeof(struct chunk_hdr) == RT_ALLOC_HDR_SIZE, "rt/alloc.h");

extern char _end[];

static struct spinlock heap_lock;
static struct free_blk *free_list;
static size_t heap_size;
static int heap_ready;
static int fail_countdown = -1;

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Heap: page after the image and the modules (placed after it) to RAM end. */
static void heap_init(void)
{
	const struct rt_mbi *mbi = rt_mbi();
	uint64_t start = (uint64_t)_end, end = HEAP_FALLBACK;

	for (unsigned int i = 0; i < mbi->nr_modules; i++)
		if (mbi->modules[i].end > start)
			start = mbi->modules[i].end;
	start = align_up(start, 4096);
	if (mbi->flags & MBI_FLAG_MEM)
		end = 0x100000ull + (uint64_t)mbi->mem_upper * 1024;
	if (end > (4ull << 30))
		end = 4ull << 30;	/* the boot page tables map 4 GiB */
	heap_ready = 1;
	if (end <= start + sizeof(struct free_blk))
		return;
	free_list = (struct free_blk *)start;
	free_list->size = (end - start) & ~(uint64_t)(ALLOC_GRAIN - 1);
	free_list->next = NULL;
	heap_size = free_list->size;
}

void rt_alloc_fail_after(int n)
{
	uint64_t flags = spin_lock_irqsave(&heap_lock);

	fail_countdown = n < 0 ? -1 : n;
	spin_unlock_irqrestore(&heap_lock, flags);
}

/* Take [b, b + used) out of free block b (predecessor link *pp). */
static void take(struct free_blk **pp, struct free_blk *b, uint64_t used)
{
	if (b->size - used >= sizeof(struct chunk_hdr) + ALLOC_GRAIN) {
		struct free_blk *rest = (struct free_blk *)((uint64_t)b + used);

		rest->size = b->size - used;
		rest->next = b->next;
		*pp = rest;
	} else {
		*pp = b->next;
	}
}

void *rt_alloc(size_t size, size_t align)
{
	struct free_blk **pp, *b;
	void *ret = NULL;
	uint64_t flags;

	if (align < ALLOC_GRAIN)
		align = ALLOC_GRAIN;
	if (align & (align - 1) || size > (1ull << 40))
		return NULL;
	size = align_up(size ? size : 1, ALLOC_GRAIN);
	flags = spin_lock_irqsave(&heap_lock);
	if (!heap_ready)
		heap_init();
	if (fail_countdown >= 0 && fail_countdown-- == 0)
		goto out;
	for (pp = &free_list; (b = *pp); pp = &b->next) {
		uint64_t start = (uint64_t)b;
		uint64_t user = align_up(start + sizeof(struct chunk_hdr), align);
		uint64_t used = user + size - start;
		struct chunk_hdr *h;

		if (used > b->size)
			continue;
		if (b->size - used < sizeof(struct chunk_hdr) + ALLOC_GRAIN)
			used = b->size;		/* a remainder too small to keep */
		take(pp, b, used);
		h = (struct chunk_hdr *)(user - sizeof(*h));
		h->start = start;
		h->size = used;
		h->magic = HDR_MAGIC;
		ret = (void *)user;
		break;
	}
out:
	spin_unlock_irqrestore(&heap_lock, flags);
	return ret;
}

void *rt_zalloc(size_t size, size_t align)
{
	void *p = rt_alloc(size, align);

	if (p)
		memset(p, 0, size);
	return p;
}

void rt_free(void *p)
{
	struct chunk_hdr *h = (struct chunk_hdr *)p - 1;
	struct free_blk **pp, *b, *prev = NULL, *nb;
	uint64_t flags;

	if (!p)
		return;
	if (h->magic != HDR_MAGIC)
		rt_panic("rt_free(%p): not an rt_alloc() pointer or freed twice", p);
	flags = spin_lock_irqsave(&heap_lock);
	h->magic = 0;
	nb = (struct free_blk *)h->start;
	nb->size = h->size;
	for (pp = &free_list; (b = *pp) && b < nb; pp = &b->next)
		prev = b;
	nb->next = b;
	*pp = nb;
	if (b && (uint64_t)nb + nb->size == (uint64_t)b) {
		nb->size += b->size;
		nb->next = b->next;
	}
	if (prev && (uint64_t)prev + prev->size == (uint64_t)nb) {
		prev->size += nb->size;
		prev->next = nb->next;
	}
	spin_unlock_irqrestore(&heap_lock, flags);
}

size_t rt_alloc_usable_size(const void *p)
{
	const struct chunk_hdr *h = (const struct chunk_hdr *)p - 1;

	if (h->magic != HDR_MAGIC)
		rt_panic("rt_alloc_usable_size(%p): not an rt_alloc() pointer", p);
	return h->start + h->size - (uint64_t)p;
}

size_t rt_alloc_free_bytes(void)
{
	uint64_t flags = spin_lock_irqsave(&heap_lock);
	size_t n = 0;

	if (!heap_ready)
		heap_init();
	for (struct free_blk *b = free_list; b; b = b->next)
		n += b->size;
	spin_unlock_irqrestore(&heap_lock, flags);
	return n;
}

size_t rt_alloc_heap_size(void)
{
	uint64_t flags = spin_lock_irqsave(&heap_lock);

	if (!heap_ready)
		heap_init();
	spin_unlock_irqrestore(&heap_lock, flags);
	return heap_size;
}
