/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ACPI fixed hardware the FADT of vmm/boot/acpi.c describes, at
 * QEMU's PIIX4 PM base 0x600 (ACPI 6.5 ch. 4.8): the PM1a event block
 * (status, enable), the PM1a control register, whose SCI_EN reads 1
 * because the machine is always in ACPI mode and whose SLP_EN with the
 * \_S5 sleep type powers the machine off, and the 32-bit PM timer
 * counting at 3.579545 MHz from host time.
 */
#include <time.h>

#include "boot/acpi.h"
#include "boot/le.h"
#include "dev/devices.h"
#include "log.h"
#include "machine/vm.h"

#define PM1_STS		0x0
#define PM1_EN		0x2
#define PM1_CNT		0x4
#define PM_TMR		0x8

#define PM1_CNT_SCI_EN		(1u << 0)
#define PM1_CNT_SLP_TYP(v)	(((v) >> 10) & 7)
#define PM1_CNT_SLP_EN		(1u << 13)
#define PM_TMR_HZ		3579545ULL

struct acpi_pm {
	uint16_t en, cnt;	/* accessed atomically: any vCPU may write */
};

static struct acpi_pm acpi_pm_state;

static uint32_t acpi_pm_timer(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * PM_TMR_HZ +
			  (uint64_t)ts.tv_nsec * PM_TMR_HZ / 1000000000ULL);
}

static void acpi_pm_write_cnt(struct vcpu *vcpu, struct acpi_pm *pm, uint16_t v)
{
	__atomic_store_n(&pm->cnt, (uint16_t)(v & ~PM1_CNT_SLP_EN), __ATOMIC_RELAXED);
	if (!(v & PM1_CNT_SLP_EN))
		return;
	if (PM1_CNT_SLP_TYP(v) == ACPI_SLP_TYP_S5) {
		pr_info("vCPU %d: guest powered off (ACPI S5)", vcpu->id);
		vm_stop(vcpu->vm, VM_STOP_POWEROFF);
	} else {
		if (log_first_time(LOG_ONCE_ACPI_SLEEP, PM1_CNT_SLP_TYP(v)))
			pr_warn("guest asked for ACPI sleep type %u, which pmuvm does not offer",
				PM1_CNT_SLP_TYP(v));
	}
}

/* Registers are accessed at their own width; a wider access reads the neighbours. */
static void acpi_pm_io(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
		       uint8_t *data, unsigned int size)
{
	struct acpi_pm *pm = opaque;
	uint8_t regs[ACPI_PM_LEN] = { 0 };
	unsigned int i;

	if (is_write) {
		uint32_t v = pio_get(data, size);

		if (offset == PM1_EN && size >= 2)
			__atomic_store_n(&pm->en, (uint16_t)v, __ATOMIC_RELAXED);
		else if (offset == PM1_CNT && size >= 2)
			acpi_pm_write_cnt(vcpu, pm, (uint16_t)v);
		/* PM1_STS is write-one-to-clear and no event ever sets it. */
		return;
	}
	put16(regs + PM1_EN, __atomic_load_n(&pm->en, __ATOMIC_RELAXED));
	put16(regs + PM1_CNT, __atomic_load_n(&pm->cnt, __ATOMIC_RELAXED) | PM1_CNT_SCI_EN);
	put32(regs + PM_TMR, acpi_pm_timer());
	for (i = 0; i < size; i++)
		data[i] = offset + i < ACPI_PM_LEN ? regs[offset + i] : 0xff;
}

int acpi_pm_init(struct vm *vm)
{
	struct pio_device dev = {
		.name = "acpi-pm", .base = ACPI_PM_BASE, .len = ACPI_PM_LEN,
		.io = acpi_pm_io, .opaque = &acpi_pm_state,
	};

	acpi_pm_state = (struct acpi_pm){ 0 };
	return pio_register(vm, &dev);
}
