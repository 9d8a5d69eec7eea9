/* SPDX-License-Identifier: GPL-2.0-only */
/* The helper programs pmuvm run starts, found as a shell would find them. */
#ifndef PMUVM_RUN_WHICH_H
#define PMUVM_RUN_WHICH_H

#include <stddef.h>

/*
 * The first executable of `places` (n full paths), else `name` in a
 * directory of PATH (written to `buf`), else NULL.
 */
const char *run_which(const char *name, const char *const *places, unsigned int n, char *buf,
		      size_t len);

#endif
