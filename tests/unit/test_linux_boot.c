/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Linux boot protocol loader and its ACPI tables, in-process against a
 * fake guest RAM and a synthetic bzImage (Documentation/arch/x86/boot.rst;
 * ACPI 6.5 ch. 5.2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/acpi.h"
#include "boot/le.h"
#include "boot/linux.h"
#include "linux_zero_page.h"
#include "suite.h"

#define RAM_SIZE	(16u << 20)
#define SETUP_SECTS	2
#define PAYLOAD_OFF	((SETUP_SECTS + 1) * 512)
#define PAYLOAD_LEN	4096

static uint8_t *ram;
static struct guest_mem mem;
static uint8_t img[PAYLOAD_OFF + PAYLOAD_LEN];
static char err[256];

static void setup(void)
{
	unsigned int i;

	ram = calloc(1, RAM_SIZE);
	ck_assert_ptr_nonnull(ram);
	guest_mem_layout(&mem, ram, RAM_SIZE);
	memset(img, 0, sizeof(img));
	img[0x1f1] = SETUP_SECTS;
	put16(img + 0x1fe, 0xaa55);
	memcpy(img + 0x202, "HdrS", 4);
	put16(img + 0x206, 0x020f);		/* protocol 2.15 */
	put32(img + 0x22c, 0x7fffffff);		/* initrd_addr_max */
	put16(img + 0x236, 0x1);		/* XLF_KERNEL_64 */
	put32(img + 0x238, 2047);		/* cmdline_size */
	for (i = 0; i < PAYLOAD_LEN; i++)
		img[PAYLOAD_OFF + i] = (uint8_t)(i * 7);
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

static bool checksum_ok(const uint8_t *p, size_t len)
{
	uint8_t sum = 0;

	while (len--)
		sum = (uint8_t)(sum + *p++);
	return sum == 0;
}

/* The table an XSDT entry points at, its signature and checksum checked. */
static const uint8_t *acpi_table(const uint8_t *xsdt, unsigned int i, const char *sig)
{
	const uint8_t *t = ram + le64(xsdt + 36 + 8 * i);

	ck_assert_int_eq(memcmp(t, sig, 4), 0);
	ck_assert_msg(checksum_ok(t, le32(t + 4)), "%s checksum", sig);
	return t;
}

START_TEST(test_bzimage_detection)
{
	ck_assert(linux_is_bzimage(img, sizeof(img)));
	ck_assert(!linux_is_bzimage(img, 0x200));
	img[0x202] = 'X';
	ck_assert(!linux_is_bzimage(img, sizeof(img)));
}
END_TEST

START_TEST(test_zero_page)
{
	static const uint8_t initrd[8192] = { 1, 2, 3 };
	struct linux_params p = {
		.cmdline = "console=ttyS0 quiet", .initrd = initrd, .initrd_size = sizeof(initrd),
		.nr_cpus = 1,
	};
	struct linux_boot b;
	const uint8_t *bp;
	uint64_t pdpt, pd;

	ck_assert_int_eq(load(&p, &b), 0);
	ck_assert_uint_eq(b.entry, 0x100000 + 0x200);
	bp = ram + b.boot_params;
	ck_assert_int_eq(memcmp(ram + 0x100000, img + PAYLOAD_OFF, PAYLOAD_LEN), 0);
	ck_assert_int_eq(memcmp(bp + 0x202, img + 0x202, 0x210 - 0x202), 0);	/* header copied */
	expect_zero_page(ram, RAM_SIZE, bp, &p, 0x100000 + PAYLOAD_LEN);
	ck_assert_uint_eq(le64(bp + 0x070), ACPI_TABLES_GPA);	/* acpi_rsdp_addr */
	/* e820: low RAM, the EBDA and BIOS area reserved, RAM from 1 MiB. */
	ck_assert_uint_eq(bp[0x1e8], 3);
	ck_assert_uint_eq(le64(bp + 0x2d0), 0);
	ck_assert_uint_eq(le64(bp + 0x2d8), 0x9fc00);
	ck_assert_uint_eq(le32(bp + 0x2e0), 1);
	ck_assert_uint_eq(le64(bp + 0x2e4), 0x9fc00);
	ck_assert_uint_eq(le32(bp + 0x2f4), 2);
	ck_assert_uint_eq(le64(bp + 0x2f8), 0x100000);
	ck_assert_uint_eq(le64(bp + 0x300), RAM_SIZE - 0x100000);
	ck_assert_uint_eq(le32(bp + 0x308), 1);
	/* Long mode entry: an identity map through 4 GiB and __BOOT_CS/__BOOT_DS. */
	pdpt = le64(ram + b.cr3) & ~0xfffULL;
	pd = le64(ram + pdpt + 8 * 3) & ~0xfffULL;
	ck_assert_uint_eq(le64(ram + pd + 8 * 511), 0xffe00000ULL | 0x83);	/* 2 MiB, RW, P */
	ck_assert_uint_eq(b.code_sel, 0x10);
	ck_assert_uint_eq(b.data_sel, 0x18);
	ck_assert_uint_eq(le64(ram + b.gdt + 0x10), 0x00af9a000000ffffULL);
}
END_TEST

/* The image's own ramdisk fields do not reach the kernel without --initrd. */
START_TEST(test_no_initrd)
{
	struct linux_params p = { .nr_cpus = 1 };
	struct linux_boot b;

	put32(img + 0x218, 0x200000);
	put32(img + 0x21c, 0x1000);
	ck_assert_int_eq(load(&p, &b), 0);
	ck_assert_uint_eq(le32(ram + b.boot_params + 0x218), 0);
	ck_assert_uint_eq(le32(ram + b.boot_params + 0x21c), 0);
}
END_TEST

START_TEST(test_load_errors)
{
	static uint8_t big_initrd[RAM_SIZE];
	struct linux_params p = { .nr_cpus = 1 };
	char cmdline[4096];
	struct linux_boot b;

	memset(cmdline, 'x', sizeof(cmdline) - 1);
	cmdline[sizeof(cmdline) - 1] = 0;
	p.cmdline = cmdline;
	ck_assert_int_eq(load(&p, &b), -E2BIG);
	ck_assert_str_eq(err, "command line longer than the kernel takes");

	p.cmdline = NULL;
	p.initrd = big_initrd;
	p.initrd_size = sizeof(big_initrd);
	ck_assert_int_eq(load(&p, &b), -ENOSPC);

	p.initrd_size = 0;
	put16(img + 0x236, 0);
	ck_assert_int_eq(load(&p, &b), -EINVAL);
	ck_assert_str_eq(err, "the kernel has no 64-bit entry (boot protocol 2.12 XLF_KERNEL_64)");
}
END_TEST

START_TEST(test_acpi_tables)
{
	struct linux_params p = { .nr_cpus = 2 };
	const uint8_t *rsdp = ram + ACPI_TABLES_GPA, *xsdt, *fadt, *dsdt, *madt;
	static const uint8_t s5[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04,
				      0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00 };
	struct linux_boot b;

	ck_assert_int_eq(load(&p, &b), 0);
	ck_assert_int_eq(memcmp(rsdp, "RSD PTR ", 8), 0);
	ck_assert(checksum_ok(rsdp, 20));
	ck_assert(checksum_ok(rsdp, 36));
	ck_assert_uint_eq(rsdp[15], 2);
	xsdt = ram + le64(rsdp + 24);
	ck_assert_int_eq(memcmp(xsdt, "XSDT", 4), 0);
	ck_assert(checksum_ok(xsdt, le32(xsdt + 4)));
	ck_assert_uint_eq(le32(xsdt + 4), 36 + 16);

	fadt = acpi_table(xsdt, 0, "FACP");
	ck_assert_uint_eq(le32(fadt + 4), 276);
	ck_assert_uint_eq(le16(fadt + 46), 9);				/* SCI_INT */
	ck_assert_uint_eq(le32(fadt + 48), 0);				/* SMI_CMD: ACPI mode on */
	ck_assert_uint_eq(le32(fadt + 56), ACPI_PM1_EVT_BLK);
	ck_assert_uint_eq(le32(fadt + 64), ACPI_PM1_CNT_BLK);
	ck_assert_uint_eq(le32(fadt + 76), ACPI_PM_TMR_BLK);
	ck_assert_uint_eq(le32(fadt + 112) & (1u << 20), 0);		/* not HW-reduced */
	ck_assert_uint_ne(le32(fadt + 112) & (1u << 10), 0);		/* RESET_REG_SUP */
	ck_assert_uint_eq(fadt[116], 1);				/* reset reg: system I/O */
	ck_assert_uint_eq(le64(fadt + 120), 0x64);
	ck_assert_uint_eq(fadt[128], 0xfe);
	dsdt = ram + le64(fadt + 140);
	ck_assert_int_eq(memcmp(dsdt, "DSDT", 4), 0);
	ck_assert(checksum_ok(dsdt, le32(dsdt + 4)));
	ck_assert_uint_eq(le32(fadt + 40), dsdt - ram);
	ck_assert_int_eq(memcmp(dsdt + 36, s5, sizeof(s5)), 0);

	madt = acpi_table(xsdt, 1, "APIC");
	ck_assert_uint_eq(le32(madt + 36), 0xfee00000u);
	/* Two local APICs (UID, APIC ID, enabled), the IOAPIC, two overrides, the NMI. */
	ck_assert_uint_eq(le32(madt + 4), 44 + 2 * 8 + 12 + 2 * 10 + 6);
	ck_assert_uint_eq(madt[44], 0);
	ck_assert_uint_eq(madt[47], 0);
	ck_assert_uint_eq(madt[52], 0);
	ck_assert_uint_eq(madt[55], 1);
	ck_assert_uint_eq(le32(madt + 56), 1);
	ck_assert_uint_eq(madt[60], 1);
	ck_assert_uint_eq(le32(madt + 64), 0xfec00000u);
	ck_assert_uint_eq(madt[72], 2);					/* IRQ 0 -> GSI 2 */
	ck_assert_uint_eq(madt[75], 0);
	ck_assert_uint_eq(le32(madt + 76), 2);
	ck_assert_uint_eq(madt[92], 4);				/* LINT1 NMI */
	ck_assert_uint_eq(madt[97], 1);
}
END_TEST

/* From APIC ID 255 on, x2APIC entries (ACPI 6.5 5.2.12.12). */
START_TEST(test_acpi_x2apic_ids)
{
	const uint8_t *madt, *e;
	unsigned int i, xapic = 0, x2apic = 0;

	ck_assert_uint_eq(acpi_build(&mem, 300, 0), ACPI_TABLES_GPA);
	madt = ram + le64(ram + le64(ram + ACPI_TABLES_GPA + 24) + 36 + 8);
	ck_assert(checksum_ok(madt, le32(madt + 4)));
	for (e = madt + 44; e < madt + le32(madt + 4); e += e[1]) {
		if (e[0] == 0) {
			ck_assert_uint_eq(e[3], xapic);
			xapic++;
		} else if (e[0] == 9) {
			i = le32(e + 4);
			ck_assert_uint_eq(i, 255 + x2apic);
			ck_assert_uint_eq(le32(e + 12), i);
			x2apic++;
		}
	}
	ck_assert_uint_eq(xapic, 255);
	ck_assert_uint_eq(x2apic, 45);
	ck_assert_uint_eq(acpi_build(&mem, 100000, 0), 0);		/* does not fit */
}
END_TEST

/*
 * The DSDT's virtio-mmio devices (boot/acpi.h): Device (VR00) with _HID
 * "LNRO0005", _UID 0 and a _CRS of its register window and edge-triggered
 * GSI 16, inside Scope (\_SB), encoded by hand from ACPI 6.5 ch. 20 and 6.4.
 */
START_TEST(test_acpi_virtio_mmio)
{
	static const uint8_t scope[] = {
		0x10, 0x44, 0x04, '\\', '_', 'S', 'B', '_',
		0x5b, 0x82, 0x3b, 'V', 'R', '0', '0',
		0x08, '_', 'H', 'I', 'D', 0x0d, 'L', 'N', 'R', 'O', '0', '0', '0', '5', 0x00,
		0x08, '_', 'U', 'I', 'D', 0x0a, 0x00,
		0x08, '_', 'C', 'R', 'S', 0x11, 0x1a, 0x0a, 0x17,
		0x86, 0x09, 0x00, 0x01, 0x00, 0x00, 0x00, 0xd0, 0x00, 0x02, 0x00, 0x00,
		0x89, 0x06, 0x00, 0x03, 0x01, 0x10, 0x00, 0x00, 0x00,
		0x79, 0x00,
	};
	const uint8_t *fadt, *dsdt;
	uint32_t len, len0;

	ck_assert_uint_eq(acpi_build(&mem, 1, 0), ACPI_TABLES_GPA);
	fadt = ram + le64(ram + le64(ram + ACPI_TABLES_GPA + 24) + 36);
	len0 = le32(ram + le64(fadt + 140) + 4);
	ck_assert_uint_eq(acpi_build(&mem, 1, 2), ACPI_TABLES_GPA);
	fadt = ram + le64(ram + le64(ram + ACPI_TABLES_GPA + 24) + 36);
	dsdt = ram + le64(fadt + 140);
	len = le32(dsdt + 4);
	ck_assert(checksum_ok(dsdt, len));
	/* Two devices: the scope's header, then 61 bytes each. */
	ck_assert_uint_eq(len, len0 + 8 + 2 * 61);
	ck_assert_uint_eq(dsdt[len0], 0x10);			/* ScopeOp */
	ck_assert_uint_eq(dsdt[len0 + 1], 0x40 | ((5 + 2 * 61 + 2) & 0xf));
	ck_assert_uint_eq(dsdt[len0 + 2], (5 + 2 * 61 + 2) >> 4);
	ck_assert_mem_eq(dsdt + len0 + 3, scope + 3, 5);
	ck_assert_mem_eq(dsdt + len0 + 8, scope + 8, 61);
	/* The second: VR01, _UID 1, its window 0x200 on, GSI 17. */
	ck_assert_mem_eq(dsdt + len0 + 8 + 61 + 3, "VR01", 4);
	ck_assert_uint_eq(dsdt[len0 + 8 + 61 + 28], 1);
	ck_assert_uint_eq(le32(dsdt + len0 + 8 + 61 + 42), 0xd0000200u);
	ck_assert_uint_eq(le32(dsdt + len0 + 8 + 61 + 55), 17);
	/* The MADT still follows, whole. */
	ck_assert(checksum_ok(ram + le64(ram + le64(ram + ACPI_TABLES_GPA + 24) + 44),
			      le32(ram + le64(ram + le64(ram + ACPI_TABLES_GPA + 24) + 44) + 4)));
}
END_TEST

static Suite *linux_boot_suite(void)
{
	Suite *s = suite_create("linux_boot");
	TCase *tc = tcase_create("load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_bzimage_detection);
	tcase_add_test(tc, test_zero_page);
	tcase_add_test(tc, test_no_initrd);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_acpi_tables);
	tcase_add_test(tc, test_acpi_x2apic_ids);
	tcase_add_test(tc, test_acpi_virtio_mmio);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(linux_boot_suite)
