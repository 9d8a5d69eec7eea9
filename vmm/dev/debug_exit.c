/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * QEMU's isa-debug-exit at 0xf4: a write of V ends the VM with process exit
 * status (V << 1) | 1, so a test guest reports its result without a console.
 */
#include "dev/devices.h"
#include "machine/vm.h"

#define DEBUG_EXIT_PORT	0xf4
#define DEBUG_EXIT_LEN	4	/* QEMU's iosize: 1, 2 or 4 */

static void debug_exit_io(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
			  uint8_t *data, unsigned int size)
{
	struct vm *vm = vcpu->vm;
	uint32_t v;

	(void)opaque;
	if (!is_write) {
		pio_put(data, size, 0xffffffff);
		return;
	}
	v = pio_get(data, size) << (8 * offset);
	vm_stop_debug_exit(vm, v);
}

int debug_exit_init(struct vm *vm)
{
	struct pio_device dev = {
		.name = "isa-debug-exit", .base = DEBUG_EXIT_PORT, .len = DEBUG_EXIT_LEN,
		.io = debug_exit_io,
	};

	return pio_register(vm, &dev);
}
