/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One counter of a vCPU's binary statistics (KVM_GET_STATS_FD,
 * Documentation/virt/kvm/api.rst "KVM_GET_STATS_FD"), read by name.
 */
#ifndef PMUVM_KVM_STATS_H
#define PMUVM_KVM_STATS_H

#include <stdint.h>
#include <sys/types.h>

struct kvm_stat {
	int fd;			/* -1: not open */
	off_t offset;		/* of its first u64 in the stats file */
};

/* Opens `name` of the vCPU (or VM) `fd`: 0, or -errno (-ENOENT: no such stat). */
int kvm_stat_open(int fd, const char *name, struct kvm_stat *st);
/* Its value: 0, or -errno. */
int kvm_stat_read(const struct kvm_stat *st, uint64_t *val);
void kvm_stat_close(struct kvm_stat *st);

#endif
