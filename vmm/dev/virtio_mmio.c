/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The virtio-mmio register model (Virtio 1.2, 4.2.2). Used-buffer
 * notifications reach the guest from the back end through KVM_IRQFD, past
 * this model, so InterruptStatus cannot tell which queue raised one: once
 * the device is live it always reads "used buffer" (VIRTIO_MMIO_INT_VRING),
 * and the driver looks at every queue's used ring, as it does for a shared
 * interrupt.
 */
#include <string.h>

#include "dev/virtio_mmio.h"

#define VIRTIO_MMIO_VENDOR_PMUVM	0x56554d50	/* "PMUV" in memory order */

void virtio_mmio_init(struct virtio_mmio *vm, uint32_t device_id, uint64_t device_features,
		      unsigned int nr_queues, uint32_t queue_num_max,
		      const uint8_t *config, size_t config_len,
		      const struct virtio_mmio_ops *ops, void *opaque)
{
	memset(vm, 0, sizeof(*vm));
	vm->device_id = device_id;
	vm->vendor_id = VIRTIO_MMIO_VENDOR_PMUVM;
	vm->device_features = device_features;
	vm->nr_queues = nr_queues < VIRTIO_MMIO_MAX_QUEUES ? nr_queues : VIRTIO_MMIO_MAX_QUEUES;
	vm->queue_num_max = queue_num_max;
	vm->config = config;
	vm->config_len = config_len;
	vm->ops = ops;
	vm->opaque = opaque;
}

static struct virtio_queue *cur_queue(struct virtio_mmio *vm)
{
	return vm->queue_sel < vm->nr_queues ? &vm->queues[vm->queue_sel] : NULL;
}

/* Writing 0 to Status resets the device (4.2.2.1): everything the driver set. */
static void virtio_mmio_reset(struct virtio_mmio *vm)
{
	if (vm->live && vm->ops && vm->ops->reset)
		vm->ops->reset(vm);
	vm->live = false;
	vm->status = 0;
	vm->driver_features = 0;
	vm->device_features_sel = vm->driver_features_sel = vm->queue_sel = 0;
	memset(vm->queues, 0, sizeof(vm->queues));
}

static void virtio_mmio_set_status(struct virtio_mmio *vm, uint32_t v)
{
	if (!v) {
		virtio_mmio_reset(vm);
		return;
	}
	/* FEATURES_OK holds only for a subset of the offer that includes VERSION_1 (3.1.1). */
	if ((v & VIRTIO_STATUS_FEATURES_OK) && !(vm->status & VIRTIO_STATUS_FEATURES_OK) &&
	    ((vm->driver_features & ~vm->device_features) ||
	     !(vm->driver_features & (1ULL << VIRTIO_F_VERSION_1))))
		v &= ~VIRTIO_STATUS_FEATURES_OK;
	if ((v & VIRTIO_STATUS_DRIVER_OK) && !vm->live) {
		if (!(v & VIRTIO_STATUS_FEATURES_OK) || vm->status & VIRTIO_STATUS_NEEDS_RESET ||
		    (vm->ops && vm->ops->driver_ok && vm->ops->driver_ok(vm))) {
			vm->status = (vm->status | v | VIRTIO_STATUS_NEEDS_RESET) & ~VIRTIO_STATUS_DRIVER_OK;
			return;
		}
		vm->live = true;
	}
	vm->status = v;
}

static uint32_t config_read(const struct virtio_mmio *vm, uint32_t off, unsigned int size)
{
	uint32_t v = 0;
	unsigned int i;

	if (off > vm->config_len || size > vm->config_len - off)
		return 0;
	for (i = 0; i < size; i++)
		v |= (uint32_t)vm->config[off + i] << (8 * i);
	return v;
}

uint32_t virtio_mmio_read(struct virtio_mmio *vm, uint32_t off, unsigned int size)
{
	struct virtio_queue *q = cur_queue(vm);
	uint64_t feat;

	if (off >= VIRTIO_MMIO_CONFIG)
		return size == 1 || size == 2 || size == 4 ?
		       config_read(vm, off - VIRTIO_MMIO_CONFIG, size) : 0;
	if (size != 4 || (off & 3))
		return 0;
	switch (off) {
	case VIRTIO_MMIO_MAGIC_VALUE:	return VIRTIO_MMIO_MAGIC;
	case VIRTIO_MMIO_VERSION:	return 2;
	case VIRTIO_MMIO_DEVICE_ID:	return vm->device_id;
	case VIRTIO_MMIO_VENDOR_ID:	return vm->vendor_id;
	case VIRTIO_MMIO_DEVICE_FEATURES:
		feat = vm->device_features;
		return vm->device_features_sel == 0 ? (uint32_t)feat :
		       vm->device_features_sel == 1 ? (uint32_t)(feat >> 32) : 0;
	case VIRTIO_MMIO_QUEUE_NUM_MAX:	return q ? vm->queue_num_max : 0;
	case VIRTIO_MMIO_QUEUE_READY:	return q ? q->ready : 0;
	case VIRTIO_MMIO_INTERRUPT_STATUS:
		return vm->live ? VIRTIO_MMIO_INT_VRING : 0;
	case VIRTIO_MMIO_STATUS:	return vm->status;
	/* No shared memory regions: their length reads as all ones (4.2.2). */
	case VIRTIO_MMIO_SHM_LEN_LOW:
	case VIRTIO_MMIO_SHM_LEN_HIGH:	return 0xffffffff;
	case VIRTIO_MMIO_CONFIG_GENERATION:	return vm->config_generation;
	default:			return 0;
	}
}

static void set_low(uint64_t *r, uint32_t v)
{
	*r = (*r & ~0xffffffffULL) | v;
}

static void set_high(uint64_t *r, uint32_t v)
{
	*r = (*r & 0xffffffffULL) | (uint64_t)v << 32;
}

/* Queue registers may change only while the queue is not ready (4.2.2.3). */
static void queue_write(struct virtio_mmio *vm, uint32_t off, uint32_t v)
{
	struct virtio_queue *q = cur_queue(vm);

	if (!q || (q->ready && off != VIRTIO_MMIO_QUEUE_READY))
		return;
	switch (off) {
	case VIRTIO_MMIO_QUEUE_NUM:
		/* A power of two, for the split ring (2.7). */
		if (v && v <= vm->queue_num_max && !(v & (v - 1)))
			q->num = v;
		break;
	case VIRTIO_MMIO_QUEUE_READY:		q->ready = v & 1; break;
	case VIRTIO_MMIO_QUEUE_DESC_LOW:	set_low(&q->desc, v); break;
	case VIRTIO_MMIO_QUEUE_DESC_HIGH:	set_high(&q->desc, v); break;
	case VIRTIO_MMIO_QUEUE_AVAIL_LOW:	set_low(&q->avail, v); break;
	case VIRTIO_MMIO_QUEUE_AVAIL_HIGH:	set_high(&q->avail, v); break;
	case VIRTIO_MMIO_QUEUE_USED_LOW:	set_low(&q->used, v); break;
	case VIRTIO_MMIO_QUEUE_USED_HIGH:	set_high(&q->used, v); break;
	}
}

void virtio_mmio_write(struct virtio_mmio *vm, uint32_t off, uint32_t v, unsigned int size)
{
	/* The config space of virtio-fs is read-only to the driver (5.11.4). */
	if (off >= VIRTIO_MMIO_CONFIG || size != 4 || (off & 3))
		return;
	switch (off) {
	case VIRTIO_MMIO_DEVICE_FEATURES_SEL:	vm->device_features_sel = v; break;
	case VIRTIO_MMIO_DRIVER_FEATURES_SEL:	vm->driver_features_sel = v; break;
	case VIRTIO_MMIO_DRIVER_FEATURES:
		/* Only before FEATURES_OK (3.1.1). */
		if (vm->status & VIRTIO_STATUS_FEATURES_OK)
			break;
		if (vm->driver_features_sel == 0)
			set_low(&vm->driver_features, v);
		else if (vm->driver_features_sel == 1)
			set_high(&vm->driver_features, v);
		break;
	case VIRTIO_MMIO_QUEUE_SEL:		vm->queue_sel = v; break;
	case VIRTIO_MMIO_QUEUE_NOTIFY:
		if (v < vm->nr_queues && vm->live && vm->ops && vm->ops->notify)
			vm->ops->notify(vm, v);
		break;
	case VIRTIO_MMIO_INTERRUPT_ACK:		break;
	case VIRTIO_MMIO_STATUS:		virtio_mmio_set_status(vm, v); break;
	case VIRTIO_MMIO_QUEUE_NUM:
	case VIRTIO_MMIO_QUEUE_READY:
	case VIRTIO_MMIO_QUEUE_DESC_LOW:
	case VIRTIO_MMIO_QUEUE_DESC_HIGH:
	case VIRTIO_MMIO_QUEUE_AVAIL_LOW:
	case VIRTIO_MMIO_QUEUE_AVAIL_HIGH:
	case VIRTIO_MMIO_QUEUE_USED_LOW:
	case VIRTIO_MMIO_QUEUE_USED_HIGH:
		queue_write(vm, off, v);
		break;
	default:				break;
	}
}
