/* SPDX-License-Identifier: GPL-2.0-only */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elfgen.h"

#define HDR_OFF		0x100	/* multiboot header, inside the first 8 KiB */
#define DATA_OFF	0x200

uint8_t *elfgen_build(const struct elfgen_seg *segs, unsigned int n, uint32_t entry,
		      int with_header, uint32_t mb_flags, size_t *size)
{
	size_t total = DATA_OFF, off;
	Elf32_Ehdr eh;
	uint8_t *buf;
	unsigned int i;

	for (i = 0; i < n; i++)
		total += segs[i].filesz;
	buf = calloc(1, total);
	if (!buf)
		return NULL;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_386;
	eh.e_version = EV_CURRENT;
	eh.e_entry = entry;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf32_Phdr);
	eh.e_phnum = n;
	memcpy(buf, &eh, sizeof(eh));
	off = DATA_OFF;
	for (i = 0; i < n; i++) {
		Elf32_Phdr ph = {
			.p_type = PT_LOAD, .p_offset = off, .p_vaddr = segs[i].paddr,
			.p_paddr = segs[i].paddr, .p_filesz = segs[i].filesz,
			.p_memsz = segs[i].memsz, .p_flags = PF_R | PF_W | PF_X, .p_align = 0x1000,
		};

		memcpy(buf + sizeof(eh) + i * sizeof(ph), &ph, sizeof(ph));
		if (segs[i].data)
			memcpy(buf + off, segs[i].data, segs[i].filesz);
		off += segs[i].filesz;
	}
	if (with_header) {
		uint32_t h[3] = { 0x1badb002u, mb_flags, -(0x1badb002u + mb_flags) };

		memcpy(buf + HDR_OFF, h, sizeof(h));
	}
	*size = total;
	return buf;
}
