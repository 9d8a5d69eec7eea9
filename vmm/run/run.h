/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `pmuvm run [options] [--kernel FILE] [--] [COMMAND [ARG...]]`
 * (docs/run.md): a Linux kernel booted with the host's root read-only and
 * the current directory read-write over virtio-fs, COMMAND run there as
 * the caller with pmuvm's console as its terminal, and its exit status as
 * pmuvm's. main() calls these around the ordinary run of a Linux guest.
 */
#ifndef PMUVM_RUN_RUN_H
#define PMUVM_RUN_RUN_H

#include <stdbool.h>

#include "config.h"

struct vm;

/* argv[0] is "run": config_parse()'s returns. */
int run_parse(struct pmuvm_config *cfg, int argc, char **argv);
/*
 * The kernel and initramfs (pmuvm-kernel), the virtiofsd back ends, the
 * command's description: 0, or a PMUVM_EXIT_* code after one line.
 */
int run_prepare(struct pmuvm_config *cfg);
/* Once the VM exists, before it runs: the console. 0 or PMUVM_EXIT_* code. */
int run_start(struct vm *vm);
/* After the run: the command's exit status where the guest gave one, else `status`. */
int run_finish(struct vm *vm, int status);

#endif
