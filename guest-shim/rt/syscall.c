/* SPDX-License-Identifier: MIT */
/*
 * The kernel side of rt_syscall() (rt/syscall.h): the table, the built-in
 * calls and the dispatch the #UD hook hands over to.
 */
#include <stdbool.h>
#include <stdint.h>
#include <rt/idt.h>
#include <rt/smp.h>
#include <rt/syscall.h>
#include <rt/thread.h>
#include <rt/x86.h>
#include "sched.h"

extern char rt_syscall_trap[];		/* usermode_entry.S: the UD2 */

static uint64_t sys_yield(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	(void)a0, (void)a1, (void)a2, (void)a3;
	rt_yield();
	return 0;
}

static uint64_t sys_sleep_ticks(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	(void)a1, (void)a2, (void)a3;
	rt_thread_sleep_ticks(a0);
	return 0;
}

static uint64_t sys_thread_id(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct rt_thread *t = rt_thread_current();

	(void)a0, (void)a1, (void)a2, (void)a3;
	return t ? rt_thread_id(t) : 0;
}

static uint64_t sys_cpu_id(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	(void)a0, (void)a1, (void)a2, (void)a3;
	return (uint64_t)rt_cpu_id();
}

static rt_syscall_fn syscalls[RT_NR_SYSCALLS] = {
	[RT_SYS_YIELD] = sys_yield,
	[RT_SYS_SLEEP_TICKS] = sys_sleep_ticks,
	[RT_SYS_THREAD_ID] = sys_thread_id,
	[RT_SYS_CPU_ID] = sys_cpu_id,
};

int rt_syscall_register(unsigned int nr, rt_syscall_fn handler)
{
	if (nr >= RT_NR_SYSCALLS)
		return -22;
	__atomic_store_n(&syscalls[nr], handler, __ATOMIC_RELEASE);
	usermode_install_ud_hook();
	return 0;
}

bool syscall_dispatch(struct rt_frame *f)
{
	rt_syscall_fn fn;
	bool irq_on = f->rflags & RFLAGS_IF;

	if (f->rip != (uint64_t)rt_syscall_trap)
		return false;
	fn = f->rdi < RT_NR_SYSCALLS ? __atomic_load_n(&syscalls[f->rdi], __ATOMIC_ACQUIRE) : NULL;
	f->rip += 2;			/* past the UD2, onto the RET */
	if (!fn) {
		f->rax = RT_ENOSYS;
		return true;
	}
	if (irq_on)
		sti();
	f->rax = fn(f->rsi, f->rdx, f->rcx, f->r8);
	cli();
	return true;
}
