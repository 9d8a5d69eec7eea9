/* SPDX-License-Identifier: MIT */
/*
 * Thread creation and the accessors of rt/thread.h; the scheduler proper
 * is in sched.c.
 */
#include <stdint.h>
#include <rt/alloc.h>
#include <rt/smp.h>
#include <rt/usermode.h>
#include <rt/x86.h>
#include "sched.h"

static struct rt_thread *thread_start(struct rt_thread *t)
{
	sched_start_on(t->cpu);
	sched_wake(t);
	return t;
}

/* -1 means this CPU; NULL for a CPU that is not online. */
static struct rt_thread *thread_new(void (*fn)(void *), void *arg, int cpu, const char *name)
{
	if (cpu < 0)
		cpu = rt_cpu_id();
	if (!rt_cpu_online(cpu))
		return NULL;
	return sched_thread_new(fn, arg, cpu, name);
}

struct rt_thread *rt_thread_create(void (*fn)(void *), void *arg, int cpu, const char *name)
{
	struct rt_thread *t = thread_new(fn, arg, cpu, name);

	return t ? thread_start(t) : NULL;
}

static void user_thread_body(void *arg)
{
	struct rt_thread *t = arg;

	t->result = usermode_run(t->user_fn, t->user_arg,
				 (char *)t->user_stack + RT_USER_STACK_SIZE);
}

struct rt_thread *rt_thread_create_user(uint64_t (*fn)(uint64_t), uint64_t arg, int cpu,
					const char *name)
{
	struct rt_thread *t = thread_new(user_thread_body, NULL, cpu, name);

	if (!t)
		return NULL;
	t->user_stack = rt_alloc(RT_USER_STACK_SIZE, 16);
	if (!t->user_stack) {
		rt_free(t->stack);
		rt_free(t);
		return NULL;
	}
	t->user_fn = fn;
	t->user_arg = arg;
	/* R12 of the initial frame is the body's argument (switch.S) */
	((uint64_t *)t->rsp)[3] = (uint64_t)t;
	return thread_start(t);
}

uint64_t rt_thread_result(const struct rt_thread *t)
{
	return t->result;
}

struct rt_thread *rt_thread_current(void)
{
	return rt_this_cpu()->current;
}

uint64_t rt_thread_id(const struct rt_thread *t)
{
	return t->id;
}

const char *rt_thread_name(const struct rt_thread *t)
{
	return t->name;
}

int rt_thread_cpu(const struct rt_thread *t)
{
	return t->cpu;
}

uint32_t rt_thread_context_switches(const struct rt_thread *t)
{
	return __atomic_load_n(&t->switches, __ATOMIC_RELAXED);
}

uint64_t rt_thread_cycle_time(const struct rt_thread *t)
{
	uint64_t flags = local_irq_save();
	uint64_t c = t->cycles;

	if (t == rt_this_cpu()->current)
		c += rdtsc() - t->run_start;
	local_irq_restore(flags);
	return c;
}

/* Inside the switch hook, prev reads as it was when it left the CPU. */
static bool in_hook_as_prev(const struct rt_thread *t)
{
	struct rt_sched_cpu *s = rt_this_cpu()->sched;

	return s && s->hook_prev == t;
}

uint32_t rt_thread_wait_reason(const struct rt_thread *t)
{
	if (in_hook_as_prev(t))
		return t->out_reason;
	return t->state == T_BLOCKED ? t->wait_reason : RT_WAIT_NONE;
}

int rt_thread_is_waiting(const struct rt_thread *t)
{
	return rt_thread_wait_reason(t) != RT_WAIT_NONE;
}

void *rt_thread_ntpmu(struct rt_thread *t)
{
	return t->ntpmu;
}

void rt_thread_set_ntpmu(struct rt_thread *t, void *p)
{
	t->ntpmu = p;
}
