/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Profiling from outside: every counter overflow pmuvm delivers is recorded
 * with the vCPU, the counter and the guest's RIP and call stack, and written
 * at exit as a profile resolved against the guest image's ELF symbols.
 */
#ifndef PMUVM_PROFILE_H
#define PMUVM_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct outfile;
struct vcpu_feature;
struct vm;

/* Records the samples (with --profile or --profile-folded only). */
extern const struct vcpu_feature profile_feature;

/*
 * Writes the table (--profile) and the folded stacks (--profile-folded),
 * each if on; 0 or a PMUVM_EXIT_* code after one line per failure.
 */
int profile_write(struct vm *vm, const uint8_t *image, size_t image_size, struct outfile *table,
		  struct outfile *folded);

#endif
