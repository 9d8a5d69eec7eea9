/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PC's keyboard controller (8042), only as the reset line: writing
 * command 0xFE (pulse output port bit 0, the CPU's reset) to port 0x64 ends
 * the VM as a reset. This is Linux's reboot=k path and the reset register
 * the FADT names (vmm/boot/acpi.c). The status register reads 0 (input
 * buffer empty, nothing to read), so a guest waiting to send a command
 * never waits; there is no keyboard and the FADT says so, so Linux does not
 * probe for one.
 */
#include "dev/devices.h"
#include "log.h"
#include "machine/vm.h"

#define I8042_DATA_PORT		0x60
#define I8042_CMD_PORT		0x64
#define I8042_CMD_RESET		0xfe

static void i8042_io(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
		     uint8_t *data, unsigned int size)
{
	bool cmd_port = opaque != NULL;

	(void)offset;
	if (!is_write) {
		pio_put(data, size, 0);
		return;
	}
	if (cmd_port && (uint8_t)pio_get(data, size) == I8042_CMD_RESET) {
		pr_notice("vCPU %d: guest reset the machine (keyboard controller)", vcpu->id);
		vm_stop(vcpu->vm, VM_STOP_RESET);
	}
}

int i8042_init(struct vm *vm)
{
	static int cmd_port_tag;
	struct pio_device data = {
		.name = "i8042-data", .base = I8042_DATA_PORT, .len = 1, .io = i8042_io,
	};
	struct pio_device cmd = {
		.name = "i8042-cmd", .base = I8042_CMD_PORT, .len = 1, .io = i8042_io,
		.opaque = &cmd_port_tag,
	};
	int r = pio_register(vm, &data);

	return r ? r : pio_register(vm, &cmd);
}
