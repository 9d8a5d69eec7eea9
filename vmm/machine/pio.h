/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The port-I/O bus and the fallback for every unclaimed port and MMIO
 * address: reads return all ones, writes are ignored, and each distinct
 * access is logged once with -v. Devices (vmm/dev) register their ports.
 */
#ifndef PMUVM_PIO_H
#define PMUVM_PIO_H

#include <stdbool.h>
#include <stdint.h>

struct vm;
struct vcpu;

struct pio_device {
	const char *name;
	uint16_t base;
	uint16_t len;
	/* data holds `size` bytes little-endian; reads fill it in. */
	void (*io)(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
		   uint8_t *data, unsigned int size);
	void *opaque;
};

/* A device model: registers its ports at init (0 or a PMUVM_EXIT_* code). */
struct vm_device {
	const char *name;
	int (*init)(struct vm *vm);
	void (*exit)(struct vm *vm);
};

int pio_bus_init(struct vm *vm);
void pio_bus_exit(struct vm *vm);
int pio_register(struct vm *vm, const struct pio_device *dev);
void pio_dispatch(struct vcpu *vcpu, uint16_t port, bool is_write, uint8_t *data,
		  unsigned int size);
void mmio_unhandled(struct vcpu *vcpu, uint64_t gpa, bool is_write, uint8_t *data,
		    unsigned int len);

/* Little-endian helpers for device data buffers. */
static inline uint32_t pio_get(const uint8_t *data, unsigned int size)
{
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < size && i < 4; i++)
		v |= (uint32_t)data[i] << (8 * i);
	return v;
}

static inline void pio_put(uint8_t *data, unsigned int size, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < size && i < 4; i++)
		data[i] = (uint8_t)(v >> (8 * i));
}

#endif
