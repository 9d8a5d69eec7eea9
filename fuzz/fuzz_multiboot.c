/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the multiboot/ELF loader on arbitrary image bytes.
 *
 * Input: 4 bytes of layout, then the image.
 *   [0] low RAM: 2 MiB + (b & 0x7f) * 4 KiB, one byte less if b & 0x80
 *       (the loader needs >= 2 MiB)
 *   [1] high RAM at 4 GiB: none if 0, else b * 4 KiB
 *   [2] modules: b % 3 of them, sizes from [3]
 *   [3] module size in KiB (bits 6:0) and, bit 7, an --append string
 * Each RAM region is its own exact-size allocation, so ASan reports any
 * loader write outside guest RAM; the checks below hold the loader to the
 * layout it promises in multiboot.h. Buffers are kept while their size
 * stays the same: allocating megabytes per run would dominate the time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/multiboot.h"
#include "fuzz_ram.h"

#define PREFIX		4
#define KIB		1024ULL

static void check(bool ok, const char *what)
{
	fuzz_check("fuzz_multiboot", ok, what);
}

static int in_ram(const struct guest_mem *mem, uint64_t gpa, uint64_t len)
{
	return guest_mem_ptr(mem, gpa, len) != NULL;
}

/* A NUL-terminated string inside the information area. */
static void check_string(const struct guest_mem *mem, uint32_t gpa, const char *what)
{
	const char *s;

	check(gpa >= MULTIBOOT_INFO_BASE && gpa < MULTIBOOT_INFO_LIMIT, what);
	s = guest_mem_ptr(mem, gpa, 1);
	check(s != NULL, what);
	check(memchr(s, 0, MULTIBOOT_INFO_LIMIT - gpa) != NULL, what);
}

static void check_result(const struct guest_mem *mem, const struct multiboot_boot *b,
			 unsigned int nr_modules)
{
	const struct multiboot_info *mbi;

	check(b->nr_segments > 0, "success without segments");
	check(b->entry >= b->image_start && b->entry < b->image_end, "entry outside the image");
	check(in_ram(mem, b->image_start, 1) && in_ram(mem, b->image_end - 1, 1),
	      "image outside guest RAM");
	check(b->image_end <= MULTIBOOT_INFO_BASE || b->image_start >= MULTIBOOT_INFO_LIMIT ||
	      b->nr_segments > 1, "single segment over the information area");
	check(b->info_gpa >= MULTIBOOT_INFO_BASE &&
	      b->info_gpa + sizeof(*mbi) <= MULTIBOOT_INFO_LIMIT, "info outside its area");
	mbi = guest_mem_ptr(mem, b->info_gpa, sizeof(*mbi));
	check(mbi != NULL, "info not in RAM");
	check_string(mem, mbi->cmdline, "command line");
	check_string(mem, mbi->boot_loader_name, "loader name");
	check(mbi->mmap_addr >= MULTIBOOT_INFO_BASE &&
	      mbi->mmap_addr + mbi->mmap_length <= MULTIBOOT_INFO_LIMIT, "memory map");
	check(mbi->mods_count == nr_modules, "module count");
	if (nr_modules) {
		const struct multiboot_mod *m = guest_mem_ptr(mem, mbi->mods_addr,
							       nr_modules * sizeof(*m));
		unsigned int i;

		check(m != NULL, "module list not in RAM");
		for (i = 0; i < nr_modules; i++) {
			check(m[i].mod_start >= b->image_end && m[i].mod_start >= 0x100000,
			      "module below the image or the 1 MiB line");
			check(m[i].mod_end >= m[i].mod_start, "module end");
			check(m[i].mod_end == m[i].mod_start ||
			      in_ram(mem, m[i].mod_start, m[i].mod_end - m[i].mod_start),
			      "module not in RAM");
			check_string(mem, m[i].string, "module name");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const append[2] = { NULL, "console=ttyS0 code=7 x" };
	struct multiboot_module_in mods[2];
	struct multiboot_params p = { .image_name = "fuzz.elf" };
	struct multiboot_boot b;
	struct guest_mem mem = { 0 };
	static uint8_t *mod_data[2];
	static uint64_t have_mod[2];
	uint64_t low_size, high_size, mod_size;
	char err[128];
	unsigned int i;
	int r;

	if (size < PREFIX)
		return 0;
	low_size = 2048 * KIB + (data[0] & 0x7f) * 4 * KIB - (data[0] >> 7);
	high_size = data[1] * 4 * KIB;
	mod_size = (data[3] & 0x7f) * KIB;
	p.nr_modules = data[2] % 3;
	p.append = append[data[3] >> 7];

	fuzz_guest_mem(&mem, low_size, high_size);
	/* Module i has (i + 1) * mod_size bytes, in a buffer of exactly that size. */
	for (i = 0; i < p.nr_modules; i++)
		mods[i] = (struct multiboot_module_in){
			.name = i ? "mod1" : "mod0 arg", .size = (i + 1) * mod_size,
			.data = fuzz_region(&mod_data[i], &have_mod[i], (i + 1) * mod_size),
		};
	p.modules = mods;

	err[0] = 0;
	r = multiboot_load(&mem, data + PREFIX, size - PREFIX, &p, &b, err, sizeof(err));
	if (r == 0)
		check_result(&mem, &b, p.nr_modules);
	else
		check(err[0] != 0 && (r == -EINVAL || r == -E2BIG || r == -ENOSPC),
		      "failure without a reason or with an unexpected errno");
	return 0;
}
