/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdlib.h>

#include "exitcode.h"
#include "log.h"
#include "machine/mmio.h"
#include "machine/vm.h"

#define MMIO_MAX_DEVICES	8

struct mmio_bus {
	struct mmio_device devs[MMIO_MAX_DEVICES];
	unsigned int nr;
};

int mmio_register(struct vm *vm, const struct mmio_device *dev)
{
	if (!vm->mmio) {
		vm->mmio = calloc(1, sizeof(*vm->mmio));
		if (!vm->mmio) {
			pr_err("out of memory");
			return PMUVM_EXIT_HOST_ERROR;
		}
	}
	if (vm->mmio->nr == MMIO_MAX_DEVICES) {
		pr_err("too many MMIO devices");
		return PMUVM_EXIT_HOST_ERROR;
	}
	vm->mmio->devs[vm->mmio->nr++] = *dev;
	return 0;
}

void mmio_bus_exit(struct vm *vm)
{
	free(vm->mmio);
	vm->mmio = NULL;
}

void mmio_dispatch(struct vcpu *vcpu, uint64_t gpa, bool is_write, uint8_t *data,
		   unsigned int size)
{
	struct mmio_bus *bus = vcpu->vm->mmio;
	unsigned int i;

	for (i = 0; bus && i < bus->nr; i++) {
		const struct mmio_device *d = &bus->devs[i];

		if (gpa >= d->base && gpa - d->base < d->len && size <= d->len - (gpa - d->base)) {
			d->io(vcpu, d->opaque, gpa - d->base, is_write, data, size);
			return;
		}
	}
	mmio_unhandled(vcpu, gpa, is_write, data, size);
}
