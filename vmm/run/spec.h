/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `pmuvm run` tells the guest's init (guest-shim/linux/run-init.c):
 * the command, its user, directory, environment and terminal, packed as
 * the file /pmuvm-run of a newc cpio archive that follows the initramfs.
 * Pure: unit-tested.
 */
#ifndef PMUVM_RUN_SPEC_H
#define PMUVM_RUN_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RUN_SPEC_MAX_GROUPS	256

struct run_spec {
	uid_t uid;
	gid_t gid;
	gid_t groups[RUN_SPEC_MAX_GROUPS];
	unsigned int nr_groups;
	const char *cwd;
	bool stdin_tty, stdout_tty;
	unsigned int rows, cols;	/* 0: unknown */
	char *const *argv;		/* NULL-terminated, at least one */
	char *const *envp;		/* NULL-terminated */
};

/*
 * The archive: one regular file /pmuvm-run (NUL-terminated "key=value"
 * strings, as run-init.c reads them) and the trailer. 0 with a malloc'd
 * *out, or -ENOMEM.
 */
int run_spec_cpio(const struct run_spec *s, uint8_t **out, size_t *len);

#endif
