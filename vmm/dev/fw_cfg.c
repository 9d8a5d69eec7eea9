/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * QEMU fw_cfg, legacy I/O interface (docs/specs/fw_cfg.rst in QEMU): a 16-bit
 * selector at 0x510 and a byte-wide data port at 0x511 that reads the selected
 * item sequentially.  Only the items a small guest needs to size itself.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dev/devices.h"
#include "exitcode.h"
#include "machine/vm.h"
#include "log.h"

#define FW_CFG_PORT_SEL		0x510
#define FW_CFG_PORT_DATA	0x511

#define FW_CFG_SIGNATURE	0x0000
#define FW_CFG_ID		0x0001
#define FW_CFG_RAM_SIZE		0x0003
#define FW_CFG_NB_CPUS		0x0005
#define FW_CFG_MAX_CPUS		0x000f

#define FW_CFG_ID_TRADITIONAL	0x1

struct fw_cfg_item {
	uint16_t key;
	uint8_t data[8];
	uint32_t len;
};

struct fw_cfg {
	pthread_mutex_t lock;
	struct fw_cfg_item items[5];
	unsigned int nr;
	const struct fw_cfg_item *cur;
	uint32_t offset;
};

static void fw_cfg_add(struct fw_cfg *fc, uint16_t key, uint64_t value, uint32_t len,
		       const char *bytes)
{
	struct fw_cfg_item *it = &fc->items[fc->nr++];
	uint32_t i;

	it->key = key;
	it->len = len;
	for (i = 0; i < len; i++)
		it->data[i] = bytes ? (uint8_t)bytes[i] : (uint8_t)(value >> (8 * i));
}

static void fw_cfg_select(struct fw_cfg *fc, uint16_t key)
{
	unsigned int i;

	fc->cur = NULL;
	fc->offset = 0;
	for (i = 0; i < fc->nr; i++)
		if (fc->items[i].key == key)
			fc->cur = &fc->items[i];
}

static void fw_cfg_io(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
		      uint8_t *data, unsigned int size)
{
	struct fw_cfg *fc = opaque;
	unsigned int i;

	(void)vcpu;
	pthread_mutex_lock(&fc->lock);
	if (offset == 0) {
		if (is_write)
			fw_cfg_select(fc, (uint16_t)pio_get(data, size));
		else
			pio_put(data, size, 0);
	} else if (is_write) {
		/* Writes through the data port are deprecated and ignored (QEMU 2.4+). */
	} else {
		/* An unknown key or a read past the end returns zeros, as QEMU does. */
		for (i = 0; i < size; i++) {
			bool in = fc->cur && fc->offset < fc->cur->len;

			data[i] = in ? fc->cur->data[fc->offset] : 0;
			if (in)
				fc->offset++;
		}
	}
	pthread_mutex_unlock(&fc->lock);
}

int fw_cfg_init(struct vm *vm)
{
	struct fw_cfg *fc = calloc(1, sizeof(*fc));
	struct pio_device dev = {
		.name = "fw_cfg", .base = FW_CFG_PORT_SEL, .len = 2, .io = fw_cfg_io, .opaque = fc,
	};

	if (!fc) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	pthread_mutex_init(&fc->lock, NULL);
	fw_cfg_add(fc, FW_CFG_SIGNATURE, 0, 4, "QEMU");
	fw_cfg_add(fc, FW_CFG_ID, FW_CFG_ID_TRADITIONAL, 4, NULL);
	fw_cfg_add(fc, FW_CFG_RAM_SIZE, vm->ram_size, 8, NULL);
	fw_cfg_add(fc, FW_CFG_NB_CPUS, vm->cfg->nr_cpus, 2, NULL);
	fw_cfg_add(fc, FW_CFG_MAX_CPUS, vm->cfg->nr_cpus, 2, NULL);
	vm->fw_cfg = fc;
	return pio_register(vm, &dev);
}

void fw_cfg_exit(struct vm *vm)
{
	free(vm->fw_cfg);
	vm->fw_cfg = NULL;
}
