/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMIO bus: address ranges devices claim (vmm/dev/virtio_fs.c); an
 * access nobody claims goes to mmio_unhandled() (pio.h).
 */
#ifndef PMUVM_MMIO_H
#define PMUVM_MMIO_H

#include <stdbool.h>
#include <stdint.h>

struct vm;
struct vcpu;

struct mmio_device {
	const char *name;
	uint64_t base;
	uint64_t len;
	/* data holds `size` bytes little-endian; reads fill it in. */
	void (*io)(struct vcpu *vcpu, void *opaque, uint64_t offset, bool is_write,
		   uint8_t *data, unsigned int size);
	void *opaque;
};

/* 0, or a PMUVM_EXIT_* code after one line. */
int mmio_register(struct vm *vm, const struct mmio_device *dev);
/* Frees the bus (vm_destroy). */
void mmio_bus_exit(struct vm *vm);
/* A KVM_EXIT_MMIO: to the device that claims it, else mmio_unhandled(). */
void mmio_dispatch(struct vcpu *vcpu, uint64_t gpa, bool is_write, uint8_t *data,
		   unsigned int size);

#endif
