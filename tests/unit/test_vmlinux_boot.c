/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An uncompressed kernel (vmlinux, vmm/boot/vmlinux.c) through the Linux
 * loader, in-process against a fake guest RAM and a synthetic ELF64 with a
 * "Linux" note: segments at their physical addresses, BSS zeroed, entry at
 * e_entry, the setup header a bzImage would carry
 * (Documentation/arch/x86/boot.rst), and the initrd above the kernel.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/le.h"
#include "boot/linux.h"
#include "boot/vmlinux.h"
#include "linux_zero_page.h"
#include "suite.h"

#define RAM_SIZE	(32u << 20)
#define TEXT_PADDR	0x1000000ULL	/* LOAD_PHYSICAL_ADDR */
#define TEXT_FILESZ	0x3000
#define TEXT_MEMSZ	0x5000		/* 0x2000 of BSS */
#define DATA_PADDR	0x1200000ULL
#define DATA_SIZE	0x1000
#define TEXT_OFF	0x1000
#define DATA_OFF	(TEXT_OFF + TEXT_FILESZ)
#define NOTE_OFF	(DATA_OFF + DATA_SIZE)
#define IMG_SIZE	(NOTE_OFF + 64)

static uint8_t *ram;
static struct guest_mem mem;
static uint8_t img[IMG_SIZE];
static char err[256];

static Elf64_Phdr *ph(unsigned int i)
{
	return (Elf64_Phdr *)(img + sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr));
}

/* A note "Linux" (namesz 6, padded to 8) with 4 bytes of description. */
static void note(const char *name)
{
	Elf64_Nhdr nh = { .n_namesz = (Elf64_Word)strlen(name) + 1, .n_descsz = 4, .n_type = 1 };

	memcpy(img + NOTE_OFF, &nh, sizeof(nh));
	memset(img + NOTE_OFF + sizeof(nh), 0, 12);
	memcpy(img + NOTE_OFF + sizeof(nh), name, strlen(name) + 1);
}

static void setup(void)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	unsigned int i;

	ram = malloc(RAM_SIZE);
	ck_assert_ptr_nonnull(ram);
	memset(ram, 0xff, RAM_SIZE);
	guest_mem_layout(&mem, ram, RAM_SIZE);
	memset(img, 0, sizeof(img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_entry = TEXT_PADDR;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 3;
	*ph(0) = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = TEXT_OFF,
			       .p_vaddr = 0xffffffff81000000ULL, .p_paddr = TEXT_PADDR,
			       .p_filesz = TEXT_FILESZ, .p_memsz = TEXT_MEMSZ };
	*ph(1) = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = DATA_OFF,
			       .p_vaddr = 0xffffffff81200000ULL, .p_paddr = DATA_PADDR,
			       .p_filesz = DATA_SIZE, .p_memsz = DATA_SIZE };
	*ph(2) = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = NOTE_OFF, .p_filesz = 24 };
	for (i = 0; i < TEXT_FILESZ + DATA_SIZE; i++)
		img[TEXT_OFF + i] = (uint8_t)(i * 13 + 1);
	note("Linux");
	err[0] = 0;
}

static void teardown(void)
{
	free(ram);
}

static int load(const struct linux_params *p, struct linux_boot *b)
{
	return linux_load(&mem, img, sizeof(img), p, b, err, sizeof(err));
}

START_TEST(test_vmlinux_detection)
{
	ck_assert(vmlinux_is(img, sizeof(img)));
	ck_assert(linux_is_kernel(img, sizeof(img)));
	ck_assert(!linux_is_bzimage(img, sizeof(img)));
	ck_assert(!vmlinux_is(img, sizeof(Elf64_Ehdr)));	/* program headers cut off */
	note("GNU");						/* a host executable's notes */
	ck_assert(!vmlinux_is(img, sizeof(img)));
	note("Linux");
	img[EI_CLASS] = ELFCLASS32;
	ck_assert(!linux_is_kernel(img, sizeof(img)));
}
END_TEST

START_TEST(test_vmlinux_load)
{
	static const uint8_t initrd[8192] = { 9, 8, 7 };
	struct linux_params p = {
		.cmdline = "console=ttyS0", .initrd = initrd, .initrd_size = sizeof(initrd),
		.nr_cpus = 1,
	};
	struct linux_boot b;
	const uint8_t *bp, *bss;
	unsigned int i;

	ck_assert_int_eq(load(&p, &b), 0);
	ck_assert_uint_eq(b.entry, TEXT_PADDR);
	ck_assert_int_eq(memcmp(ram + TEXT_PADDR, img + TEXT_OFF, TEXT_FILESZ), 0);
	ck_assert_int_eq(memcmp(ram + DATA_PADDR, img + DATA_OFF, DATA_SIZE), 0);
	bss = ram + TEXT_PADDR + TEXT_FILESZ;
	for (i = 0; i < TEXT_MEMSZ - TEXT_FILESZ; i++)
		ck_assert_uint_eq(bss[i], 0);
	ck_assert_uint_eq(ram[TEXT_PADDR + TEXT_MEMSZ], 0xff);	/* nothing past it */
	bp = ram + b.boot_params;
	expect_zero_page(ram, RAM_SIZE, bp, &p, DATA_PADDR + DATA_SIZE);
	ck_assert_int_eq(memcmp(bp + 0x202, "HdrS", 4), 0);
	ck_assert_uint_eq(le16(bp + 0x206), 0x020f);
	ck_assert_uint_eq(le16(bp + 0x236) & 1, 1);		/* XLF_KERNEL_64 */
	ck_assert_uint_eq(le32(bp + 0x238), 2047);		/* cmdline_size */
	ck_assert_uint_eq(le64(bp + 0x258), TEXT_PADDR);	/* pref_address */
	ck_assert_uint_eq(le32(bp + 0x260), DATA_PADDR + DATA_SIZE - TEXT_PADDR);
	ck_assert_uint_ne(le64(bp + 0x070), 0);		/* acpi_rsdp_addr */
}
END_TEST

START_TEST(test_vmlinux_errors)
{
	static uint8_t big_initrd[RAM_SIZE - DATA_PADDR];
	struct linux_params p = { .nr_cpus = 1 };
	struct linux_boot b;
	char cmdline[2100];

	memset(cmdline, 'x', sizeof(cmdline) - 1);
	cmdline[sizeof(cmdline) - 1] = 0;
	p.cmdline = cmdline;
	ck_assert_int_eq(load(&p, &b), -E2BIG);
	ck_assert_str_eq(err, "command line longer than the kernel takes");
	p.cmdline = NULL;

	p.initrd = big_initrd;
	p.initrd_size = sizeof(big_initrd);
	ck_assert_int_eq(load(&p, &b), -ENOSPC);
	ck_assert_str_eq(err, "the initrd does not fit below the kernel's limit");
	p.initrd_size = 0;

	ph(1)->p_paddr = TEXT_PADDR + 0x1000;
	ck_assert_int_eq(load(&p, &b), -EINVAL);
	ck_assert_str_eq(err, "vmlinux segments overlap at 0x1001000");

	ph(1)->p_paddr = RAM_SIZE;
	ck_assert_int_eq(load(&p, &b), -ENOSPC);
	ck_assert_str_eq(err, "the kernel (0x2000000-0x2001000) does not fit in guest RAM");

	ph(1)->p_paddr = 0x80000;
	ck_assert_int_eq(load(&p, &b), -EINVAL);
	ck_assert_str_eq(err, "vmlinux segment 1 at 0x80000 lies below 1 MiB");

	ph(1)->p_paddr = DATA_PADDR;
	ph(1)->p_filesz = DATA_SIZE + 1;
	ck_assert_int_eq(load(&p, &b), -EINVAL);
	ck_assert_str_eq(err, "vmlinux segment 1 is malformed");

	ph(1)->p_filesz = DATA_SIZE;
	((Elf64_Ehdr *)img)->e_entry = 0x1100000;
	ck_assert_int_eq(load(&p, &b), -EINVAL);
	ck_assert_str_eq(err, "vmlinux entry 0x1100000 is in none of its loadable segments");
}
END_TEST

static Suite *vmlinux_boot_suite(void)
{
	Suite *s = suite_create("vmlinux_boot");
	TCase *tc = tcase_create("load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_vmlinux_detection);
	tcase_add_test(tc, test_vmlinux_load);
	tcase_add_test(tc, test_vmlinux_errors);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(vmlinux_boot_suite)
