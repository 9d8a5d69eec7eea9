/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Multiboot 1 loader (Multiboot Specification 0.6.96): loads an ELF32 image's
 * PT_LOAD segments at their physical addresses and builds the information
 * structure, as QEMU's -kernel does, so one image boots under both.  Pure:
 * works on a struct guest_mem, so it is unit-tested and fuzzed in-process.
 */
#ifndef PMUVM_MULTIBOOT_H
#define PMUVM_MULTIBOOT_H

#include <stddef.h>
#include <stdint.h>

#include "mem/guest_mem.h"

#define MULTIBOOT_HEADER_MAGIC		0x1badb002u
#define MULTIBOOT_BOOTLOADER_MAGIC	0x2badb002u
#define MULTIBOOT_SEARCH		8192

/* Header flags (spec 3.1.2): bits 0-15 are requirements the loader must meet. */
#define MULTIBOOT_PAGE_ALIGN		(1u << 0)
#define MULTIBOOT_MEMORY_INFO		(1u << 1)
#define MULTIBOOT_VIDEO_MODE		(1u << 2)
#define MULTIBOOT_AOUT_KLUDGE		(1u << 16)

/* Information flags (spec 3.3). */
#define MULTIBOOT_INFO_MEMORY		(1u << 0)
#define MULTIBOOT_INFO_CMDLINE		(1u << 2)
#define MULTIBOOT_INFO_MODS		(1u << 3)
#define MULTIBOOT_INFO_MEM_MAP		(1u << 6)
#define MULTIBOOT_INFO_LOADER_NAME	(1u << 9)

#define MULTIBOOT_MEMORY_AVAILABLE	1
#define MULTIBOOT_MEMORY_RESERVED	2

struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
	uint32_t apm_table;
	uint32_t vbe[6];
} __attribute__((packed));

struct multiboot_mod {
	uint32_t mod_start, mod_end, string, reserved;
} __attribute__((packed));

struct multiboot_mmap_entry {
	uint32_t size;		/* of the rest of the entry: 20 */
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

/*
 * Where the information structure, memory map and strings go: low memory,
 * clear of the IVT/BDA and of the real-mode AP trampoline pages guests use
 * at 0x8000.  Image segments may not overlap it.
 */
#define MULTIBOOT_INFO_BASE		0x9000u
#define MULTIBOOT_INFO_LIMIT		0x9fc00u	/* start of the EBDA */
#define MULTIBOOT_MAX_CMDLINE		4096

struct multiboot_module_in {
	const char *name;	/* module string passed to the guest */
	const uint8_t *data;
	size_t size;
};

struct multiboot_params {
	const char *image_name;		/* first word of the command line, as QEMU/GRUB */
	const char *append;		/* may be NULL */
	const struct multiboot_module_in *modules;
	unsigned int nr_modules;
};

struct multiboot_boot {
	uint32_t entry;
	uint32_t info_gpa;
	uint64_t image_start, image_end;	/* lowest and highest loaded byte + 1 */
	uint64_t modules_end;
	unsigned int nr_segments;
};

/*
 * Loads `image` into `mem` and writes the information structure.  Returns 0,
 * or -EINVAL/-E2BIG/-ENOSPC with a one-line reason in err.
 */
int multiboot_load(const struct guest_mem *mem, const uint8_t *image, size_t size,
		   const struct multiboot_params *p, struct multiboot_boot *out,
		   char *err, size_t errlen);

#endif
