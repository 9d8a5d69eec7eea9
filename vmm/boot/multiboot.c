/* SPDX-License-Identifier: GPL-2.0-only */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "boot/multiboot.h"

#define MAX_SEGMENTS	32

struct mb_header {
	uint32_t magic, flags, checksum;
};

struct seg {
	uint64_t start, end;	/* [start, end) guest-physical */
};

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return e;
}

/* Multiboot Specification 0.6.96, 3.1.1: in the first 8192 bytes, 32-bit aligned. */
static const struct mb_header *find_header(const uint8_t *image, size_t size)
{
	size_t off, lim = size < MULTIBOOT_SEARCH ? size : MULTIBOOT_SEARCH;

	for (off = 0; off + sizeof(struct mb_header) <= lim; off += 4) {
		struct mb_header h;

		memcpy(&h, image + off, sizeof(h));
		if (h.magic == MULTIBOOT_HEADER_MAGIC &&
		    (uint32_t)(h.magic + h.flags + h.checksum) == 0)
			return (const struct mb_header *)(image + off);
	}
	return NULL;
}

static bool overlaps(const struct seg *a, const struct seg *b)
{
	return a->start < b->end && b->start < a->end;
}

/* The ELF header of an i386 executable whose program headers lie in the file. */
static int elf_header(const uint8_t *image, size_t size, Elf32_Ehdr *eh, char *err, size_t errlen)
{
	if (size < sizeof(*eh))
		return fail(err, errlen, -EINVAL, "not an ELF image (too short)");
	memcpy(eh, image, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return fail(err, errlen, -EINVAL, "not an ELF image");
	if (eh->e_ident[EI_CLASS] != ELFCLASS32)
		return fail(err, errlen, -EINVAL,
			    "ELF64 image: multiboot needs ELF32 (objcopy -O elf32-i386)");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_386 ||
	    eh->e_type != ET_EXEC)
		return fail(err, errlen, -EINVAL, "not a little-endian i386 ELF executable");
	if (eh->e_phentsize != sizeof(Elf32_Phdr) || !eh->e_phnum ||
	    eh->e_phoff > size || (size - eh->e_phoff) / sizeof(Elf32_Phdr) < eh->e_phnum)
		return fail(err, errlen, -EINVAL, "ELF program headers are truncated or malformed");
	return 0;
}

static int load_segments(const struct guest_mem *mem, const uint8_t *image, size_t size,
			 struct multiboot_boot *out, char *err, size_t errlen)
{
	static const struct seg info_area = { MULTIBOOT_INFO_BASE, MULTIBOOT_INFO_LIMIT };
	struct seg segs[MAX_SEGMENTS];
	Elf32_Ehdr eh;
	unsigned int i, j, n = 0;
	int r = elf_header(image, size, &eh, err, errlen);

	if (r)
		return r;
	out->image_start = UINT64_MAX;
	out->image_end = 0;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf32_Phdr ph;
		uint8_t *dst;

		memcpy(&ph, image + eh.e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		if (ph.p_filesz > ph.p_memsz)
			return fail(err, errlen, -EINVAL,
				    "segment %u: file size 0x%x exceeds memory size 0x%x",
				    i, ph.p_filesz, ph.p_memsz);
		if (ph.p_offset > size || size - ph.p_offset < ph.p_filesz)
			return fail(err, errlen, -EINVAL,
				    "segment %u: data lies beyond the end of the file", i);
		if (n == MAX_SEGMENTS)
			return fail(err, errlen, -E2BIG, "more than %d loadable segments",
				    MAX_SEGMENTS);
		segs[n].start = ph.p_paddr;
		segs[n].end = (uint64_t)ph.p_paddr + ph.p_memsz;
		dst = guest_mem_ptr(mem, ph.p_paddr, ph.p_memsz);
		if (!dst)
			return fail(err, errlen, -ENOSPC,
				    "segment %u at 0x%x-0x%llx does not fit in guest RAM", i,
				    ph.p_paddr, (unsigned long long)segs[n].end);
		if (overlaps(&segs[n], &info_area))
			return fail(err, errlen, -EINVAL,
				    "segment %u at 0x%x overlaps the boot information area "
				    "0x%x-0x%x", i, ph.p_paddr, MULTIBOOT_INFO_BASE,
				    MULTIBOOT_INFO_LIMIT);
		for (j = 0; j < n; j++)
			if (overlaps(&segs[n], &segs[j]))
				return fail(err, errlen, -EINVAL,
					    "segments overlap at 0x%llx-0x%llx",
					    (unsigned long long)segs[n].start,
					    (unsigned long long)segs[n].end);
		/* Copy the file part, zero the rest (BSS). */
		memcpy(dst, image + ph.p_offset, ph.p_filesz);
		memset(dst + ph.p_filesz, 0, ph.p_memsz - ph.p_filesz);
		if (segs[n].start < out->image_start)
			out->image_start = segs[n].start;
		if (segs[n].end > out->image_end)
			out->image_end = segs[n].end;
		n++;
	}
	if (!n)
		return fail(err, errlen, -EINVAL, "no loadable segments");
	for (i = 0; i < n; i++)
		if (eh.e_entry >= segs[i].start && eh.e_entry < segs[i].end)
			break;
	if (i == n)
		return fail(err, errlen, -EINVAL, "entry point 0x%x is outside every segment",
			    eh.e_entry);
	out->entry = eh.e_entry;
	out->nr_segments = n;
	return 0;
}

/* A bump allocator over the information area. */
struct info_alloc {
	const struct guest_mem *mem;
	uint32_t next;
};

static void *info_take(struct info_alloc *a, uint32_t len, uint32_t *gpa)
{
	uint32_t at = (a->next + 7) & ~7u;
	void *p;

	if (at > MULTIBOOT_INFO_LIMIT || MULTIBOOT_INFO_LIMIT - at < len)
		return NULL;
	p = guest_mem_ptr(a->mem, at, len);
	if (!p)
		return NULL;
	memset(p, 0, len);
	*gpa = at;
	a->next = at + len;
	return p;
}

static int info_string(struct info_alloc *a, const char *s1, const char *s2, uint32_t *gpa)
{
	size_t l1 = strlen(s1), l2 = s2 ? strlen(s2) : 0;
	size_t len = l1 + (s2 ? 1 + l2 : 0) + 1;
	char *p;

	if (len > MULTIBOOT_MAX_CMDLINE)
		return -E2BIG;
	p = info_take(a, (uint32_t)len, gpa);
	if (!p)
		return -ENOSPC;
	memcpy(p, s1, l1);
	if (s2) {
		p[l1] = ' ';
		memcpy(p + l1 + 1, s2, l2);
	}
	return 0;
}

static uint32_t mem_low_end(const struct guest_mem *mem)
{
	return (uint32_t)mem->regions[0].size;
}

/* The map QEMU's pc machine reports: EBDA and BIOS area reserved below 1 MiB. */
static int build_mmap(struct info_alloc *a, const struct guest_mem *mem,
		      struct multiboot_info *mbi)
{
	struct multiboot_mmap_entry e[5];
	unsigned int n = 0;
	uint32_t gpa;
	void *p;

	e[n++] = (struct multiboot_mmap_entry){ 20, 0, 0x9fc00, MULTIBOOT_MEMORY_AVAILABLE };
	e[n++] = (struct multiboot_mmap_entry){ 20, 0x9fc00, 0x400, MULTIBOOT_MEMORY_RESERVED };
	e[n++] = (struct multiboot_mmap_entry){ 20, 0xf0000, 0x10000, MULTIBOOT_MEMORY_RESERVED };
	e[n++] = (struct multiboot_mmap_entry){ 20, 0x100000, mem_low_end(mem) - 0x100000,
						MULTIBOOT_MEMORY_AVAILABLE };
	if (mem->nr > 1)
		e[n++] = (struct multiboot_mmap_entry){ 20, mem->regions[1].gpa,
							mem->regions[1].size,
							MULTIBOOT_MEMORY_AVAILABLE };
	p = info_take(a, n * sizeof(e[0]), &gpa);
	if (!p)
		return -ENOSPC;
	memcpy(p, e, n * sizeof(e[0]));
	mbi->mmap_addr = gpa;
	mbi->mmap_length = n * sizeof(e[0]);
	mbi->flags |= MULTIBOOT_INFO_MEM_MAP;
	return 0;
}

/* Modules go page-aligned after the image (spec 3.3 flag 0 asks page alignment). */
static int load_modules(struct info_alloc *a, const struct guest_mem *mem,
			const struct multiboot_params *p, struct multiboot_boot *out,
			struct multiboot_info *mbi, char *err, size_t errlen)
{
	struct multiboot_mod *mods;
	/* Above the image, and never inside the low-memory information area. */
	uint64_t at = ((out->image_end > 0x100000 ? out->image_end : 0x100000) + 0xfff) &
		      ~0xfffULL;
	uint32_t gpa, str;
	unsigned int i;

	out->modules_end = out->image_end;
	if (!p->nr_modules)
		return 0;
	mods = info_take(a, p->nr_modules * sizeof(*mods), &gpa);
	if (!mods)
		return fail(err, errlen, -ENOSPC, "boot information area full");
	mbi->mods_addr = gpa;
	mbi->mods_count = p->nr_modules;
	mbi->flags |= MULTIBOOT_INFO_MODS;
	for (i = 0; i < p->nr_modules; i++) {
		const struct multiboot_module_in *m = &p->modules[i];
		uint8_t *dst = guest_mem_ptr(mem, at, m->size ? m->size : 1);

		/* Module addresses are 32-bit fields: they must sit below 4 GiB. */
		if (!dst || at + m->size > 0xffffffffULL)
			return fail(err, errlen, -ENOSPC,
				    "module '%s' (%zu bytes) does not fit in guest RAM below 4 GiB",
				    m->name, m->size);
		memcpy(dst, m->data, m->size);
		mods[i].mod_start = (uint32_t)at;
		mods[i].mod_end = (uint32_t)(at + m->size);
		if (info_string(a, m->name, NULL, &str))
			return fail(err, errlen, -ENOSPC, "module name '%s' too long", m->name);
		mods[i].string = str;
		at = (at + m->size + 0xfff) & ~0xfffULL;
		out->modules_end = at;
	}
	return 0;
}

int multiboot_load(const struct guest_mem *mem, const uint8_t *image, size_t size,
		   const struct multiboot_params *p, struct multiboot_boot *out,
		   char *err, size_t errlen)
{
	struct info_alloc a = { .mem = mem, .next = MULTIBOOT_INFO_BASE };
	const struct mb_header *h;
	struct multiboot_info *mbi;
	uint32_t flags, mbi_gpa, str;
	int r;

	memset(out, 0, sizeof(*out));
	if (!mem->nr || mem->regions[0].gpa || mem->regions[0].size < 0x200000)
		return fail(err, errlen, -ENOSPC, "guest RAM must start at 0 and be at least 2 MiB");
	h = find_header(image, size);
	if (!h)
		return fail(err, errlen, -EINVAL,
			    "no multiboot header in the first 8 KiB (not a multiboot kernel)");
	memcpy(&flags, &h->flags, sizeof(flags));
	/* Unknown requirement bits must make the load fail (spec 3.1.2). */
	if (flags & 0xfff8u)
		return fail(err, errlen, -EINVAL,
			    "multiboot header requires unsupported features (flags 0x%x)", flags);
	r = load_segments(mem, image, size, out, err, errlen);
	if (r)
		return r;

	mbi = info_take(&a, sizeof(*mbi), &mbi_gpa);
	if (!mbi)
		return fail(err, errlen, -ENOSPC, "no room for the boot information");
	mbi->flags = MULTIBOOT_INFO_MEMORY | MULTIBOOT_INFO_CMDLINE | MULTIBOOT_INFO_LOADER_NAME;
	mbi->mem_lower = 0x9fc00 / 1024;
	mbi->mem_upper = (mem_low_end(mem) - 0x100000) / 1024;
	r = info_string(&a, p->image_name ? p->image_name : "", p->append, &str);
	if (r)
		return fail(err, errlen, r, "command line longer than %d bytes",
			    MULTIBOOT_MAX_CMDLINE - 1);
	mbi->cmdline = str;
	if (info_string(&a, "pmuvm", NULL, &str) || build_mmap(&a, mem, mbi))
		return fail(err, errlen, -ENOSPC, "boot information area full");
	mbi->boot_loader_name = str;
	r = load_modules(&a, mem, p, out, mbi, err, errlen);
	if (r)
		return r;
	out->info_gpa = mbi_gpa;
	return 0;
}
