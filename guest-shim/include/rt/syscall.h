/* SPDX-License-Identifier: MIT */
/*
 * System calls from CPL3 code (rt_run_user(), rt_thread_create_user()).
 *
 *	uint64_t r = rt_syscall(nr, a0, a1, a2, a3);
 *
 * The gate is UD2: rt_syscall's first instruction is a UD2 and the #UD
 * hook of usermode.c, seeing that RIP, calls the handler registered for
 * @nr on the thread's kernel stack, puts its result in RAX and resumes
 * after the UD2 (which returns).  Why not INT n or SYSCALL: on the kvm_pvm
 * hosts neither reaches CPL0 from CPL3 (rt/usermode.h); exceptions do, on
 * these hosts as on VMX/SVM KVM and QEMU TCG.  Arguments are in the SysV
 * registers (RDI = nr, RSI, RDX, RCX, R8), so the call is a plain function
 * call on both sides; every other register is preserved.
 *
 * Handlers run at CPL0 with interrupts enabled when the caller had them
 * (always at CPL3), so they may block (sleep, join, yield) and the tick
 * may preempt them.  rt_syscall() also works at CPL0, which runs the
 * handler the same way.  An unregistered @nr returns RT_ENOSYS.
 */
#ifndef RT_SYSCALL_H
#define RT_SYSCALL_H

#include <stdint.h>

#define RT_NR_SYSCALLS		64
#define RT_ENOSYS		((uint64_t)-38)

/* Built-in calls, registered by the runtime. */
#define RT_SYS_YIELD		0	/* rt_yield() -> 0 */
#define RT_SYS_SLEEP_TICKS	1	/* rt_thread_sleep_ticks(a0) -> 0 */
#define RT_SYS_THREAD_ID	2	/* rt_thread_id(current) */
#define RT_SYS_CPU_ID		3	/* rt_cpu_id() */
#define RT_SYS_FIRST_FREE	16	/* numbers below are the runtime's */

typedef uint64_t (*rt_syscall_fn)(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3);

uint64_t rt_syscall(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3);
/* NULL unregisters.  Returns -EINVAL (-22) if nr >= RT_NR_SYSCALLS. */
int rt_syscall_register(unsigned int nr, rt_syscall_fn handler);

#endif
