/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the Linux loader (boot/linux.c, boot/vmlinux.c) on
 * arbitrary kernel bytes, a bzImage or a vmlinux.
 *
 * Input: 4 bytes of layout, then the kernel.
 *   [0] low RAM: 2 MiB + (b & 0x7f) * 16 KiB, one byte less if b & 0x80
 *   [1] high RAM at 4 GiB: none if 0, else b * 4 KiB
 *   [2] initrd: (b & 0x7f) * 4 KiB, and bit 7 a command line
 *   [3] vCPUs, 1 + b % 4
 * Each RAM region is its own exact-size allocation, so ASan reports any
 * write outside guest RAM; the checks hold the loader to what linux.h
 * promises: on success the entry, zero page, command line and initrd lie
 * in RAM, the initrd page-aligned; on failure a reason and a documented
 * errno.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/le.h"
#include "boot/linux.h"
#include "fuzz_ram.h"

#define PREFIX		4
#define KIB		1024ULL

static void check(bool ok, const char *what)
{
	fuzz_check("fuzz_linux", ok, what);
}

static void check_result(const struct guest_mem *mem, const struct linux_boot *b,
			 const struct linux_params *p)
{
	const uint8_t *bp = guest_mem_ptr(mem, b->boot_params, 4096);
	uint32_t rd, rd_size;

	check(bp != NULL, "zero page not in RAM");
	check(guest_mem_ptr(mem, b->entry, 1) != NULL, "entry not in RAM");
	check(guest_mem_ptr(mem, le32(bp + 0x228), 1) != NULL, "command line not in RAM");
	check(!strcmp((const char *)guest_mem_ptr(mem, le32(bp + 0x228), 1),
		      p->cmdline ? p->cmdline : ""), "command line");
	rd = le32(bp + 0x218);
	rd_size = le32(bp + 0x21c);
	check(rd_size == p->initrd_size, "initrd size");
	if (rd_size) {
		check(rd % 4096 == 0 && rd >= 0x100000, "initrd placement");
		check(guest_mem_ptr(mem, rd, rd_size) != NULL, "initrd not in RAM");
		check(!memcmp(guest_mem_ptr(mem, rd, rd_size), p->initrd, rd_size), "initrd bytes");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct linux_params p = { 0 };
	struct linux_boot b;
	struct guest_mem mem = { 0 };
	static uint8_t *initrd;
	static uint64_t have_initrd;
	uint64_t low_size, high_size, initrd_size;
	char err[256];
	int r;

	if (size < PREFIX)
		return 0;
	low_size = 2048 * KIB + (data[0] & 0x7f) * 16 * KIB - (data[0] >> 7);
	high_size = data[1] * 4 * KIB;
	initrd_size = (data[2] & 0x7f) * 4 * KIB;
	p.cmdline = data[2] & 0x80 ? "console=ttyS0 rdinit=/init" : NULL;
	p.nr_cpus = 1 + data[3] % 4;
	p.initrd_size = initrd_size;
	p.initrd = initrd_size ? fuzz_region(&initrd, &have_initrd, initrd_size) : NULL;

	fuzz_guest_mem(&mem, low_size, high_size);

	err[0] = 0;
	r = linux_load(&mem, data + PREFIX, size - PREFIX, &p, &b, err, sizeof(err));
	if (r == 0)
		check_result(&mem, &b, &p);
	else
		check(err[0] != 0 && (r == -EINVAL || r == -E2BIG || r == -ENOSPC),
		      "failure without a reason or with an unexpected errno");
	return 0;
}
