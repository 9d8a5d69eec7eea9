/* SPDX-License-Identifier: GPL-2.0-only */
/* Thin helpers over the /dev/kvm API. */
#ifndef PMUVM_KVM_H
#define PMUVM_KVM_H

#include <linux/kvm.h>
#include <stdbool.h>

struct kvm_cap_req {
	int cap;
	const char *name;
	const char *why;
};

/* Opens the KVM device at `path` (normally /dev/kvm): 0, or PMUVM_EXIT_NO_KVM after one line. */
int kvm_open(const char *path, int *fd_out);

/*
 * Checks every capability pmuvm needs. `hide` (NULL: none) names one to
 * treat as absent, so the error path is testable on a host that has it.
 */
int kvm_check_caps(int kvm_fd, const char *hide);

int kvm_cap(int fd, int cap);

/*
 * KVM_PMU_CAP_DISABLE for the VM `vm_fd`, before its first vCPU: 0,
 * -EOPNOTSUPP where KVM does not offer it, or -errno.
 */
int kvm_disable_vpmu(int vm_fd);

#endif
