/* SPDX-License-Identifier: MIT */
/* Scheduler internals shared by sched.c, thread.c, smp.c and usermode.c. */
#ifndef RT_SCHED_INTERNAL_H
#define RT_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <rt/spinlock.h>
#include <rt/thread.h>

struct rt_frame;

enum thread_state { T_READY, T_RUNNING, T_BLOCKED, T_DEAD };

/* What rt_enter_user() left in the per-CPU TSS.RSP0 / rt_user_ksp[cpu]. */
struct user_ctx {
	uint64_t rsp0, ksp;
};

struct rt_thread {
	uint64_t rsp;			/* saved by sched_switch */
	uint64_t id;
	char name[24];
	int cpu;
	volatile int state;		/* enum thread_state, under the rq lock */
	bool on_rq, is_idle, is_boot;
	struct rt_thread *rq_next;
	struct rt_thread *sleep_next;
	uint64_t wake_tsc;
	/* accounting (rt/thread.h) */
	uint32_t switches;
	uint32_t wait_reason;
	uint32_t out_reason;		/* frozen at switch-out for the hook */
	uint64_t cycles;
	uint64_t run_start;
	void *ntpmu;
	/* join */
	volatile int done;
	struct rt_thread *joiner;
	/* body */
	void *stack;
	uint64_t (*user_fn)(uint64_t);
	uint64_t user_arg;
	uint64_t result;
	void *user_stack;		/* RT_USER_STACK_SIZE, lazily */
	struct user_ctx uctx;
};

struct rt_sched_cpu {
	struct spinlock lock;		/* run queue; remote CPUs enqueue too */
	struct rt_thread *head, *tail;
	struct rt_thread *idle;
	struct rt_thread *sleepers;	/* this CPU only, interrupts off */
	struct rt_thread *hook_prev;	/* prev while the switch hook runs */
	uint64_t ticks;
};

void sched_switch(uint64_t *prev_rsp, uint64_t next_rsp);	/* switch.S */
extern char sched_thread_start[];

void schedule(void);			/* interrupts off */
void sched_wake(struct rt_thread *t);	/* BLOCKED -> READY, any CPU */
void sched_ensure_started(void);
void sched_start_on(int cpu);		/* rt_sched_start() there, if not yet */
struct rt_thread *sched_thread_new(void (*fn)(void *), void *arg, int cpu, const char *name);
bool sched_idle_poll(void);		/* idle loop, interrupts off */
__attribute__((noreturn)) void cpu_idle_loop(void);	/* smp.c */
bool smp_run_pending_work(void);	/* smp.c, interrupts off */

/* usermode.c */
void usermode_switch(struct user_ctx *prev, const struct user_ctx *next);
uint64_t usermode_run(uint64_t (*fn)(uint64_t), uint64_t arg, void *stack_top);
void usermode_install_ud_hook(void);
bool syscall_dispatch(struct rt_frame *f);	/* syscall.c, from the #UD hook */

#endif
