/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An uncompressed Linux kernel, vmlinux (ELF64 x86-64 with a "Linux" ELF
 * note), booted through the 64-bit boot protocol without the bzImage's
 * decompressor: its PT_LOAD segments at their physical addresses, entered
 * at e_entry, startup_64 of arch/x86/kernel/head_64.S, which is reached
 * "either directly from a 64bit bootloader, or from
 * arch/x86/boot/compressed/head_64.S" (docs/machine.md, "Boot").
 */
#ifndef PMUVM_BOOT_VMLINUX_H
#define PMUVM_BOOT_VMLINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/guest_mem.h"

/* Segments must lie above the boot structures below 1 MiB (boot/linux.c). */
#define VMLINUX_LOWEST	0x100000ULL

struct vmlinux_span {
	uint64_t start, end;	/* guest-physical range of the loaded segments */
	uint64_t entry;		/* e_entry: startup_64's physical address */
};

bool vmlinux_is(const uint8_t *img, size_t size);

/* Loads the segments; 0, or -EINVAL/-E2BIG/-ENOSPC with a reason in err. */
int vmlinux_place(const struct guest_mem *mem, const uint8_t *img, size_t size,
		  struct vmlinux_span *out, char *err, size_t errlen);

#endif
