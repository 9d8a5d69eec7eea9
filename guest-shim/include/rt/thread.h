/* SPDX-License-Identifier: MIT */
/*
 * Kernel threads with a preemptive round-robin scheduler per CPU, driven by
 * the local APIC timer in periodic mode (SDM vol. 3A 10.5.4).
 *
 * A thread stays on the CPU it was created for (no migration), so
 * rt_cpu_id() is stable inside a thread.  Each CPU keeps a FIFO run queue;
 * the tick (RT_SCHED_TICK_NS, about 4 ms: CPL0 code is emulated at ~3.5M
 * instr/s here, so the tick path is kept short) wakes sleepers whose
 * deadline passed and moves the running thread to the tail if another is
 * ready.  With nothing ready a CPU runs its idle thread ("sti; hlt").
 *
 * rt_sched_start() on a CPU turns the code calling it into a thread: on
 * the BSP that is main() ("main"), on an AP the idle loop.  It is implicit
 * in the first rt_thread_create() for a CPU (and in join, sleep and yield
 * on it); rt_sched_start_all() does it on every online CPU (after
 * rt_smp_start()).  An AP's scheduler is started through rt_run_on_cpu(),
 * so that AP must be idle then; the BSP's only by main() itself (main does
 * not serve cross-CPU work).  Threads start with interrupts enabled; main()
 * keeps what it had (off, unless it ran sti()), and with them off it is
 * switched away from only when it blocks or yields.  Code that must not be
 * preempted disables interrupts or holds an irqsave spinlock.
 *
 * Thread structs and stacks are never freed (a guest makes a bounded
 * number), so a joined thread can still be queried.
 */
#ifndef RT_THREAD_H
#define RT_THREAD_H

#include <stdint.h>

struct rt_thread;

#define RT_THREAD_STACK_SIZE	16384	/* kernel stack per thread */
#define RT_SCHED_TICK_NS	4000000u

/*
 * Wait reasons, numbered as Windows' KWAIT_REASON (wdm.h) for the two
 * waits the runtime has.  rt_thread_wait_reason() is the reason while the
 * thread is blocked (for @prev inside the switch hook: as it was when prev
 * left the CPU, even if another CPU wakes it meanwhile) and RT_WAIT_NONE
 * while it runs, is ready
 * or was preempted: Executive is 0, so 0 could not say "not waiting".
 * Read as an int, RT_WAIT_NONE is -1.  rt_thread_is_waiting() is the same
 * test as a boolean.
 */
#define RT_WAIT_EXECUTIVE		0	/* Executive: rt_thread_join() */
#define RT_WAIT_DELAY_EXECUTION		4	/* DelayExecution: sleep */
#define RT_WAIT_NONE			0xffffffffu

/* -1 for @cpu: the calling CPU.  NULL if out of memory or @cpu offline. */
struct rt_thread *rt_thread_create(void (*fn)(void *), void *arg, int cpu,
				   const char *name);
/*
 * A thread whose body runs at CPL3 (rt/usermode.h rules; system calls with
 * rt_syscall(), rt/syscall.h) on its own user stack; the kernel side is an
 * ordinary thread, so the timer preempts it like any other.  fn's return
 * value is rt_thread_result() after the join.
 */
struct rt_thread *rt_thread_create_user(uint64_t (*fn)(uint64_t), uint64_t arg,
					int cpu, const char *name);
/* Blocks (RT_WAIT_EXECUTIVE) until @t exited; one joiner per thread. */
void rt_thread_join(struct rt_thread *t);
__attribute__((noreturn)) void rt_thread_exit(void);
uint64_t rt_thread_result(const struct rt_thread *t);

struct rt_thread *rt_thread_current(void);	/* NULL before rt_sched_start() */
uint64_t rt_thread_id(const struct rt_thread *t);	/* 1, 2, ... unique */
const char *rt_thread_name(const struct rt_thread *t);
int rt_thread_cpu(const struct rt_thread *t);
void rt_yield(void);
/* Block for at least @tsc_ticks TSC ticks; others run meanwhile. */
void rt_thread_sleep_ticks(uint64_t tsc_ticks);

/* Times the thread was switched in (its first start included). */
uint32_t rt_thread_context_switches(const struct rt_thread *t);
/*
 * TSC ticks the thread ran; its current stint is included when it is the
 * caller, or runs on the caller's CPU (not when it runs on another).
 */
uint64_t rt_thread_cycle_time(const struct rt_thread *t);
uint32_t rt_thread_wait_reason(const struct rt_thread *t);
int rt_thread_is_waiting(const struct rt_thread *t);

/* Slot for the ntpmu library's per-thread state; NULL at creation. */
void *rt_thread_ntpmu(struct rt_thread *t);
void rt_thread_set_ntpmu(struct rt_thread *t, void *p);

/*
 * Called on the CPU, interrupts disabled, at every switch from @prev to
 * @next (prev != next), before @next's registers are loaded; @prev is
 * still rt_thread_current().  NULL removes it.  Must not block.
 */
typedef void (*rt_switch_hook_t)(struct rt_thread *prev, struct rt_thread *next);
void rt_sched_set_switch_hook(rt_switch_hook_t hook);

void rt_sched_start(void);		/* this CPU; again is a no-op */
void rt_sched_start_all(void);		/* every online CPU */
uint64_t rt_sched_ticks(int cpu);	/* timer ticks taken on @cpu */

#endif
