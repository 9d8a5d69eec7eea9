/* SPDX-License-Identifier: GPL-2.0-only */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "boot/symbols.h"

/* A section header reduced to what we need, for both ELF classes. */
struct shdr {
	uint32_t type, link;
	uint64_t flags, addr, offset, size, entsize;
};

static bool in_file(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static int read_shdr(const uint8_t *img, size_t size, bool is64, uint64_t shoff,
		     unsigned int i, struct shdr *out)
{
	if (is64) {
		Elf64_Shdr s;

		if (!in_file(size, shoff + (uint64_t)i * sizeof(s), sizeof(s)))
			return -EINVAL;
		memcpy(&s, img + shoff + (uint64_t)i * sizeof(s), sizeof(s));
		*out = (struct shdr){ s.sh_type, s.sh_link, s.sh_flags, s.sh_addr, s.sh_offset, s.sh_size,
				     s.sh_entsize };
	} else {
		Elf32_Shdr s;

		if (!in_file(size, shoff + (uint64_t)i * sizeof(s), sizeof(s)))
			return -EINVAL;
		memcpy(&s, img + shoff + (uint64_t)i * sizeof(s), sizeof(s));
		*out = (struct shdr){ s.sh_type, s.sh_link, s.sh_flags, s.sh_addr, s.sh_offset, s.sh_size,
				     s.sh_entsize };
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The bytes of [addr, addr + len) in section `shndx` if it is code in the file, or NULL. */
static const uint8_t *code_bytes(const uint8_t *img, size_t size, bool is64, uint64_t shoff,
				 unsigned int shnum, uint16_t shndx, uint64_t addr, uint64_t len)
{
	struct shdr s;

	if (shndx >= shnum || read_shdr(img, size, is64, shoff, shndx, &s) ||
	    s.type != SHT_PROGBITS || !(s.flags & SHF_EXECINSTR) || !in_file(size, s.offset, s.size) ||
	    addr < s.addr || addr - s.addr > s.size || len > s.size - (addr - s.addr))
		return NULL;
	return img + s.offset + (addr - s.addr);
}

static int add_symbols(struct symtab *t, const uint8_t *img, size_t size, bool is64,
		       uint64_t shoff, unsigned int shnum, const struct shdr *sym,
		       const struct shdr *str)
{
	size_t esz = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym), n, i;

	if (!in_file(size, sym->offset, sym->size) || !in_file(size, str->offset, str->size) ||
	    !str->size || img[str->offset + str->size - 1] != 0)
		return -EINVAL;
	n = sym->size / esz;
	t->syms = calloc(n ? n : 1, sizeof(*t->syms));
	if (!t->syms)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t value, ssize;
		uint32_t name;
		uint16_t shndx;
		unsigned char info;

		if (is64) {
			Elf64_Sym s;

			memcpy(&s, img + sym->offset + i * esz, esz);
			value = s.st_value, ssize = s.st_size, name = s.st_name, info = s.st_info;
			shndx = s.st_shndx;
		} else {
			Elf32_Sym s;

			memcpy(&s, img + sym->offset + i * esz, esz);
			value = s.st_value, ssize = s.st_size, name = s.st_name, info = s.st_info;
			shndx = s.st_shndx;
		}
		/* Undefined (imported) functions have no address in this image. */
		if (ELF64_ST_TYPE(info) != STT_FUNC || shndx == SHN_UNDEF || name >= str->size)
			continue;
		t->syms[t->nr++] = (struct symbol){
			value, ssize, (const char *)img + str->offset + name,
			code_bytes(img, size, is64, shoff, shnum, shndx, value, ssize),
		};
	}
	qsort(t->syms, t->nr, sizeof(*t->syms), cmp_sym);
	return 0;
}

static int symtab_parse(struct symtab *t, const uint8_t *img, size_t size)
{
	struct shdr s, str;
	uint64_t shoff;
	unsigned int shnum, i;
	bool is64;

	memset(t, 0, sizeof(*t));
	if (size < EI_NIDENT || memcmp(img, ELFMAG, SELFMAG))
		return -EINVAL;
	is64 = img[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr eh;

		if (size < sizeof(eh))
			return -EINVAL;
		memcpy(&eh, img, sizeof(eh));
		shoff = eh.e_shoff, shnum = eh.e_shnum;
	} else {
		Elf32_Ehdr eh;

		if (size < sizeof(eh))
			return -EINVAL;
		memcpy(&eh, img, sizeof(eh));
		shoff = eh.e_shoff, shnum = eh.e_shnum;
	}
	t->code = calloc(shnum ? shnum : 1, sizeof(*t->code));
	if (!t->code)
		return -ENOMEM;
	for (i = 0; i < shnum; i++) {
		if (read_shdr(img, size, is64, shoff, i, &s))
			return -EINVAL;
		if (s.type == SHT_PROGBITS && (s.flags & SHF_EXECINSTR) && in_file(size, s.offset, s.size))
			t->code[t->nr_code++] = (struct code_section){ s.addr, s.size, img + s.offset };
	}
	for (i = 0; i < shnum; i++) {
		if (read_shdr(img, size, is64, shoff, i, &s))
			return -EINVAL;
		if (s.type != SHT_SYMTAB)
			continue;
		if (s.link >= shnum || read_shdr(img, size, is64, shoff, s.link, &str))
			return -EINVAL;
		return add_symbols(t, img, size, is64, shoff, shnum, &s, &str);
	}
	return 0;
}

int symtab_load(struct symtab *t, const uint8_t *img, size_t size)
{
	int r = symtab_parse(t, img, size);

	if (r)
		symtab_free(t);
	return r;
}

void symtab_free(struct symtab *t)
{
	free(t->syms);
	free(t->code);
	t->syms = NULL;
	t->code = NULL;
	t->nr = t->nr_code = 0;
}

const struct symbol *symtab_lookup(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;
	const struct symbol *s;

	while (lo < hi) {	/* last symbol with addr <= target */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &t->syms[lo - 1];
	/* Size 0 (hand-written asm) extends to the next symbol. */
	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}
