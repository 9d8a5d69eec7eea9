/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Progress of a stepped run.  Single-stepping (vmm/exact) runs a guest
 * thousands of times slower than native, so a run that steps for more than
 * about 2 s says how far it got on stderr: instructions stepped (under the
 * emulation engine: stepped and emulated, and how many emulated), elapsed
 * time and rate, rewritten in place every second on a terminal, a line
 * every 10 s elsewhere, nothing with -q.  SIGUSR1 prints the line at any
 * time.  It reads the counters the exact source keeps anyway, from the
 * thread that waits for the guest: nothing on the step path.
 */
#ifndef PMUVM_PROGRESS_H
#define PMUVM_PROGRESS_H

#include <stdbool.h>

struct vm;

/* Before vm_run(): the periodic line, unless quiet. */
void progress_attach(struct vm *vm, bool quiet);

/* The line, now (SIGUSR1). */
void progress_print(struct vm *vm);

/* After the run: a newline after the line on a terminal. */
void progress_end(void);

#endif
