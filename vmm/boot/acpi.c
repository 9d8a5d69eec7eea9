/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ACPI tables of a Linux boot (ACPI 6.5 ch. 5.2; layouts from
 * tables 5.3 RSDP, 5.8 XSDT, 5.9 FADT, 5.19 MADT and its entries). Legacy
 * fixed hardware (not HW-reduced), so the kernel keeps the PIT and the PIC
 * it calibrates and boots with; SMI_CMD 0 says ACPI mode is already on.
 */
#include <string.h>

#include "boot/acpi.h"
#include "boot/le.h"

#define ACPI_HDR_LEN		36
#define ACPI_OEM_ID		"PMUVM "
#define ACPI_OEM_TABLE_ID	"PMUVMVM "

/* Where each table goes inside ACPI_TABLES_GPA .. ACPI_TABLES_END. */
#define RSDP_OFF	0x0000
#define XSDT_OFF	0x0040
#define FADT_OFF	0x0100
#define DSDT_OFF	0x0240
#define MADT_OFF	0x0400	/* the DSDT may hold ACPI_VIRTIO_MMIO_MAX devices */

#define RSDP_LEN	36
#define FADT_LEN	276	/* revision 6 */
#define MADT_LAPIC_LEN	8
#define MADT_X2APIC_LEN	16
#define MADT_IOAPIC_LEN	12
#define MADT_ISO_LEN	10
#define MADT_NMI_LEN	6

/* FADT fields (table 5.9). */
#define FADT_DSDT		40
#define FADT_SCI_INT		46
#define FADT_PM1A_EVT_BLK	56
#define FADT_PM1A_CNT_BLK	64
#define FADT_PM_TMR_BLK		76
#define FADT_PM1_EVT_LEN	88
#define FADT_PM1_CNT_LEN	89
#define FADT_PM_TMR_LEN		91
#define FADT_IAPC_BOOT_ARCH	109
#define FADT_FLAGS		112
#define FADT_RESET_REG		116
#define FADT_RESET_VALUE	128
#define FADT_MINOR_VERSION	131
#define FADT_X_DSDT		140

#define FADT_WBINVD		(1u << 0)
#define FADT_PWR_BUTTON		(1u << 4)	/* no fixed power button */
#define FADT_SLP_BUTTON		(1u << 5)	/* no fixed sleep button */
#define FADT_TMR_VAL_EXT	(1u << 8)	/* 32-bit PM timer */
#define FADT_RESET_REG_SUP	(1u << 10)
#define IAPC_LEGACY_DEVICES	(1u << 0)	/* ISA devices: UART, PIT, RTC */
#define IAPC_VGA_NOT_PRESENT	(1u << 2)

#define GAS_SYSTEM_IO		1

#define MADT_PCAT_COMPAT	1
#define MADT_LAPIC		0
#define MADT_IOAPIC		1
#define MADT_ISO		2
#define MADT_LAPIC_NMI		4
#define MADT_X2APIC		9
#define MADT_ENABLED		1
#define MPS_LEVEL_HIGH		0x000d	/* polarity active high (1), trigger level (3) */

#define APIC_DEFAULT_BASE	0xfee00000u
#define IOAPIC_DEFAULT_BASE	0xfec00000u

/* Name (\_S5, Package () { 5, 5, 0, 0 }) in AML (ch. 20.2.5.1, 20.2.5.4). */
static const uint8_t dsdt_s5[] = {
	0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04,
	0x0a, ACPI_SLP_TYP_S5, 0x0a, ACPI_SLP_TYP_S5, 0x00, 0x00,
};

/* AML opcodes and resource descriptors (ch. 20.2, 6.4). */
#define AML_NAME_OP		0x08
#define AML_BYTE_PREFIX		0x0a
#define AML_STRING_PREFIX	0x0d
#define AML_SCOPE_OP		0x10
#define AML_BUFFER_OP		0x11
#define AML_EXT_OP_PREFIX	0x5b
#define AML_DEVICE_OP		0x82	/* after AML_EXT_OP_PREFIX */
#define AML_ROOT_CHAR		'\\'
#define RES_MEMORY32_FIXED	0x86	/* 6.4.3.4, 12 bytes */
#define RES_EXT_IRQ		0x89	/* 6.4.3.6, 9 bytes for one interrupt */
#define RES_END_TAG		0x79
#define RES_EXT_IRQ_CONSUMER	(1u << 0)
#define RES_EXT_IRQ_EDGE	(1u << 1)

/* A PkgLength (20.2.4) of `len` bytes after it, in one or two bytes; returns its size. */
static size_t aml_pkglen(uint8_t *p, size_t len)
{
	if (len + 1 <= 63) {
		p[0] = (uint8_t)(len + 1);
		return 1;
	}
	len += 2;
	p[0] = (uint8_t)(0x40 | (len & 0xf));
	p[1] = (uint8_t)(len >> 4);
	return 2;
}

/*
 * Device (VRnn) { Name (_HID, "LNRO0005"); Name (_UID, n); Name (_CRS,
 * ResourceTemplate () { Memory32Fixed (ReadWrite, base, size); Interrupt
 * (ResourceConsumer, Edge, ActiveHigh, Exclusive) { gsi } }) }: the
 * virtio-mmio device Linux's virtio_mmio driver binds by that _HID, as on
 * QEMU's microvm machine. Returns its length.
 */
static size_t aml_virtio_mmio(uint8_t *out, unsigned int n)
{
	uint8_t body[64], *b = body, *o = out;
	uint8_t crs[23] = { 0 };
	size_t len;

	crs[0] = RES_MEMORY32_FIXED;
	put16(crs + 1, 9);
	crs[3] = 1;					/* read-write */
	put32(crs + 4, (uint32_t)(ACPI_VIRTIO_MMIO_BASE + n * ACPI_VIRTIO_MMIO_SIZE));
	put32(crs + 8, ACPI_VIRTIO_MMIO_SIZE);
	crs[12] = RES_EXT_IRQ;
	put16(crs + 13, 6);
	crs[15] = RES_EXT_IRQ_CONSUMER | RES_EXT_IRQ_EDGE;	/* active high, exclusive */
	crs[16] = 1;					/* one interrupt */
	put32(crs + 17, ACPI_VIRTIO_MMIO_GSI + n);
	crs[21] = RES_END_TAG;				/* checksum 0: none */

	memcpy(b, (const uint8_t[4]){ 'V', 'R', '0', (uint8_t)('0' + n) }, 4);
	b += 4;
	*b++ = AML_NAME_OP;
	memcpy(b, "_HID", 4);
	b += 4;
	*b++ = AML_STRING_PREFIX;
	memcpy(b, "LNRO0005", 9);
	b += 9;
	*b++ = AML_NAME_OP;
	memcpy(b, "_UID", 4);
	b += 4;
	*b++ = AML_BYTE_PREFIX;
	*b++ = (uint8_t)n;
	*b++ = AML_NAME_OP;
	memcpy(b, "_CRS", 4);
	b += 4;
	*b++ = AML_BUFFER_OP;
	b += aml_pkglen(b, 2 + sizeof(crs));
	*b++ = AML_BYTE_PREFIX;
	*b++ = sizeof(crs);
	memcpy(b, crs, sizeof(crs));
	b += sizeof(crs);

	len = (size_t)(b - body);
	*o++ = AML_EXT_OP_PREFIX;
	*o++ = AML_DEVICE_OP;
	o += aml_pkglen(o, len);
	memcpy(o, body, len);
	return (size_t)(o + len - out);
}

/* Scope (\_SB) { the virtio-mmio devices }; returns its length, 0 without devices. */
static size_t aml_sb_virtio(uint8_t *out, unsigned int nr)
{
	uint8_t devs[ACPI_VIRTIO_MMIO_MAX * 64];
	size_t len = 0, hdr;
	unsigned int i;

	if (!nr)
		return 0;
	for (i = 0; i < nr && i < ACPI_VIRTIO_MMIO_MAX; i++)
		len += aml_virtio_mmio(devs + len, i);
	out[0] = AML_SCOPE_OP;
	hdr = 1 + aml_pkglen(out + 1, 5 + len);
	memcpy(out + hdr, (const uint8_t[5]){ AML_ROOT_CHAR, '_', 'S', 'B', '_' }, 5);
	memcpy(out + hdr + 5, devs, len);
	return hdr + 5 + len;
}

static uint8_t acpi_checksum(const uint8_t *p, size_t len)
{
	uint8_t sum = 0;

	while (len--)
		sum = (uint8_t)(sum + *p++);
	return (uint8_t)-sum;
}

static void acpi_header(uint8_t *t, const char sig[4], uint32_t len, uint8_t rev)
{
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = rev;
	memcpy(t + 10, ACPI_OEM_ID, 6);
	memcpy(t + 16, ACPI_OEM_TABLE_ID, 8);
	put32(t + 24, 1);			/* OEM revision */
	memcpy(t + 28, "PMVM", 4);		/* creator ID */
	put32(t + 32, 1);			/* creator revision */
	t[9] = acpi_checksum(t, len);
}

/* A generic address structure (table 5.1) for an I/O port of `bytes`. */
static void acpi_gas_io(uint8_t *g, uint16_t port, uint8_t bytes)
{
	g[0] = GAS_SYSTEM_IO;
	g[1] = (uint8_t)(8 * bytes);		/* register bit width */
	g[2] = 0;				/* bit offset */
	g[3] = bytes;				/* access size: 1 byte .. 4 dword */
	put64(g + 4, port);
}

static void acpi_fadt(uint8_t *t, uint64_t dsdt)
{
	memset(t, 0, FADT_LEN);
	put32(t + FADT_DSDT, (uint32_t)dsdt);
	put16(t + FADT_SCI_INT, ACPI_SCI_IRQ);
	put32(t + FADT_PM1A_EVT_BLK, ACPI_PM1_EVT_BLK);
	put32(t + FADT_PM1A_CNT_BLK, ACPI_PM1_CNT_BLK);
	put32(t + FADT_PM_TMR_BLK, ACPI_PM_TMR_BLK);
	t[FADT_PM1_EVT_LEN] = 4;
	t[FADT_PM1_CNT_LEN] = 2;
	t[FADT_PM_TMR_LEN] = 4;
	put16(t + FADT_IAPC_BOOT_ARCH, IAPC_LEGACY_DEVICES | IAPC_VGA_NOT_PRESENT);
	put32(t + FADT_FLAGS, FADT_WBINVD | FADT_PWR_BUTTON | FADT_SLP_BUTTON |
			      FADT_TMR_VAL_EXT | FADT_RESET_REG_SUP);
	acpi_gas_io(t + FADT_RESET_REG, ACPI_RESET_PORT, 1);
	t[FADT_RESET_VALUE] = ACPI_RESET_VALUE;
	t[FADT_MINOR_VERSION] = 5;
	put64(t + FADT_X_DSDT, dsdt);
	acpi_header(t, "FACP", FADT_LEN, 6);
}

static uint32_t madt_len(unsigned int nr_cpus)
{
	unsigned int xapic = nr_cpus < 255 ? nr_cpus : 255;

	return 44 + xapic * MADT_LAPIC_LEN + (nr_cpus - xapic) * MADT_X2APIC_LEN +
	       MADT_IOAPIC_LEN + 2 * MADT_ISO_LEN + MADT_NMI_LEN;
}

/*
 * A local APIC entry per vCPU (x2APIC entries from APIC ID 255 up, as
 * 5.2.12.12 requires), the IOAPIC at GSI 0, the PIT's IRQ 0 on GSI 2 and
 * the SCI level-triggered (the ISA overrides of 5.2.12.5), and LINT1 as
 * NMI on every processor.
 */
static void acpi_madt(uint8_t *t, unsigned int nr_cpus)
{
	uint8_t *e = t + 44;
	unsigned int i;

	memset(t, 0, madt_len(nr_cpus));
	put32(t + 36, APIC_DEFAULT_BASE);
	put32(t + 40, MADT_PCAT_COMPAT);
	for (i = 0; i < nr_cpus; i++) {
		if (i < 255) {
			e[0] = MADT_LAPIC;
			e[1] = MADT_LAPIC_LEN;
			e[2] = (uint8_t)i;		/* ACPI processor UID */
			e[3] = (uint8_t)i;		/* APIC ID */
			put32(e + 4, MADT_ENABLED);
		} else {
			e[0] = MADT_X2APIC;
			e[1] = MADT_X2APIC_LEN;
			put32(e + 4, i);		/* x2APIC ID */
			put32(e + 8, MADT_ENABLED);
			put32(e + 12, i);		/* ACPI processor UID */
		}
		e += e[1];
	}
	e[0] = MADT_IOAPIC;
	e[1] = MADT_IOAPIC_LEN;
	e[2] = 0;					/* KVM's IOAPIC ID */
	put32(e + 4, IOAPIC_DEFAULT_BASE);
	put32(e + 8, 0);				/* GSI base */
	e += MADT_IOAPIC_LEN;
	e[0] = MADT_ISO;
	e[1] = MADT_ISO_LEN;
	e[3] = 0;					/* IRQ 0 ... */
	put32(e + 4, 2);				/* ... is GSI 2 */
	e += MADT_ISO_LEN;
	e[0] = MADT_ISO;
	e[1] = MADT_ISO_LEN;
	e[3] = ACPI_SCI_IRQ;
	put32(e + 4, ACPI_SCI_IRQ);
	put16(e + 8, MPS_LEVEL_HIGH);
	e += MADT_ISO_LEN;
	e[0] = MADT_LAPIC_NMI;
	e[1] = MADT_NMI_LEN;
	e[2] = 0xff;					/* all processors */
	e[5] = 1;					/* LINT1 */
	acpi_header(t, "APIC", madt_len(nr_cpus), 5);
}

uint64_t acpi_build(const struct guest_mem *mem, unsigned int nr_cpus,
		    unsigned int nr_virtio_mmio)
{
	const uint64_t base = ACPI_TABLES_GPA;
	uint32_t mlen = madt_len(nr_cpus);
	uint8_t *rsdp, *xsdt, *dsdt;
	size_t dlen;

	if (base + MADT_OFF + mlen > ACPI_TABLES_END)
		return 0;
	rsdp = guest_mem_ptr(mem, base, MADT_OFF + mlen);
	if (!rsdp)
		return 0;
	memset(rsdp, 0, MADT_OFF + mlen);

	dsdt = rsdp + DSDT_OFF;
	memcpy(dsdt + ACPI_HDR_LEN, dsdt_s5, sizeof(dsdt_s5));
	dlen = ACPI_HDR_LEN + sizeof(dsdt_s5);
	dlen += aml_sb_virtio(dsdt + dlen, nr_virtio_mmio);
	acpi_header(dsdt, "DSDT", (uint32_t)dlen, 2);
	acpi_fadt(rsdp + FADT_OFF, base + DSDT_OFF);
	acpi_madt(rsdp + MADT_OFF, nr_cpus);

	xsdt = rsdp + XSDT_OFF;
	put64(xsdt + ACPI_HDR_LEN, base + FADT_OFF);
	put64(xsdt + ACPI_HDR_LEN + 8, base + MADT_OFF);
	acpi_header(xsdt, "XSDT", ACPI_HDR_LEN + 16, 1);

	memcpy(rsdp, "RSD PTR ", 8);
	memcpy(rsdp + 9, ACPI_OEM_ID, 6);
	rsdp[15] = 2;					/* ACPI 2.0+ */
	put32(rsdp + 20, RSDP_LEN);
	put64(rsdp + 24, base + XSDT_OFF);
	rsdp[8] = acpi_checksum(rsdp, 20);
	rsdp[32] = acpi_checksum(rsdp, RSDP_LEN);
	return base + RSDP_OFF;
}
