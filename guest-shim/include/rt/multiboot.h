/* SPDX-License-Identifier: MIT */
/*
 * Multiboot 1 (Multiboot Specification 0.6.96, section 3): the header the
 * loader looks for and the information structure it hands over in EBX.
 * rt_mbi() returns a copy parsed at start-up, so guests may reuse the
 * memory the loader used (low pages, the trampoline) freely; only the
 * module contents stay where the loader put them.
 */
#ifndef RT_MULTIBOOT_H
#define RT_MULTIBOOT_H

#include <rt/bits.h>

#define MULTIBOOT_HEADER_MAGIC		0x1badb002
#define MULTIBOOT_BOOTLOADER_MAGIC	0x2badb002
#define MULTIBOOT_PAGE_ALIGN		RT_BIT(0)	/* modules on 4 KiB */
#define MULTIBOOT_MEMORY_INFO		RT_BIT(1)	/* mem_* and mmap_* */

/* multiboot_info.flags (spec 3.3) */
#define MBI_FLAG_MEM		RT_BIT(0)
#define MBI_FLAG_BOOTDEV	RT_BIT(1)
#define MBI_FLAG_CMDLINE	RT_BIT(2)
#define MBI_FLAG_MODS		RT_BIT(3)
#define MBI_FLAG_MMAP		RT_BIT(6)

#ifndef __ASSEMBLY__
#include <stdbool.h>
#include <stdint.h>

/* Raw layout, spec 3.3. */
struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;	/* KiB */
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
} __attribute__((packed));

struct multiboot_mod {
	uint32_t mod_start, mod_end, string, reserved;
} __attribute__((packed));

/* 'size' does not count itself: the next entry is at +size+4. */
struct multiboot_mmap_entry {
	uint32_t size;
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

#define MBI_MMAP_RAM	1

#define RT_MBI_MAX_MMAP		32
#define RT_MBI_MAX_MODS		16
#define RT_MBI_CMDLINE_MAX	256

struct rt_mmap {
	uint64_t addr, len;
	uint32_t type;
};

struct rt_module {
	uint64_t start, end;		/* [start, end) physical = virtual */
	const char *string;		/* loader's copy, "" if none */
};

struct rt_mbi {
	uint32_t flags;			/* raw MBI_FLAG_* */
	uint32_t mem_lower, mem_upper;	/* KiB, 0 unless MBI_FLAG_MEM */
	char cmdline[RT_MBI_CMDLINE_MAX]; /* "" unless MBI_FLAG_CMDLINE */
	unsigned int nr_mmap;
	struct rt_mmap mmap[RT_MBI_MAX_MMAP];
	unsigned int nr_modules;
	struct rt_module modules[RT_MBI_MAX_MODS];
};

void mbi_parse(uint32_t mbi_addr);
const struct rt_mbi *rt_mbi(void);
uint64_t mbi_ram_total(void);	/* sum of type-1 mmap lengths */

/*
 * Command-line words are "key=value" or "flag", blank separated.
 * mbi_arg() returns the value of @key (points into the copy, ends at a
 * blank or NUL) or NULL; a bare "key" yields "".
 */
const char *mbi_arg(const char *key);
bool mbi_arg_u64(const char *key, uint64_t *val);
#endif

#endif
