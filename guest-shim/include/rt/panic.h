/* SPDX-License-Identifier: MIT */
/*
 * The runtime's own fatal error: the runtime or its caller broke a rule of
 * the runtime (a pointer rt_alloc() did not return given to rt_free(), a
 * thread joined twice, out of memory for a scheduler thread).  Not a test
 * verdict: tests use rt/test.h.
 *
 *	rt_panic("rt_free(%p): freed twice", p);
 *
 * prints "PANIC file:line: message" on the console as one line and leaves
 * through isa-debug-exit with RT_EXIT_PANIC (rt/exit.h), so pmuvm and QEMU
 * exit with status (3 << 1) | 1 = 7, apart from a failed assertion (3);
 * pmuvm(1), EXIT STATUS.  It does not return.
 */
#ifndef RT_PANIC_H
#define RT_PANIC_H

#define rt_panic(fmt, ...)	rt_panic_at(__FILE__, __LINE__, fmt, ##__VA_ARGS__)

__attribute__((noreturn, format(printf, 3, 4)))
void rt_panic_at(const char *file, int line, const char *fmt, ...);

#endif
