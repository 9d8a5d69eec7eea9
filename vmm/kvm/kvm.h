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

/* Opens the KVM device (PMUVM_KVM_DEVICE overrides /dev/kvm, for tests). */
int kvm_open(int *fd_out);

/*
 * Checks every capability pmuvm needs.  PMUVM_TEST_HIDE_CAP=NAME makes one
 * look absent, so the error path is testable on a host that has it.
 */
int kvm_check_caps(int kvm_fd);

int kvm_cap(int fd, int cap);

#endif
