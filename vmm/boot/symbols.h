/* SPDX-License-Identifier: GPL-2.0-only */
/* Function symbols of the guest image (ELF32 or ELF64 .symtab), for profiles. */
#ifndef PMUVM_SYMBOLS_H
#define PMUVM_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct symbol {
	uint64_t addr, size;
	const char *name;	/* points into the image */
	const uint8_t *code;	/* its size bytes in the image (an executable section), or NULL */
};

/* An executable section's bytes in the image. */
struct code_section {
	uint64_t addr, size;
	const uint8_t *bytes;
};

struct symtab {
	struct symbol *syms;	/* sorted by addr */
	size_t nr;
	struct code_section *code;	/* the image's executable sections */
	size_t nr_code;
};

/* Reads STT_FUNC symbols; an image without a symbol table gives nr == 0. */
int symtab_load(struct symtab *t, const uint8_t *image, size_t size);
void symtab_free(struct symtab *t);

/* The function containing addr, or NULL. */
const struct symbol *symtab_lookup(const struct symtab *t, uint64_t addr);

#endif
