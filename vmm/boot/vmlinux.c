/* SPDX-License-Identifier: GPL-2.0-only */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "boot/vmlinux.h"

#define VMLINUX_MAX_SEGMENTS	16

static bool elf_header(const uint8_t *img, size_t size, Elf64_Ehdr *eh)
{
	if (size < sizeof(*eh))
		return false;
	memcpy(eh, img, sizeof(*eh));
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_machine == EM_X86_64 &&
	       eh->e_type == ET_EXEC && eh->e_phentsize == sizeof(Elf64_Phdr) && eh->e_phnum &&
	       eh->e_phoff <= size && (size - eh->e_phoff) / sizeof(Elf64_Phdr) >= eh->e_phnum;
}

static Elf64_Phdr phdr(const uint8_t *img, const Elf64_Ehdr *eh, unsigned int i)
{
	Elf64_Phdr ph;

	memcpy(&ph, img + eh->e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
	return ph;
}

/* A note named "Linux" in a PT_NOTE segment (include/linux/elfnote.h). */
static bool has_linux_note(const uint8_t *img, size_t size, const Elf64_Ehdr *eh)
{
	unsigned int i;

	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph = phdr(img, eh, i);
		uint64_t at, end;

		if (ph.p_type != PT_NOTE || ph.p_offset > size || size - ph.p_offset < ph.p_filesz)
			continue;
		end = ph.p_offset + ph.p_filesz;
		for (at = ph.p_offset; end - at >= sizeof(Elf64_Nhdr);) {
			Elf64_Nhdr nh;
			uint64_t name, desc;

			memcpy(&nh, img + at, sizeof(nh));
			name = at + sizeof(nh);
			desc = name + ((nh.n_namesz + 3ULL) & ~3ULL);
			if (desc > end || end - desc < nh.n_descsz)
				break;
			if (nh.n_namesz == 6 && !memcmp(img + name, "Linux", 6))
				return true;
			at = desc + ((nh.n_descsz + 3ULL) & ~3ULL);
		}
	}
	return false;
}

bool vmlinux_is(const uint8_t *img, size_t size)
{
	Elf64_Ehdr eh;

	return elf_header(img, size, &eh) && has_linux_note(img, size, &eh);
}

int vmlinux_place(const struct guest_mem *mem, const uint8_t *img, size_t size,
		  struct vmlinux_span *out, char *err, size_t errlen)
{
	uint64_t starts[VMLINUX_MAX_SEGMENTS], ends[VMLINUX_MAX_SEGMENTS];
	unsigned int i, j, n = 0;
	Elf64_Ehdr eh;
	bool entry_loaded = false;

	if (!elf_header(img, size, &eh)) {
		snprintf(err, errlen, "not an x86-64 ELF executable");
		return -EINVAL;
	}
	out->start = UINT64_MAX;
	out->end = 0;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph = phdr(img, &eh, i);
		uint8_t *dst;

		if (ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		if (ph.p_filesz > ph.p_memsz || ph.p_offset > size || size - ph.p_offset < ph.p_filesz ||
		    ph.p_paddr + ph.p_memsz < ph.p_paddr) {
			snprintf(err, errlen, "vmlinux segment %u is malformed", i);
			return -EINVAL;
		}
		if (n == VMLINUX_MAX_SEGMENTS) {
			snprintf(err, errlen, "vmlinux has more than %d loadable segments",
				 VMLINUX_MAX_SEGMENTS);
			return -E2BIG;
		}
		starts[n] = ph.p_paddr;
		ends[n] = ph.p_paddr + ph.p_memsz;
		if (starts[n] < VMLINUX_LOWEST) {
			snprintf(err, errlen, "vmlinux segment %u at 0x%llx lies below 1 MiB", i,
				 (unsigned long long)starts[n]);
			return -EINVAL;
		}
		for (j = 0; j < n; j++)
			if (starts[n] < ends[j] && starts[j] < ends[n]) {
				snprintf(err, errlen, "vmlinux segments overlap at 0x%llx",
					 (unsigned long long)starts[n]);
				return -EINVAL;
			}
		dst = guest_mem_ptr(mem, ph.p_paddr, ph.p_memsz);
		if (!dst) {
			snprintf(err, errlen, "the kernel (0x%llx-0x%llx) does not fit in guest RAM",
				 (unsigned long long)starts[n], (unsigned long long)ends[n]);
			return -ENOSPC;
		}
		memcpy(dst, img + ph.p_offset, ph.p_filesz);
		memset(dst + ph.p_filesz, 0, ph.p_memsz - ph.p_filesz);
		entry_loaded |= eh.e_entry >= starts[n] && eh.e_entry < ends[n];
		out->start = starts[n] < out->start ? starts[n] : out->start;
		out->end = ends[n] > out->end ? ends[n] : out->end;
		n++;
	}
	if (!n || !entry_loaded) {
		snprintf(err, errlen, "vmlinux entry 0x%llx is in none of its loadable segments",
			 (unsigned long long)eh.e_entry);
		return -EINVAL;
	}
	out->entry = eh.e_entry;
	return 0;
}
