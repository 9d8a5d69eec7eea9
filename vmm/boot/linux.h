/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Linux x86 boot protocol (Documentation/arch/x86/boot.rst), 64-bit
 * entry: a bzImage's protected-mode kernel at 1 MiB, or an uncompressed
 * vmlinux (boot/vmlinux.h), the zero page (struct boot_params) with the
 * setup header, an e820 map of guest RAM, the command line and an initrd,
 * and identity-mapped page tables and a GDT for entering at startup_64
 * (a bzImage's load address + 0x200, a vmlinux's e_entry) in long mode.
 */
#ifndef PMUVM_BOOT_LINUX_H
#define PMUVM_BOOT_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/guest_mem.h"

/* Where the loader put things, for the BSP's entry state. */
struct linux_boot {
	uint64_t entry;		/* 64-bit entry point */
	uint64_t boot_params;	/* RSI at entry */
	uint64_t cr3;		/* identity map of the first 4 GiB, 2 MiB pages */
	uint64_t gdt, gdt_limit;
	uint16_t code_sel, data_sel;	/* __BOOT_CS, __BOOT_DS */
};

struct linux_params {
	const char *cmdline;
	const uint8_t *initrd;
	size_t initrd_size;
	unsigned int nr_cpus;	/* in the ACPI tables' MADT */
	unsigned int nr_virtio_mmio;	/* in their DSDT (boot/acpi.h) */
};

/* True if `img` carries the boot protocol's setup header ("HdrS"). */
bool linux_is_bzimage(const uint8_t *img, size_t size);

/* True for a bzImage or a vmlinux. */
bool linux_is_kernel(const uint8_t *img, size_t size);

/*
 * Loads the kernel, initrd, command line, zero page, GDT and page tables
 * into guest RAM. 0, or -EINVAL/-E2BIG/-ENOSPC with a one-line reason in err.
 */
int linux_load(const struct guest_mem *mem, const uint8_t *img, size_t size,
	       const struct linux_params *p, struct linux_boot *out, char *err, size_t errlen);

#endif
