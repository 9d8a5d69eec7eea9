/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "boot/acpi.h"
#include "boot/le.h"
#include "boot/linux.h"
#include "boot/vmlinux.h"

/* Offsets in the zero page / bzImage (boot.rst, "The real-mode kernel header"). */
#define BP_ACPI_RSDP_ADDR	0x070
#define BP_E820_ENTRIES		0x1e8
#define BP_SETUP_SECTS		0x1f1
#define BP_VID_MODE		0x1fa
#define BP_BOOT_FLAG		0x1fe
#define BP_HEADER		0x202
#define BP_VERSION		0x206
#define BP_TYPE_OF_LOADER	0x210
#define BP_LOADFLAGS		0x211
#define BP_RAMDISK_IMAGE	0x218
#define BP_RAMDISK_SIZE		0x21c
#define BP_HEAP_END_PTR		0x224
#define BP_CMD_LINE_PTR		0x228
#define BP_INITRD_ADDR_MAX	0x22c
#define BP_XLOADFLAGS		0x236
#define BP_KERNEL_ALIGNMENT	0x230
#define BP_RELOCATABLE_KERNEL	0x234
#define BP_MIN_ALIGNMENT	0x235
#define BP_CMDLINE_SIZE		0x238
#define BP_PREF_ADDRESS		0x258
#define BP_INIT_SIZE		0x260
#define BP_SETUP_HEADER_END	0x268	/* through version 2.15's fields */
#define BP_E820_TABLE		0x2d0
#define BP_E820_MAX		128

#define LOADED_HIGH		0x01
#define CAN_USE_HEAP		0x80
#define XLF_KERNEL_64		0x01
#define VMLINUX_CMDLINE_SIZE	2048	/* x86 COMMAND_LINE_SIZE */
#define E820_RAM		1
#define E820_RESERVED		2

/* The guest-physical layout below 1 MiB (free in a Linux boot). */
#define LINUX_GDT		0x0500ULL
#define LINUX_BOOT_PARAMS	0x7000ULL
#define LINUX_PML4		0x9000ULL
#define LINUX_PDPT		0xa000ULL
#define LINUX_PD		0xb000ULL	/* 4 pages: 4 GiB of 2 MiB pages */
#define LINUX_CMDLINE		0x20000ULL
#define LINUX_CMDLINE_MAX	0x10000ULL
#define LINUX_KERNEL		0x100000ULL
#define LINUX_EBDA		0x9fc00ULL

static int fail(char *err, size_t len, int r, const char *why)
{
	snprintf(err, len, "%s", why);
	return r;
}

bool linux_is_bzimage(const uint8_t *img, size_t size)
{
	return size > BP_SETUP_HEADER_END && le16(img + BP_BOOT_FLAG) == 0xaa55 &&
	       !memcmp(img + BP_HEADER, "HdrS", 4);
}

bool linux_is_kernel(const uint8_t *img, size_t size)
{
	return linux_is_bzimage(img, size) || vmlinux_is(img, size);
}

static bool e820_add(uint8_t *bp, uint64_t addr, uint64_t size, uint32_t type)
{
	uint8_t n = bp[BP_E820_ENTRIES];
	uint8_t *e = bp + BP_E820_TABLE + 20 * n;

	if (!size || n >= BP_E820_MAX)
		return false;
	put64(e, addr);
	put64(e + 8, size);
	put32(e + 16, type);
	bp[BP_E820_ENTRIES] = n + 1;
	return true;
}

/* RAM as the guest_mem layout has it; the EBDA and legacy area reserved. */
static void e820_fill(uint8_t *bp, const struct guest_mem *mem)
{
	unsigned int i;

	for (i = 0; i < mem->nr; i++) {
		const struct mem_region *r = &mem->regions[i];

		if (r->gpa == 0) {
			e820_add(bp, 0, LINUX_EBDA, E820_RAM);
			e820_add(bp, LINUX_EBDA, LINUX_KERNEL - LINUX_EBDA, E820_RESERVED);
			e820_add(bp, LINUX_KERNEL, r->size - LINUX_KERNEL, E820_RAM);
		} else {
			e820_add(bp, r->gpa, r->size, E820_RAM);
		}
	}
}

/* PML4 -> PDPT -> 4 PDs of 2 MiB pages: the first 4 GiB, identity mapped. */
static int page_tables(const struct guest_mem *mem)
{
	uint64_t *pml4 = guest_mem_ptr(mem, LINUX_PML4, 4096);
	uint64_t *pdpt = guest_mem_ptr(mem, LINUX_PDPT, 4096);
	uint64_t *pd = guest_mem_ptr(mem, LINUX_PD, 4 * 4096);
	unsigned int i;

	if (!pml4 || !pdpt || !pd)
		return -ENOSPC;
	memset(pml4, 0, 4096);
	memset(pdpt, 0, 4096);
	pml4[0] = LINUX_PDPT | 0x3;			/* present, writable */
	for (i = 0; i < 4; i++)
		pdpt[i] = (LINUX_PD + 4096ULL * i) | 0x3;
	for (i = 0; i < 4 * 512; i++)
		pd[i] = ((uint64_t)i << 21) | 0x83;	/* present, writable, 2 MiB */
	return 0;
}

/* Null, null, __BOOT_CS (0x10) 64-bit code, __BOOT_DS (0x18) data. */
static int gdt(const struct guest_mem *mem, struct linux_boot *out)
{
	static const uint64_t entries[] = {
		0, 0, 0x00af9a000000ffffULL, 0x00cf92000000ffffULL,
	};
	void *p = guest_mem_ptr(mem, LINUX_GDT, sizeof(entries));

	if (!p)
		return -ENOSPC;
	memcpy(p, entries, sizeof(entries));
	out->gdt = LINUX_GDT;
	out->gdt_limit = sizeof(entries) - 1;
	out->code_sel = 0x10;
	out->data_sel = 0x18;
	return 0;
}

/* The setup header a bzImage carries, as a 2.15 bzImage would have it. */
static void vmlinux_header(uint8_t *bp, const struct vmlinux_span *k)
{
	put16(bp + BP_BOOT_FLAG, 0xaa55);
	memcpy(bp + BP_HEADER, "HdrS", 4);
	put16(bp + BP_VERSION, 0x20f);
	put32(bp + BP_INITRD_ADDR_MAX, 0x7fffffff);
	put32(bp + BP_KERNEL_ALIGNMENT, 0x200000);
	bp[BP_RELOCATABLE_KERNEL] = 1;
	bp[BP_MIN_ALIGNMENT] = 21;
	put16(bp + BP_XLOADFLAGS, XLF_KERNEL_64);
	put32(bp + BP_CMDLINE_SIZE, VMLINUX_CMDLINE_SIZE - 1);
	put64(bp + BP_PREF_ADDRESS, k->start);
	put32(bp + BP_INIT_SIZE, (uint32_t)(k->end - k->start));
}

/*
 * The kernel into guest RAM and its setup header into the zero page `bp`:
 * a bzImage's protected-mode part at 1 MiB, entered at its startup_64
 * (load address + 0x200), or a vmlinux's segments (boot/vmlinux.h).
 * `*end`: the first byte above the kernel, where the initrd may start.
 */
static int kernel_place(const struct guest_mem *mem, const uint8_t *img, size_t size,
			uint8_t *bp, uint64_t *entry, uint64_t *end, char *err, size_t errlen)
{
	struct vmlinux_span k;
	unsigned int setup_sects;
	uint64_t kernel_off, kernel_size;
	uint8_t *dst;
	int r;

	if (vmlinux_is(img, size)) {
		r = vmlinux_place(mem, img, size, &k, err, errlen);
		if (r)
			return r;
		vmlinux_header(bp, &k);
		*entry = k.entry;
		*end = k.end;
		return 0;
	}
	if (!linux_is_bzimage(img, size))
		return fail(err, errlen, -EINVAL,
			    "neither a bzImage (no boot protocol header) nor a vmlinux");
	if (le16(img + BP_VERSION) < 0x20c || !(le16(img + BP_XLOADFLAGS) & XLF_KERNEL_64))
		return fail(err, errlen, -EINVAL,
			    "the kernel has no 64-bit entry (boot protocol 2.12 XLF_KERNEL_64)");
	setup_sects = img[BP_SETUP_SECTS] ? img[BP_SETUP_SECTS] : 4;
	kernel_off = (uint64_t)(setup_sects + 1) * 512;
	if (kernel_off >= size)
		return fail(err, errlen, -EINVAL, "bzImage truncated before its kernel");
	kernel_size = size - kernel_off;
	if (LINUX_KERNEL + kernel_size > mem->regions[0].size)
		return fail(err, errlen, -ENOSPC, "the kernel does not fit in guest RAM");
	dst = guest_mem_ptr(mem, LINUX_KERNEL, kernel_size);
	if (!dst)
		return fail(err, errlen, -ENOSPC, "guest RAM too small for a Linux boot");
	memcpy(dst, img + kernel_off, kernel_size);
	memcpy(bp + BP_SETUP_SECTS, img + BP_SETUP_SECTS, BP_SETUP_HEADER_END - BP_SETUP_SECTS);
	*entry = LINUX_KERNEL + 0x200;
	*end = LINUX_KERNEL + kernel_size;
	return 0;
}

int linux_load(const struct guest_mem *mem, const uint8_t *img, size_t size,
	       const struct linux_params *p, struct linux_boot *out, char *err, size_t errlen)
{
	uint64_t kernel_end, low_end, initrd_max, initrd_at = 0, rsdp;
	uint32_t cmdline_max;
	size_t cmdlen = p->cmdline ? strlen(p->cmdline) : 0;
	uint8_t *bp;
	int r;

	bp = guest_mem_ptr(mem, LINUX_BOOT_PARAMS, 4096);
	if (!bp || !guest_mem_ptr(mem, LINUX_CMDLINE, cmdlen + 1))
		return fail(err, errlen, -ENOSPC, "guest RAM too small for a Linux boot");
	memset(bp, 0, 4096);
	r = kernel_place(mem, img, size, bp, &out->entry, &kernel_end, err, errlen);
	if (r)
		return r;
	low_end = mem->regions[0].size;
	cmdline_max = le32(bp + BP_CMDLINE_SIZE);
	if (!cmdline_max || cmdline_max > LINUX_CMDLINE_MAX - 1)
		cmdline_max = LINUX_CMDLINE_MAX - 1;
	if (cmdlen > cmdline_max)
		return fail(err, errlen, -E2BIG, "command line longer than the kernel takes");

	put16(bp + BP_VID_MODE, 0xffff);		/* normal */
	bp[BP_TYPE_OF_LOADER] = 0xff;			/* undefined loader */
	bp[BP_LOADFLAGS] |= LOADED_HIGH | CAN_USE_HEAP;
	put16(bp + BP_HEAP_END_PTR, 0xfe00);
	memcpy(guest_mem_ptr(mem, LINUX_CMDLINE, cmdlen + 1), p->cmdline ? p->cmdline : "",
	       cmdlen + 1);
	put32(bp + BP_CMD_LINE_PTR, (uint32_t)LINUX_CMDLINE);
	put32(bp + BP_RAMDISK_IMAGE, 0);		/* none unless given: not the image's */
	put32(bp + BP_RAMDISK_SIZE, 0);

	if (p->initrd_size) {
		initrd_max = le32(bp + BP_INITRD_ADDR_MAX);
		if (!initrd_max || initrd_max >= low_end)
			initrd_max = low_end - 1;
		if (kernel_end > initrd_max + 1 || p->initrd_size > initrd_max + 1 - kernel_end)
			return fail(err, errlen, -ENOSPC, "the initrd does not fit below the kernel's limit");
		initrd_at = (initrd_max + 1 - p->initrd_size) & ~0xfffULL;
		if (initrd_at < kernel_end)
			return fail(err, errlen, -ENOSPC, "the initrd does not fit beside the kernel");
		memcpy(guest_mem_ptr(mem, initrd_at, p->initrd_size), p->initrd, p->initrd_size);
		put32(bp + BP_RAMDISK_IMAGE, (uint32_t)initrd_at);
		put32(bp + BP_RAMDISK_SIZE, (uint32_t)p->initrd_size);
	}
	e820_fill(bp, mem);
	rsdp = acpi_build(mem, p->nr_cpus, p->nr_virtio_mmio);
	if (!rsdp)
		return fail(err, errlen, -E2BIG, "too many vCPUs for the ACPI tables");
	if (le16(bp + BP_VERSION) >= 0x20e)		/* acpi_rsdp_addr: protocol 2.14 */
		put64(bp + BP_ACPI_RSDP_ADDR, rsdp);
	if (page_tables(mem) || gdt(mem, out))
		return fail(err, errlen, -ENOSPC, "guest RAM too small for a Linux boot");
	out->boot_params = LINUX_BOOT_PARAMS;
	out->cr3 = LINUX_PML4;
	return 0;
}
