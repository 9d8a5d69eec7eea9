/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What boot/linux.c writes into the zero page for any kernel, bzImage or
 * vmlinux (Documentation/arch/x86/boot.rst): boot flag, loader type and
 * load flags, the command line, and the initrd page-aligned between the
 * kernel's end and the end of RAM, with its bytes.
 */
#ifndef TESTS_UNIT_LINUX_ZERO_PAGE_H
#define TESTS_UNIT_LINUX_ZERO_PAGE_H

#include <string.h>

#include "boot/le.h"
#include "boot/linux.h"
#include "suite.h"

static inline void expect_zero_page(const uint8_t *ram, uint64_t ram_size, const uint8_t *bp,
				    const struct linux_params *p, uint64_t kernel_end)
{
	uint32_t rd = le32(bp + 0x218);

	ck_assert_uint_eq(le16(bp + 0x1fe), 0xaa55);
	ck_assert_uint_eq(bp[0x210], 0xff);			/* type_of_loader */
	ck_assert_uint_eq(bp[0x211] & 0x81, 0x81);		/* LOADED_HIGH | CAN_USE_HEAP */
	ck_assert_str_eq((const char *)ram + le32(bp + 0x228), p->cmdline ? p->cmdline : "");
	ck_assert_uint_eq(le32(bp + 0x21c), p->initrd_size);
	if (!p->initrd_size)
		return;
	ck_assert_uint_eq(rd % 4096, 0);
	ck_assert_uint_ge(rd, kernel_end);
	ck_assert_uint_le(rd + p->initrd_size, ram_size);
	ck_assert_int_eq(memcmp(ram + rd, p->initrd, p->initrd_size), 0);
}

#endif
