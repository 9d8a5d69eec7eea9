/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "machine/pio.h"
#include "machine/vm.h"

#define PIO_MAX_DEVICES	16

struct pio_bus {
	struct pio_device devs[PIO_MAX_DEVICES];
	unsigned int nr;
};

/* The board's devices, in creation order; torn down in reverse. */
int pio_bus_init(struct vm *vm)
{
	size_t i;
	int r;

	vm->pio = calloc(1, sizeof(*vm->pio));
	if (!vm->pio) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	for (i = 0; i < vm->board->nr_devices; i++) {
		r = vm->board->devices[i]->init(vm);
		if (r)
			return r;
	}
	return 0;
}

void pio_bus_exit(struct vm *vm)
{
	size_t i;

	if (!vm->pio)
		return;
	for (i = vm->board->nr_devices; i-- > 0;)
		if (vm->board->devices[i]->exit)
			vm->board->devices[i]->exit(vm);
	free(vm->pio);
	vm->pio = NULL;
}

int pio_register(struct vm *vm, const struct pio_device *dev)
{
	struct pio_bus *bus = vm->pio;

	if (bus->nr == PIO_MAX_DEVICES) {
		pr_err("too many port-I/O devices");
		return PMUVM_EXIT_HOST_ERROR;
	}
	bus->devs[bus->nr++] = *dev;
	return 0;
}

void pio_dispatch(struct vcpu *vcpu, uint16_t port, bool is_write, uint8_t *data,
		  unsigned int size)
{
	struct pio_bus *bus = vcpu->vm->pio;
	unsigned int i;

	for (i = 0; i < bus->nr; i++) {
		const struct pio_device *d = &bus->devs[i];

		if (port >= d->base && port - d->base < d->len) {
			d->io(vcpu, d->opaque, port - d->base, is_write, data, size);
			return;
		}
	}
	if (!is_write)
		memset(data, 0xff, size);
	if (log_verbosity && log_first_time(LOG_ONCE_PIO, ((uint64_t)is_write << 40) |
					    ((uint64_t)size << 32) | port))
		pr_info("unhandled port %s 0x%04x (%u bytes%s); further ones not logged",
			is_write ? "write" : "read", port, size,
			is_write ? "" : ", read as all ones");
}

void mmio_unhandled(struct vcpu *vcpu, uint64_t gpa, bool is_write, uint8_t *data,
		    unsigned int len)
{
	(void)vcpu;
	if (!is_write)
		memset(data, 0xff, len > 8 ? 8 : len);
	if (log_verbosity && log_first_time(LOG_ONCE_MMIO, (gpa << 1) | is_write))
		pr_info("unhandled MMIO %s 0x%llx (%u bytes%s); further ones not logged",
			is_write ? "write" : "read", (unsigned long long)gpa, len,
			is_write ? "" : ", read as all ones");
}
