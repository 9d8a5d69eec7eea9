/* SPDX-License-Identifier: MIT */
/*
 * Leaving the guest through QEMU's isa-debug-exit device at port 0xf4
 * (iosize 4): the VMM exits with status (code << 1) | 1, so 0 -> 1 (pass),
 * 1 -> 3 (fail), 2 -> 5, 3 -> 7 (pmuvm(1), EXIT STATUS).
 */
#ifndef RT_EXIT_H
#define RT_EXIT_H

#include <stdint.h>

#define RT_EXIT_PORT		0xf4

#define RT_EXIT_PASS		0
#define RT_EXIT_FAIL		1	/* assertion, unexpected exception */
#define RT_EXIT_BAD_BOOT	2	/* not started by a multiboot loader */
#define RT_EXIT_PANIC		3	/* rt_panic(): the runtime's rules broken */

__attribute__((noreturn)) void rt_exit(uint32_t code);

#endif
