/* SPDX-License-Identifier: GPL-2.0-only */
/* Hand-built ELF images for loader tests: multiboot, broken, hostile. */
#ifndef TESTS_ELFGEN_H
#define TESTS_ELFGEN_H

#include <stddef.h>
#include <stdint.h>

struct elfgen_seg {
	uint32_t paddr;
	uint32_t filesz, memsz;
	const uint8_t *data;	/* filesz bytes; NULL = zeros */
};

/*
 * Builds an ELF32 i386 executable with a multiboot header (flags mb_flags)
 * at file offset 0x100 unless with_header is 0.  Returns a malloc'd buffer.
 */
uint8_t *elfgen_build(const struct elfgen_seg *segs, unsigned int n, uint32_t entry,
		      int with_header, uint32_t mb_flags, size_t *size);

#endif
