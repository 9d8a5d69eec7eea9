/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A vCPU statistic by name: the stats file is a header, the descriptors
 * (each struct kvm_stats_desc followed by name_size bytes of name) and the
 * data block; a stat's u64 values sit at data_offset + its desc offset
 * (include/uapi/linux/kvm.h, struct kvm_stats_header).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kvm/stats.h"

int kvm_stat_open(int fd, const char *name, struct kvm_stat *st)
{
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t desc_size;
	int r = -ENOENT;

	st->fd = ioctl(fd, KVM_GET_STATS_FD, NULL);
	if (st->fd < 0) {
		st->fd = -1;
		return -errno;
	}
	if (pread(st->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		kvm_stat_close(st);
		return -EIO;
	}
	desc_size = sizeof(*d) + h.name_size;
	d = malloc(desc_size);
	if (!d) {
		kvm_stat_close(st);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < h.num_desc; i++) {
		if (pread(st->fd, d, desc_size, (off_t)h.desc_offset + (off_t)i * desc_size) !=
		    (ssize_t)desc_size) {
			r = -EIO;
			break;
		}
		if (h.name_size && !strncmp(d->name, name, h.name_size)) {
			st->offset = (off_t)h.data_offset + d->offset;
			r = 0;
			break;
		}
	}
	free(d);
	if (r)
		kvm_stat_close(st);
	return r;
}

int kvm_stat_read(const struct kvm_stat *st, uint64_t *val)
{
	if (st->fd < 0)
		return -EBADF;
	return pread(st->fd, val, sizeof(*val), st->offset) == (ssize_t)sizeof(*val) ? 0 : -EIO;
}

void kvm_stat_close(struct kvm_stat *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
}
