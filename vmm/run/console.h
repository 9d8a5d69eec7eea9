/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm run's console: pmuvm's standard input into the guest's UART, with
 * the terminal in raw mode while the guest runs when it is one (so Ctrl-C,
 * Ctrl-Z and line editing belong to the guest's terminal), restored on
 * every way out. A stream that is not a terminal goes escaped, its end
 * marked (spec.h, run-init.c): 0xff 0xff for 0xff, 0xff 0x00 for the end.
 */
#ifndef PMUVM_RUN_CONSOLE_H
#define PMUVM_RUN_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vm;

/* Puts the terminal on fd 0 in raw mode, if it is one: 0 or -errno. */
int run_console_raw(void);
/* Puts it back as it was (idempotent; safe from a signal handler). */
void run_console_restore(void);

/* Starts copying stdin into the UART; `escaped` for a stream. 0 or -errno. */
int run_console_start(struct vm *vm, bool escaped);
/* Stops and joins the copy (before vm_destroy). */
void run_console_stop(struct vm *vm);

/* The escaping of a stream (pure): writes at most 2 * len bytes to out; returns how many. */
size_t run_console_escape(const uint8_t *in, size_t len, uint8_t *out);

#define RUN_CONSOLE_ESC		0xff
#define RUN_CONSOLE_EOF		0x00

#endif
