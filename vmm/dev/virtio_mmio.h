/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The virtio-mmio transport, version 2 ("modern"; Virtio 1.2, 4.2.2): the
 * register model, pure C so unit tests drive it. A device (vmm/dev/
 * virtio_fs.c) gives its ID, features, queue count and config space, and
 * is told when the driver makes it live (DRIVER_OK) or resets it. Queue
 * notifications and used-buffer interrupts normally bypass the model
 * (KVM_IOEVENTFD, KVM_IRQFD); a QueueNotify write that still arrives goes
 * to ops->notify.
 */
#ifndef PMUVM_VIRTIO_MMIO_H
#define PMUVM_VIRTIO_MMIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Register offsets (Virtio 1.2, 4.2.2, table 4.1). */
#define VIRTIO_MMIO_MAGIC_VALUE		0x000
#define VIRTIO_MMIO_VERSION		0x004
#define VIRTIO_MMIO_DEVICE_ID		0x008
#define VIRTIO_MMIO_VENDOR_ID		0x00c
#define VIRTIO_MMIO_DEVICE_FEATURES	0x010
#define VIRTIO_MMIO_DEVICE_FEATURES_SEL	0x014
#define VIRTIO_MMIO_DRIVER_FEATURES	0x020
#define VIRTIO_MMIO_DRIVER_FEATURES_SEL	0x024
#define VIRTIO_MMIO_QUEUE_SEL		0x030
#define VIRTIO_MMIO_QUEUE_NUM_MAX	0x034
#define VIRTIO_MMIO_QUEUE_NUM		0x038
#define VIRTIO_MMIO_QUEUE_READY		0x044
#define VIRTIO_MMIO_QUEUE_NOTIFY	0x050
#define VIRTIO_MMIO_INTERRUPT_STATUS	0x060
#define VIRTIO_MMIO_INTERRUPT_ACK	0x064
#define VIRTIO_MMIO_STATUS		0x070
#define VIRTIO_MMIO_QUEUE_DESC_LOW	0x080
#define VIRTIO_MMIO_QUEUE_DESC_HIGH	0x084
#define VIRTIO_MMIO_QUEUE_AVAIL_LOW	0x090	/* "QueueDriver" */
#define VIRTIO_MMIO_QUEUE_AVAIL_HIGH	0x094
#define VIRTIO_MMIO_QUEUE_USED_LOW	0x0a0	/* "QueueDevice" */
#define VIRTIO_MMIO_QUEUE_USED_HIGH	0x0a4
#define VIRTIO_MMIO_SHM_SEL		0x0ac
#define VIRTIO_MMIO_SHM_LEN_LOW		0x0b0
#define VIRTIO_MMIO_SHM_LEN_HIGH	0x0b4
#define VIRTIO_MMIO_SHM_BASE_LOW	0x0b8
#define VIRTIO_MMIO_SHM_BASE_HIGH	0x0bc
#define VIRTIO_MMIO_CONFIG_GENERATION	0x0fc
#define VIRTIO_MMIO_CONFIG		0x100

#define VIRTIO_MMIO_MAGIC		0x74726976	/* "virt" */
#define VIRTIO_MMIO_REGION_SIZE		0x200

#define VIRTIO_MMIO_INT_VRING		(1u << 0)
#define VIRTIO_MMIO_INT_CONFIG		(1u << 1)

/* Device status bits (Virtio 1.2, 2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE	1u
#define VIRTIO_STATUS_DRIVER		2u
#define VIRTIO_STATUS_DRIVER_OK		4u
#define VIRTIO_STATUS_FEATURES_OK	8u
#define VIRTIO_STATUS_NEEDS_RESET	64u
#define VIRTIO_STATUS_FAILED		128u

/* Transport features (Virtio 1.2, 6). */
#define VIRTIO_RING_F_INDIRECT_DESC	28
#define VIRTIO_RING_F_EVENT_IDX		29
#define VIRTIO_F_VERSION_1		32

#define VIRTIO_ID_FS			26

#define VIRTIO_MMIO_MAX_QUEUES		8

struct virtio_queue {
	uint32_t num;
	bool ready;
	uint64_t desc, avail, used;	/* guest-physical */
};

struct virtio_mmio;

struct virtio_mmio_ops {
	/* DRIVER_OK was set: start the device. 0, or negative errno (the device then needs a reset). */
	int (*driver_ok)(struct virtio_mmio *vm);
	/* Status 0 was written after the device was live: stop it. */
	void (*reset)(struct virtio_mmio *vm);
	/* A QueueNotify write the ioeventfd did not take. */
	void (*notify)(struct virtio_mmio *vm, unsigned int queue);
};

struct virtio_mmio {
	uint32_t device_id;
	uint32_t vendor_id;
	uint64_t device_features;	/* offered */
	uint64_t driver_features;	/* accepted, checked at FEATURES_OK */
	uint32_t device_features_sel, driver_features_sel, queue_sel;
	uint32_t status;
	uint32_t config_generation;
	unsigned int nr_queues;
	uint32_t queue_num_max;
	struct virtio_queue queues[VIRTIO_MMIO_MAX_QUEUES];
	bool live;			/* driver_ok succeeded, reset not yet seen */
	const uint8_t *config;		/* device-specific configuration */
	size_t config_len;
	const struct virtio_mmio_ops *ops;
	void *opaque;
};

/* A device in reset state with `nr_queues` queues of at most `queue_num_max` entries. */
void virtio_mmio_init(struct virtio_mmio *vm, uint32_t device_id, uint64_t device_features,
		      unsigned int nr_queues, uint32_t queue_num_max,
		      const uint8_t *config, size_t config_len,
		      const struct virtio_mmio_ops *ops, void *opaque);

/*
 * A guest access of `size` bytes at `off` in the register window. Registers
 * below the config space take 32-bit accesses only (4.2.2.2): others read
 * as 0 and are ignored when written. Config space takes 1, 2 and 4 bytes.
 */
uint32_t virtio_mmio_read(struct virtio_mmio *vm, uint32_t off, unsigned int size);
void virtio_mmio_write(struct virtio_mmio *vm, uint32_t off, uint32_t val, unsigned int size);

#endif
