/* SPDX-License-Identifier: GPL-2.0-only */
/* The multiboot loader, in-process against a fake guest RAM. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/multiboot.h"
#include "elfgen.h"
#include "suite.h"

#define RAM_SIZE	(8u << 20)

static uint8_t *ram;
static struct guest_mem mem;
static char err[256];

static void setup(void)
{
	ram = calloc(1, RAM_SIZE);
	ck_assert_ptr_nonnull(ram);
	memset(ram, 0xaa, RAM_SIZE);	/* so that zeroed BSS is visible */
	guest_mem_layout(&mem, ram, RAM_SIZE);
	err[0] = 0;
}

static void teardown(void)
{
	free(ram);
}

static const uint8_t code[] = { 0x90, 0x90, 0xf4, 0xeb, 0xfd };

static int load(const struct elfgen_seg *segs, unsigned int n, uint32_t entry,
		const struct multiboot_params *p, struct multiboot_boot *b)
{
	static const struct multiboot_params none = { .image_name = "k.elf" };
	size_t size;
	uint8_t *img = elfgen_build(segs, n, entry, 1, 0x3, &size);
	int r;

	ck_assert_ptr_nonnull(img);
	r = multiboot_load(&mem, img, size, p ? p : &none, b, err, sizeof(err));
	free(img);
	return r;
}

START_TEST(test_load_valid)
{
	struct elfgen_seg seg = { 0x100000, sizeof(code), 0x3000, code };
	const struct multiboot_info *mbi;
	struct multiboot_boot b;
	const struct multiboot_mmap_entry *mm;

	ck_assert_int_eq(load(&seg, 1, 0x100000, NULL, &b), 0);
	ck_assert_uint_eq(b.entry, 0x100000);
	ck_assert_uint_eq(b.info_gpa, MULTIBOOT_INFO_BASE);
	ck_assert_uint_eq(b.image_start, 0x100000);
	ck_assert_uint_eq(b.image_end, 0x103000);
	ck_assert_int_eq(memcmp(ram + 0x100000, code, sizeof(code)), 0);
	ck_assert_uint_eq(ram[0x100000 + sizeof(code)], 0);	/* BSS zeroed */
	ck_assert_uint_eq(ram[0x102fff], 0);
	ck_assert_uint_eq(ram[0x103000], 0xaa);			/* nothing past it */

	mbi = (const void *)(ram + b.info_gpa);
	ck_assert_uint_eq(mbi->flags, MULTIBOOT_INFO_MEMORY | MULTIBOOT_INFO_CMDLINE |
			  MULTIBOOT_INFO_LOADER_NAME | MULTIBOOT_INFO_MEM_MAP);
	ck_assert_uint_eq(mbi->mem_lower, 639);
	ck_assert_uint_eq(mbi->mem_upper, (RAM_SIZE - 0x100000) / 1024);
	ck_assert_str_eq((const char *)ram + mbi->cmdline, "k.elf");
	ck_assert_str_eq((const char *)ram + mbi->boot_loader_name, "pmuvm");
	ck_assert_uint_eq(mbi->mmap_length, 4 * sizeof(*mm));
	mm = (const void *)(ram + mbi->mmap_addr);
	ck_assert_uint_eq(mm[0].size, 20);
	ck_assert_uint_eq(mm[0].addr, 0);
	ck_assert_uint_eq(mm[0].len, 0x9fc00);
	ck_assert_uint_eq(mm[0].type, MULTIBOOT_MEMORY_AVAILABLE);
	ck_assert_uint_eq(mm[1].type, MULTIBOOT_MEMORY_RESERVED);
	ck_assert_uint_eq(mm[2].addr, 0xf0000);
	ck_assert_uint_eq(mm[3].addr, 0x100000);
	ck_assert_uint_eq(mm[3].len, RAM_SIZE - 0x100000);
	ck_assert_uint_eq(mm[3].type, MULTIBOOT_MEMORY_AVAILABLE);
}
END_TEST

START_TEST(test_cmdline_and_modules)
{
	static const uint8_t m0[] = "module zero", m1[5000] = { 1, 2, 3 };
	struct multiboot_module_in mods[2] = {
		{ "mod0 arg", m0, sizeof(m0) }, { "mod1", m1, sizeof(m1) },
	};
	struct multiboot_params p = {
		.image_name = "k.elf", .append = "code=7 x", .modules = mods, .nr_modules = 2,
	};
	struct elfgen_seg seg = { 0x100000, sizeof(code), 0x1800, code };
	const struct multiboot_mod *mm;
	const struct multiboot_info *mbi;
	struct multiboot_boot b;

	ck_assert_int_eq(load(&seg, 1, 0x100000, &p, &b), 0);
	mbi = (const void *)(ram + b.info_gpa);
	ck_assert(mbi->flags & MULTIBOOT_INFO_MODS);
	ck_assert_str_eq((const char *)ram + mbi->cmdline, "k.elf code=7 x");
	ck_assert_uint_eq(mbi->mods_count, 2);
	mm = (const void *)(ram + mbi->mods_addr);
	/* Page-aligned, after the image, in order. */
	ck_assert_uint_eq(mm[0].mod_start, 0x102000);
	ck_assert_uint_eq(mm[0].mod_end, 0x102000 + sizeof(m0));
	ck_assert_uint_eq(mm[1].mod_start, 0x103000);
	ck_assert_uint_eq(mm[1].mod_end, 0x103000 + sizeof(m1));
	ck_assert_int_eq(memcmp(ram + mm[0].mod_start, m0, sizeof(m0)), 0);
	ck_assert_int_eq(memcmp(ram + mm[1].mod_start, m1, sizeof(m1)), 0);
	ck_assert_str_eq((const char *)ram + mm[0].string, "mod0 arg");
	ck_assert_str_eq((const char *)ram + mm[1].string, "mod1");
	ck_assert_uint_eq(b.modules_end, 0x105000);
}
END_TEST

START_TEST(test_high_memory_map)
{
	static uint8_t fake[1];
	struct elfgen_seg seg = { 0x100000, sizeof(code), 0x1000, code };
	struct guest_mem big;
	const struct multiboot_info *mbi;
	const struct multiboot_mmap_entry *mm;

	/* A 4 GiB + 1 GiB layout: check the map, backing only the low 8 MiB. */
	guest_mem_layout(&big, fake, 5ULL << 30);
	ck_assert_uint_eq(big.nr, 2);
	ck_assert_uint_eq(big.regions[0].size, GUEST_LOWMEM_END);
	ck_assert_uint_eq(big.regions[1].gpa, GUEST_HIGHMEM_START);
	ck_assert_uint_eq(big.regions[1].size, (5ULL << 30) - GUEST_LOWMEM_END);
	ck_assert_ptr_null(guest_mem_ptr(&big, GUEST_LOWMEM_END, 1));
	ck_assert_ptr_null(guest_mem_ptr(&big, GUEST_HIGHMEM_START - 1, 2));
	ck_assert_ptr_null(guest_mem_ptr(&big, ~0ULL, 2));
	ck_assert_ptr_null(guest_mem_ptr(&big, 0, ~0ULL));
	/* Same map, real backing: shrink the low region to our buffer. */
	big.regions[0].hva = ram;
	big.regions[0].size = RAM_SIZE;
	{
		size_t size;
		uint8_t *img = elfgen_build(&seg, 1, 0x100000, 1, 0x3, &size);
		struct multiboot_params p = { .image_name = "k" };
		struct multiboot_boot b;

		ck_assert_int_eq(multiboot_load(&big, img, size, &p, &b, err, sizeof(err)), 0);
		free(img);
		mbi = (const void *)(ram + b.info_gpa);
		ck_assert_uint_eq(mbi->mmap_length, 5 * sizeof(*mm));
		mm = (const void *)(ram + mbi->mmap_addr);
		ck_assert_uint_eq(mm[4].addr, GUEST_HIGHMEM_START);
		ck_assert_uint_eq(mm[4].len, (5ULL << 30) - GUEST_LOWMEM_END);
	}
}
END_TEST

struct bad_case {
	const char *what;
	struct elfgen_seg segs[2];
	unsigned int n;
	uint32_t entry;
	const char *needle;
};

static const struct bad_case bad_cases[] = {
	{ "beyond RAM", { { 0x100000, 5, RAM_SIZE, code } }, 1, 0x100000,
	  "does not fit in guest RAM" },
	{ "wraps 4G", { { 0xfffff000u, 5, 0x2000, code } }, 1, 0xfffff000u,
	  "does not fit in guest RAM" },
	{ "overlap", { { 0x100000, 5, 0x2000, code }, { 0x101000, 0, 0x10, NULL } }, 2,
	  0x100000, "segments overlap" },
	{ "info area", { { 0x9000, 5, 0x100, code } }, 1, 0x9000,
	  "overlaps the boot information area" },
	{ "entry outside", { { 0x100000, 5, 0x100, code } }, 1, 0x200000,
	  "entry point 0x200000 is outside every segment" },
	{ "no segments", { { 0x100000, 0, 0, NULL } }, 1, 0x100000, "no loadable segments" },
};

START_TEST(test_bad_layouts)
{
	const struct bad_case *c = &bad_cases[_i];
	struct multiboot_boot b;

	ck_assert_int_ne(load(c->segs, c->n, c->entry, NULL, &b), 0);
	ck_assert_msg(strstr(err, c->needle), "%s: '%s' lacks '%s'", c->what, err, c->needle);
}
END_TEST

static uint8_t *valid_image(size_t *size)
{
	struct elfgen_seg seg = { 0x100000, sizeof(code), 0x1000, code };

	return elfgen_build(&seg, 1, 0x100000, 1, 0x3, size);
}

static int load_raw(uint8_t *img, size_t size)
{
	struct multiboot_params p = { .image_name = "k" };
	struct multiboot_boot b;

	return multiboot_load(&mem, img, size, &p, &b, err, sizeof(err));
}

START_TEST(test_bad_headers)
{
	size_t size;
	uint8_t *img = valid_image(&size);
	uint32_t h[3];

	/* Bad checksum. */
	memcpy(h, img + 0x100, sizeof(h));
	h[2]++;
	memcpy(img + 0x100, h, sizeof(h));
	ck_assert_int_eq(load_raw(img, size), -EINVAL);
	ck_assert(strstr(err, "no multiboot header in the first 8 KiB"));
	/* Unknown required flag bit 3. */
	h[1] = 0x8 | 0x3;
	h[2] = -(h[0] + h[1]);
	memcpy(img + 0x100, h, sizeof(h));
	ck_assert_int_eq(load_raw(img, size), -EINVAL);
	ck_assert(strstr(err, "requires unsupported features (flags 0xb)"));
	free(img);
}
END_TEST

START_TEST(test_header_beyond_8k)
{
	size_t size, big = 16384;
	uint8_t *img = valid_image(&size), *img2 = calloc(1, big);
	uint32_t h[3];

	memcpy(img2, img, size);
	memcpy(h, img + 0x100, sizeof(h));
	memset(img2 + 0x100, 0, sizeof(h));
	memcpy(img2 + 8192, h, sizeof(h));	/* just past the search window */
	ck_assert_int_eq(load_raw(img2, big), -EINVAL);
	ck_assert(strstr(err, "no multiboot header"));
	memcpy(img2 + 8192 - 12, h, sizeof(h));	/* last slot inside it */
	ck_assert_int_eq(load_raw(img2, big), 0);
	free(img);
	free(img2);
}
END_TEST

START_TEST(test_truncated_and_malformed)
{
	size_t size;
	uint8_t *img = valid_image(&size);
	Elf32_Ehdr eh;
	Elf32_Phdr ph;
	uint8_t *copy = malloc(size);

	/* Truncated program headers. */
	memcpy(copy, img, size);
	memcpy(&eh, copy, sizeof(eh));
	eh.e_phnum = 200;
	memcpy(copy, &eh, sizeof(eh));
	ck_assert_int_eq(load_raw(copy, size), -EINVAL);
	ck_assert(strstr(err, "program headers are truncated"));
	/* Segment data past the end of the file. */
	memcpy(copy, img, size);
	memcpy(&ph, copy + sizeof(eh), sizeof(ph));
	ph.p_offset = (uint32_t)size - 2;
	memcpy(copy + sizeof(eh), &ph, sizeof(ph));
	ck_assert_int_eq(load_raw(copy, size), -EINVAL);
	ck_assert(strstr(err, "beyond the end of the file"));
	/* File size larger than memory size. */
	memcpy(copy, img, size);
	memcpy(&ph, copy + sizeof(eh), sizeof(ph));
	ph.p_filesz = ph.p_memsz + 1;
	memcpy(copy + sizeof(eh), &ph, sizeof(ph));
	ck_assert_int_eq(load_raw(copy, size), -EINVAL);
	ck_assert(strstr(err, "exceeds memory size"));
	/* Big-endian / wrong machine. */
	memcpy(copy, img, size);
	copy[EI_DATA] = ELFDATA2MSB;
	ck_assert_int_eq(load_raw(copy, size), -EINVAL);
	ck_assert(strstr(err, "not a little-endian i386 ELF executable"));
	/* ELF64. */
	memcpy(copy, img, size);
	copy[EI_CLASS] = ELFCLASS64;
	ck_assert_int_eq(load_raw(copy, size), -EINVAL);
	ck_assert(strstr(err, "ELF64 image"));
	/* Too short to be ELF, with a header. */
	ck_assert_int_eq(load_raw(copy + 0x100, 12), -EINVAL);
	free(copy);
	free(img);
}
END_TEST

START_TEST(test_cmdline_too_long)
{
	char *longline = malloc(MULTIBOOT_MAX_CMDLINE + 1);
	struct elfgen_seg seg = { 0x100000, sizeof(code), 0x1000, code };
	struct multiboot_params p = { .image_name = "k" };
	struct multiboot_boot b;

	memset(longline, 'a', MULTIBOOT_MAX_CMDLINE);
	longline[MULTIBOOT_MAX_CMDLINE] = 0;
	p.append = longline;
	ck_assert_int_eq(load(&seg, 1, 0x100000, &p, &b), -E2BIG);
	ck_assert(strstr(err, "command line longer than"));
	free(longline);
}
END_TEST

START_TEST(test_module_too_big)
{
	static uint8_t blob[1 << 20];
	struct multiboot_module_in mods[8];
	struct elfgen_seg seg = { 0x100000, sizeof(code), 0x1000, code };
	struct multiboot_params p = { .image_name = "k", .modules = mods, .nr_modules = 8 };
	struct multiboot_boot b;
	unsigned int i;

	for (i = 0; i < 8; i++)
		mods[i] = (struct multiboot_module_in){ "m", blob, sizeof(blob) };
	ck_assert_int_eq(load(&seg, 1, 0x100000, &p, &b), -ENOSPC);
	ck_assert(strstr(err, "does not fit in guest RAM below 4 GiB"));
}
END_TEST

static Suite *multiboot_suite(void)
{
	Suite *s = suite_create("multiboot");
	TCase *tc = tcase_create("loader");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_load_valid);
	tcase_add_test(tc, test_cmdline_and_modules);
	tcase_add_test(tc, test_high_memory_map);
	tcase_add_loop_test(tc, test_bad_layouts, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_header_beyond_8k);
	tcase_add_test(tc, test_truncated_and_malformed);
	tcase_add_test(tc, test_cmdline_too_long);
	tcase_add_test(tc, test_module_too_big);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(multiboot_suite)
