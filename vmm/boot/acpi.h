/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal ACPI tables for a Linux boot (ACPI 6.5, ch. 5.2): RSDP, XSDT,
 * FADT, a DSDT that names \_S5 and the virtio-mmio devices, and a MADT
 * with one local APIC per vCPU, the IOAPIC and the ISA overrides. They give the kernel SMP, the
 * poweroff and reset registers of vmm/dev/acpi_pm.c and vmm/dev/i8042.c,
 * and nothing to probe besides.
 */
#ifndef PMUVM_BOOT_ACPI_H
#define PMUVM_BOOT_ACPI_H

#include <stdint.h>

#include "mem/guest_mem.h"

/* The tables live in the BIOS area, where Linux also scans for the RSDP. */
#define ACPI_TABLES_GPA		0xe0000ULL
#define ACPI_TABLES_END		0x100000ULL

/* The fixed-hardware registers the FADT describes (vmm/dev/acpi_pm.c). */
#define ACPI_PM_BASE		0x600
#define ACPI_PM1_EVT_BLK	(ACPI_PM_BASE + 0x0)	/* PM1a_STS, PM1a_EN */
#define ACPI_PM1_CNT_BLK	(ACPI_PM_BASE + 0x4)
#define ACPI_PM_TMR_BLK		(ACPI_PM_BASE + 0x8)
#define ACPI_PM_LEN		0xc
#define ACPI_SCI_IRQ		9
#define ACPI_SLP_TYP_S5		5	/* the \_S5 package's value */

/* The FADT's reset register: the keyboard controller's pulse (vmm/dev/i8042.c). */
#define ACPI_RESET_PORT		0x64
#define ACPI_RESET_VALUE	0xfe

/*
 * The virtio-mmio devices' slots (dev/virtio_fs.c): device n's registers
 * at ACPI_VIRTIO_MMIO_BASE + n * ACPI_VIRTIO_MMIO_SIZE, in the hole below
 * 4 GiB, its interrupt edge-triggered on IOAPIC pin ACPI_VIRTIO_MMIO_GSI + n.
 */
#define ACPI_VIRTIO_MMIO_BASE	0xd0000000ULL
#define ACPI_VIRTIO_MMIO_SIZE	0x200
#define ACPI_VIRTIO_MMIO_GSI	16
#define ACPI_VIRTIO_MMIO_MAX	4

/*
 * Writes the tables for `nr_cpus` vCPUs (APIC IDs 0..nr_cpus-1) and
 * `nr_virtio_mmio` virtio-mmio devices (at most ACPI_VIRTIO_MMIO_MAX) at
 * ACPI_TABLES_GPA; returns the RSDP's address, or 0 if they do not fit.
 */
uint64_t acpi_build(const struct guest_mem *mem, unsigned int nr_cpus,
		    unsigned int nr_virtio_mmio);

#endif
