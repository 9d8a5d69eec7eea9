/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-fs (Virtio 1.2, 5.11) on virtio-mmio, served by a vhost-user back
 * end (virtiofsd) over a unix socket: one device per --virtiofs TAG=SOCKET,
 * in the slots the ACPI tables describe (boot/acpi.h). pmuvm keeps the
 * register model and the config space (the tag, one request queue); the
 * back end maps guest RAM from its memfd (cfg->shared_ram) and runs the
 * queues. A guest's QueueNotify write goes straight to the back end's kick
 * eventfd (KVM_IOEVENTFD), and the back end's call eventfd raises the
 * device's interrupt (KVM_IRQFD): no exit to pmuvm on either path.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "boot/acpi.h"
#include "boot/le.h"
#include "dev/devices.h"
#include "dev/vhost_user.h"
#include "dev/virtio_mmio.h"
#include "exitcode.h"
#include "log.h"
#include "machine/mmio.h"
#include "machine/vm.h"

#define VIRTIO_FS_QUEUES	2	/* hiprio and one request queue (5.11.2) */
#define VIRTIO_FS_QUEUE_MAX	1024
#define VIRTIO_FS_CONFIG_LEN	(PMUVM_VIRTIOFS_TAG_MAX + 4)

/* The transport features pmuvm passes on; the rest of the low 24 bits are the device's. */
#define VIRTIO_FS_TRANSPORT_FEATURES	((1ULL << VIRTIO_RING_F_INDIRECT_DESC) | \
					 (1ULL << VIRTIO_RING_F_EVENT_IDX) | \
					 (1ULL << VIRTIO_F_VERSION_1))
#define VIRTIO_DEVICE_FEATURES_MASK	((1ULL << 24) - 1)

struct virtio_fs {
	pthread_mutex_t lock;
	struct vm *vm;
	const char *tag;
	unsigned int index;
	struct virtio_mmio mmio;
	uint8_t config[VIRTIO_FS_CONFIG_LEN];
	int sock;
	int kick[VIRTIO_FS_QUEUES], call[VIRTIO_FS_QUEUES];
	bool ioeventfd[VIRTIO_FS_QUEUES], irqfd[VIRTIO_FS_QUEUES];
	bool started[VIRTIO_FS_QUEUES];
};

struct virtio_fs_set {
	struct virtio_fs *dev[PMUVM_MAX_VIRTIOFS];
	unsigned int nr;
};

/* One request, and its u64 reply when `reply` is set: 0 or negative errno. */
static int vfs_call(struct virtio_fs *f, const struct vhost_user_msg *m, const int *fds,
		    unsigned int nfds, uint64_t *reply)
{
	struct vhost_user_msg r;
	int e = vhost_user_send(f->sock, m, fds, nfds);

	if (e || !reply)
		return e;
	e = vhost_user_recv(f->sock, &r);
	return e ? e : vhost_user_reply_u64(&r, m->request, reply);
}

static void vfs_fail(struct virtio_fs *f, const char *what, int e)
{
	pr_err("virtio-fs '%s': %s: %s", f->tag, what,
	       e == -EPIPE ? "the back end closed the connection" : strerror(-e));
}

/* The memory table: each RAM region, at its offset in the memfd. */
static int vfs_set_mem_table(struct virtio_fs *f)
{
	const struct guest_mem *mem = &f->vm->mem;
	struct vhost_user_region r[GUEST_MEM_MAX_REGIONS];
	int fds[GUEST_MEM_MAX_REGIONS];
	struct vhost_user_msg m;
	unsigned int i;

	for (i = 0; i < mem->nr; i++) {
		r[i] = (struct vhost_user_region){
			.guest_phys_addr = mem->regions[i].gpa,
			.memory_size = mem->regions[i].size,
			.userspace_addr = (uintptr_t)mem->regions[i].hva,
			.mmap_offset = (uint64_t)(mem->regions[i].hva - f->vm->ram),
		};
		fds[i] = f->vm->ram_fd;
	}
	vhost_user_msg_mem_table(&m, r, mem->nr);
	return vfs_call(f, &m, fds, mem->nr, NULL);
}

/* A ready queue to the back end: size, start index, ring addresses, then its eventfds. */
static int vfs_start_queue(struct virtio_fs *f, unsigned int i)
{
	const struct virtio_queue *q = &f->mmio.queues[i];
	void *desc = guest_mem_ptr(&f->vm->mem, q->desc, 16ULL * q->num);
	void *avail = guest_mem_ptr(&f->vm->mem, q->avail, 6 + 2ULL * q->num);
	void *used = guest_mem_ptr(&f->vm->mem, q->used, 6 + 8ULL * q->num);
	struct vhost_user_msg m;
	int e;

	if (!q->num || !desc || !avail || !used) {
		pr_err("virtio-fs '%s': queue %u is not in guest RAM", f->tag, i);
		return -EFAULT;
	}
	vhost_user_msg_state(&m, VHOST_USER_SET_VRING_NUM, i, q->num);
	e = vfs_call(f, &m, NULL, 0, NULL);
	vhost_user_msg_state(&m, VHOST_USER_SET_VRING_BASE, i, 0);
	e = e ? e : vfs_call(f, &m, NULL, 0, NULL);
	vhost_user_msg_addr(&m, i, (uintptr_t)desc, (uintptr_t)used, (uintptr_t)avail);
	e = e ? e : vfs_call(f, &m, NULL, 0, NULL);
	vhost_user_msg_vring_fd(&m, VHOST_USER_SET_VRING_CALL, i, 1);
	e = e ? e : vfs_call(f, &m, &f->call[i], 1, NULL);
	vhost_user_msg_vring_fd(&m, VHOST_USER_SET_VRING_KICK, i, 1);
	e = e ? e : vfs_call(f, &m, &f->kick[i], 1, NULL);
	if (e)
		vfs_fail(f, "starting a queue", e);
	else
		f->started[i] = true;
	return e;
}

static int vfs_driver_ok(struct virtio_mmio *mm)
{
	struct virtio_fs *f = mm->opaque;
	struct vhost_user_msg m;
	unsigned int i;
	int e;

	vhost_user_msg_u64(&m, VHOST_USER_SET_FEATURES, mm->driver_features);
	e = vfs_call(f, &m, NULL, 0, NULL);
	e = e ? e : vfs_set_mem_table(f);
	if (e) {
		vfs_fail(f, "setting up the back end", e);
		return e;
	}
	for (i = 0; i < VIRTIO_FS_QUEUES; i++)
		if (mm->queues[i].ready && (e = vfs_start_queue(f, i)))
			return e;
	return 0;
}

/* GET_VRING_BASE stops a ring (vhost-user.rst, "Starting and stopping rings"). */
static void vfs_reset(struct virtio_mmio *mm)
{
	struct virtio_fs *f = mm->opaque;
	struct vhost_user_msg m;
	unsigned int i;
	uint64_t base;

	for (i = 0; i < VIRTIO_FS_QUEUES; i++) {
		if (!f->started[i])
			continue;
		f->started[i] = false;
		vhost_user_msg_state(&m, VHOST_USER_GET_VRING_BASE, i, 0);
		vfs_call(f, &m, NULL, 0, &base);
	}
}

/* Where KVM_IOEVENTFD was refused, the write exits here and is passed on. */
static void vfs_notify(struct virtio_mmio *mm, unsigned int queue)
{
	struct virtio_fs *f = mm->opaque;
	uint64_t one = 1;

	if (queue < VIRTIO_FS_QUEUES && write(f->kick[queue], &one, sizeof(one)) < 0)
		pr_debug("virtio-fs '%s': kick: %s", f->tag, strerror(errno));
}

static const struct virtio_mmio_ops vfs_ops = {
	.driver_ok = vfs_driver_ok,
	.reset = vfs_reset,
	.notify = vfs_notify,
};

static void vfs_io(struct vcpu *vcpu, void *opaque, uint64_t offset, bool is_write,
		   uint8_t *data, unsigned int size)
{
	struct virtio_fs *f = opaque;

	(void)vcpu;
	pthread_mutex_lock(&f->lock);
	if (is_write)
		virtio_mmio_write(&f->mmio, (uint32_t)offset, pio_get(data, size), size);
	else
		pio_put(data, size, virtio_mmio_read(&f->mmio, (uint32_t)offset, size));
	pthread_mutex_unlock(&f->lock);
}

static int vfs_connect(struct virtio_fs *f, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		pr_err("--virtiofs %s: socket path too long", f->tag);
		return PMUVM_EXIT_USAGE;
	}
	strcpy(sa.sun_path, path);
	f->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->sock < 0 || connect(f->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		pr_err("--virtiofs %s: cannot connect to %s: %s", f->tag, path, strerror(errno));
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

/* The back end's features: what the device offers besides VHOST_USER_F_PROTOCOL_FEATURES. */
static int vfs_negotiate(struct virtio_fs *f, uint64_t *offer)
{
	struct vhost_user_msg m;
	uint64_t features;
	int e;

	vhost_user_msg_none(&m, VHOST_USER_GET_FEATURES);
	e = vfs_call(f, &m, NULL, 0, &features);
	vhost_user_msg_none(&m, VHOST_USER_SET_OWNER);
	e = e ? e : vfs_call(f, &m, NULL, 0, NULL);
	if (e) {
		vfs_fail(f, "vhost-user handshake", e);
		return PMUVM_EXIT_HOST_ERROR;
	}
	*offer = features & (VIRTIO_FS_TRANSPORT_FEATURES | VIRTIO_DEVICE_FEATURES_MASK);
	if (!(*offer & (1ULL << VIRTIO_F_VERSION_1))) {
		pr_err("virtio-fs '%s': the back end does not offer VIRTIO_F_VERSION_1", f->tag);
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

/* KVM_IOEVENTFD for queue `q`'s kick on QueueNotify (flags: DEASSIGN or 0). */
static int vfs_ioeventfd(struct virtio_fs *f, unsigned int q, uint32_t flags)
{
	struct kvm_ioeventfd io = {
		.datamatch = q, .len = 4, .fd = f->kick[q],
		.addr = ACPI_VIRTIO_MMIO_BASE + f->index * ACPI_VIRTIO_MMIO_SIZE +
			VIRTIO_MMIO_QUEUE_NOTIFY,
		.flags = KVM_IOEVENTFD_FLAG_DATAMATCH | flags,
	};

	return ioctl(f->vm->vm_fd, KVM_IOEVENTFD, &io);
}

/* KVM_IRQFD for queue `q`'s call on the device's GSI (flags: DEASSIGN or 0). */
static int vfs_irqfd(struct virtio_fs *f, unsigned int q, uint32_t flags)
{
	struct kvm_irqfd irq = {
		.fd = (uint32_t)f->call[q], .gsi = ACPI_VIRTIO_MMIO_GSI + f->index, .flags = flags,
	};

	return ioctl(f->vm->vm_fd, KVM_IRQFD, &irq);
}

/* The queues' eventfds, and KVM's wiring of them to QueueNotify and the interrupt. */
static int vfs_eventfds(struct virtio_fs *f)
{
	unsigned int i;

	for (i = 0; i < VIRTIO_FS_QUEUES; i++) {
		f->kick[i] = eventfd(0, EFD_CLOEXEC);
		f->call[i] = eventfd(0, EFD_CLOEXEC);
		if (f->kick[i] < 0 || f->call[i] < 0) {
			pr_err("virtio-fs '%s': eventfd: %s", f->tag, strerror(errno));
			return PMUVM_EXIT_HOST_ERROR;
		}
		f->ioeventfd[i] = vfs_ioeventfd(f, i, 0) == 0;
		if (!f->ioeventfd[i])
			pr_info("virtio-fs '%s': KVM_IOEVENTFD: %s: queue notifications exit to pmuvm",
				f->tag, strerror(errno));
		if (vfs_irqfd(f, i, 0) < 0) {
			pr_err("virtio-fs '%s': KVM_IRQFD: %s", f->tag, strerror(errno));
			return PMUVM_EXIT_NO_KVM;
		}
		f->irqfd[i] = true;
	}
	return 0;
}

static int vfs_create(struct vm *vm, unsigned int index, struct virtio_fs **out)
{
	const struct pmuvm_virtiofs *c = &vm->cfg->virtiofs[index];
	struct virtio_fs *f = calloc(1, sizeof(*f));
	struct mmio_device dev = {
		.name = "virtio-fs",
		.base = ACPI_VIRTIO_MMIO_BASE + index * ACPI_VIRTIO_MMIO_SIZE,
		.len = ACPI_VIRTIO_MMIO_SIZE, .io = vfs_io,
	};
	uint64_t offer;
	unsigned int i;
	int r;

	*out = f;
	if (!f) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->vm = vm;
	f->tag = c->tag;
	f->index = index;
	f->sock = -1;
	for (i = 0; i < VIRTIO_FS_QUEUES; i++)
		f->kick[i] = f->call[i] = -1;
	/* struct virtio_fs_config: the tag, NUL-padded, then num_request_queues. */
	strncpy((char *)f->config, c->tag, PMUVM_VIRTIOFS_TAG_MAX);
	put32(f->config + PMUVM_VIRTIOFS_TAG_MAX, VIRTIO_FS_QUEUES - 1);
	r = vfs_connect(f, c->socket);
	r = r ? r : vfs_negotiate(f, &offer);
	r = r ? r : vfs_eventfds(f);
	if (r)
		return r;
	virtio_mmio_init(&f->mmio, VIRTIO_ID_FS, offer, VIRTIO_FS_QUEUES, VIRTIO_FS_QUEUE_MAX,
			 f->config, sizeof(f->config), &vfs_ops, f);
	dev.opaque = f;
	return mmio_register(vm, &dev);
}

static void vfs_destroy(struct virtio_fs *f)
{
	unsigned int i;

	for (i = 0; i < VIRTIO_FS_QUEUES; i++) {
		if (f->ioeventfd[i])
			vfs_ioeventfd(f, i, KVM_IOEVENTFD_FLAG_DEASSIGN);
		if (f->irqfd[i])
			vfs_irqfd(f, i, KVM_IRQFD_FLAG_DEASSIGN);
		if (f->kick[i] >= 0)
			close(f->kick[i]);
		if (f->call[i] >= 0)
			close(f->call[i]);
	}
	if (f->sock >= 0)
		close(f->sock);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

int virtio_fs_init(struct vm *vm)
{
	unsigned int i;
	int r;

	if (!vm->cfg->nr_virtiofs)
		return 0;
	if (!vm->cfg->boot_linux) {
		pr_err("--virtiofs: only a Linux guest can use virtio-fs");
		return PMUVM_EXIT_USAGE;
	}
	vm->virtio_fs = calloc(1, sizeof(*vm->virtio_fs));
	if (!vm->virtio_fs) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	for (i = 0; i < vm->cfg->nr_virtiofs; i++) {
		r = vfs_create(vm, i, &vm->virtio_fs->dev[i]);
		if (vm->virtio_fs->dev[i])
			vm->virtio_fs->nr = i + 1;
		if (r)
			return r;
	}
	return 0;
}

void virtio_fs_exit(struct vm *vm)
{
	unsigned int i;

	if (!vm->virtio_fs)
		return;
	for (i = 0; i < vm->virtio_fs->nr; i++)
		vfs_destroy(vm->virtio_fs->dev[i]);
	free(vm->virtio_fs);
	vm->virtio_fs = NULL;
}
