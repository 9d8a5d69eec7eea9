/* SPDX-License-Identifier: MIT */
/*
 * The per-CPU scheduler (rt/thread.h): run queue, the switch, the timer
 * tick and sleeping.  Everything here runs with interrupts off; the run
 * queue lock is only for other CPUs that wake a thread of this one.
 *
 * The tick handler sends its EOI first (rt_irq_eoi) because it may switch
 * away and the next thread must be able to take the next tick.
 */
#include <stdint.h>
#include <rt/apic.h>
#include <rt/alloc.h>
#include <rt/idt.h>
#include <rt/layout.h>
#include <rt/smp.h>
#include <rt/panic.h>
#include <rt/string.h>
#include <rt/x86.h>
#include <x86-pmu/msr.h>
#include "sched.h"

/* LVT timer mode, bits 18:17 (SDM figure 10-8) */
#define LVTT_PERIODIC	(1u << 17)
/* Divide configuration 1011b: divide by 1 (SDM figure 10-10). */
#define TDCR_DIV1	0xb
/*
 * KVM's and QEMU's emulated APIC timers count at 1 GHz (one count per
 * nanosecond at divide-by-1), so the initial count is the period in ns.
 */
#define TICK_COUNT	RT_SCHED_TICK_NS

static struct rt_sched_cpu sched_cpus[RT_MAX_CPUS];
static rt_switch_hook_t switch_hook;
static struct spinlock join_lock;

void rt_sched_set_switch_hook(rt_switch_hook_t hook)
{
	__atomic_store_n(&switch_hook, hook, __ATOMIC_RELEASE);
}

static void rq_add(struct rt_sched_cpu *s, struct rt_thread *t)
{
	if (t->on_rq || t->is_idle)
		return;
	t->on_rq = true;
	t->rq_next = NULL;
	if (s->tail)
		s->tail->rq_next = t;
	else
		s->head = t;
	s->tail = t;
}

static struct rt_thread *rq_pop(struct rt_sched_cpu *s)
{
	struct rt_thread *t = s->head;

	if (!t)
		return NULL;
	s->head = t->rq_next;
	if (!s->head)
		s->tail = NULL;
	t->on_rq = false;
	return t;
}

/* A dead thread is done once its last switch (and the hook) is over. */
static void finish_dead(struct rt_thread *t)
{
	struct rt_thread *j;

	spin_lock(&join_lock);
	t->done = 1;
	j = t->joiner;
	spin_unlock(&join_lock);
	if (j)
		sched_wake(j);
}

static void switch_to(struct rt_cpu *c, struct rt_thread *prev, struct rt_thread *next)
{
	uint64_t now = rdtsc();
	rt_switch_hook_t hook = __atomic_load_n(&switch_hook, __ATOMIC_ACQUIRE);

	prev->cycles += now - prev->run_start;
	next->run_start = now;
	next->switches++;
	if (hook) {
		c->sched->hook_prev = prev;
		hook(prev, next);
		c->sched->hook_prev = NULL;
	}
	usermode_switch(&prev->uctx, &next->uctx);
	c->current = next;
	if (prev->state == T_DEAD)
		finish_dead(prev);
	sched_switch(&prev->rsp, next->rsp);
}

void schedule(void)
{
	struct rt_cpu *c = rt_this_cpu();
	struct rt_sched_cpu *s = c->sched;
	struct rt_thread *prev = c->current, *next;

	spin_lock(&s->lock);
	if (prev->state == T_RUNNING) {
		prev->state = T_READY;
		rq_add(s, prev);
	}
	/* a remote wake may make prev ready while the hook runs: freeze */
	prev->out_reason = prev->state == T_BLOCKED ? prev->wait_reason : RT_WAIT_NONE;
	next = rq_pop(s);
	if (!next)
		next = s->idle;
	next->state = T_RUNNING;
	spin_unlock(&s->lock);
	if (next != prev)
		switch_to(c, prev, next);
}

void sched_wake(struct rt_thread *t)
{
	struct rt_cpu *c = rt_cpu(t->cpu);
	struct rt_sched_cpu *s = c->sched;
	uint64_t flags = spin_lock_irqsave(&s->lock);
	bool woke = false;

	if (t->state == T_BLOCKED) {
		t->state = T_READY;
		rq_add(s, t);
		woke = true;
	}
	spin_unlock(&s->lock);
	/* an idle CPU sleeps in hlt until an interrupt: send one */
	if (woke && t->cpu != rt_cpu_id())
		apic_send_ipi(c->apic_id, APIC_ICR_DM_FIXED | RT_VEC_WAKEUP);
	local_irq_restore(flags);
}

static void wake_sleepers(struct rt_sched_cpu *s)
{
	struct rt_thread **pp = &s->sleepers, *t;
	uint64_t now = rdtsc();

	while ((t = *pp)) {
		if ((int64_t)(now - t->wake_tsc) >= 0) {
			*pp = t->sleep_next;
			sched_wake(t);
		} else {
			pp = &t->sleep_next;
		}
	}
}

static void tick(struct rt_frame *f)
{
	struct rt_sched_cpu *s = rt_this_cpu()->sched;

	rt_irq_eoi(f);
	if (!s)
		return;
	s->ticks++;
	if (s->sleepers)
		wake_sleepers(s);
	if (s->head)
		schedule();
}

bool sched_idle_poll(void)
{
	struct rt_sched_cpu *s = rt_this_cpu()->sched;

	if (!s || !s->head)
		return false;
	schedule();
	return true;
}

static struct rt_thread *thread_alloc(const char *name, int cpu)
{
	static uint64_t next_id;
	struct rt_thread *t = rt_zalloc(sizeof(*t), 16);

	if (!t)
		return NULL;
	t->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	if (name)
		memcpy(t->name, name, strnlen(name, sizeof(t->name) - 1));
	t->cpu = cpu;
	t->wait_reason = RT_WAIT_EXECUTIVE;
	return t;
}

/*
 * Lay out a new stack as sched_switch() leaves one: R15..R12, RBX, RBP,
 * RFLAGS (IF = 0: the switch happens with interrupts off), return address.
 */
struct rt_thread *sched_thread_new(void (*fn)(void *), void *arg, int cpu, const char *name)
{
	struct rt_thread *t = thread_alloc(name, cpu);
	uint64_t *sp;

	if (!t)
		return NULL;
	t->stack = rt_alloc(RT_THREAD_STACK_SIZE, 16);
	if (!t->stack) {
		rt_free(t);
		return NULL;
	}
	sp = (uint64_t *)((char *)t->stack + RT_THREAD_STACK_SIZE);
	*--sp = 0;
	*--sp = (uint64_t)sched_thread_start;
	*--sp = 0x2;			/* RFLAGS */
	*--sp = 0;			/* RBP */
	*--sp = (uint64_t)fn;		/* RBX */
	*--sp = (uint64_t)arg;		/* R12 */
	*--sp = 0;			/* R13 */
	*--sp = 0;			/* R14 */
	*--sp = 0;			/* R15 */
	t->rsp = (uint64_t)sp;
	t->state = T_BLOCKED;		/* sched_wake() makes it ready */
	return t;
}

static void idle_body(void *arg)
{
	(void)arg;
	cpu_idle_loop();
}

static void timer_start(void)
{
	rt_set_irq_handler(RT_VEC_TIMER, tick);
	apic_write(APIC_TDCR, TDCR_DIV1);
	apic_write(APIC_LVTT, RT_VEC_TIMER | LVTT_PERIODIC);
	apic_write(APIC_TMICT, TICK_COUNT);
}

/*
 * The caller becomes a thread: "main" on the BSP; on an AP the idle loop
 * (rt_sched_start runs there as rt_run_on_cpu() work), which then also is
 * the idle thread.  The BSP gets an idle thread of its own.
 */
void rt_sched_start(void)
{
	uint64_t flags = local_irq_save();
	struct rt_cpu *c = rt_this_cpu();
	struct rt_sched_cpu *s = &sched_cpus[c->id];
	struct rt_thread *boot;

	if (c->sched)
		goto out;
	boot = thread_alloc(c->id == 0 ? "main" : "idle", c->id);
	if (!boot)
		rt_panic("cpu %d: no memory for its boot thread", c->id);
	boot->state = T_RUNNING;
	boot->is_boot = true;
	boot->switches = 1;
	boot->run_start = rdtsc();
	if (c->id == 0) {
		s->idle = sched_thread_new(idle_body, NULL, 0, "idle");
		if (!s->idle)
			rt_panic("cpu 0: no memory for its idle thread");
		s->idle->state = T_READY;
	} else {
		s->idle = boot;
	}
	s->idle->is_idle = true;
	c->current = boot;
	__atomic_store_n(&c->sched, s, __ATOMIC_RELEASE);
	timer_start();
out:
	local_irq_restore(flags);
}

static void sched_start_fn(void *arg)
{
	(void)arg;
	rt_sched_start();
}

void rt_sched_start_all(void)
{
	for (int i = 0; i < rt_nr_cpus(); i++)
		if (rt_cpu_online(i) && !rt_cpu(i)->sched)
			rt_run_on_cpu(i, sched_start_fn, NULL);
}

void sched_start_on(int cpu)
{
	if (!rt_cpu(cpu)->sched)
		rt_run_on_cpu(cpu, sched_start_fn, NULL);
}

void sched_ensure_started(void)
{
	if (!rt_this_cpu()->sched)
		rt_sched_start();
}

uint64_t rt_sched_ticks(int cpu)
{
	struct rt_cpu *c = rt_cpu(cpu);

	return c && c->sched ? c->sched->ticks : 0;
}

void rt_yield(void)
{
	uint64_t flags;

	sched_ensure_started();
	flags = local_irq_save();
	schedule();
	local_irq_restore(flags);
}

static void block_current(struct rt_thread *me, uint32_t reason)
{
	struct rt_sched_cpu *s = rt_this_cpu()->sched;

	spin_lock(&s->lock);
	me->state = T_BLOCKED;
	me->wait_reason = reason;
	spin_unlock(&s->lock);
}

void rt_thread_sleep_ticks(uint64_t tsc_ticks)
{
	struct rt_sched_cpu *s;
	struct rt_thread *me;
	uint64_t flags;

	sched_ensure_started();
	flags = local_irq_save();
	s = rt_this_cpu()->sched;
	me = rt_this_cpu()->current;
	if (me->is_idle)
		rt_panic("the idle thread may not sleep");
	me->wake_tsc = rdtsc() + tsc_ticks;
	block_current(me, RT_WAIT_DELAY_EXECUTION);
	me->sleep_next = s->sleepers;
	s->sleepers = me;
	schedule();
	local_irq_restore(flags);
}

void rt_thread_join(struct rt_thread *t)
{
	struct rt_thread *me;
	uint64_t flags;

	sched_ensure_started();
	flags = local_irq_save();
	me = rt_this_cpu()->current;
	if (t == me || me->is_idle)
		rt_panic("thread %lu joins %s", me->id, t == me ? "itself" : "from the idle thread");
	for (;;) {
		spin_lock(&join_lock);
		if (t->done) {
			spin_unlock(&join_lock);
			break;
		}
		if (t->joiner && t->joiner != me)
			rt_panic("thread %lu joined by %lu and %lu", t->id, t->joiner->id, me->id);
		t->joiner = me;
		block_current(me, RT_WAIT_EXECUTIVE);
		spin_unlock(&join_lock);
		schedule();
	}
	local_irq_restore(flags);
}

void rt_thread_exit(void)
{
	struct rt_thread *me;

	cli();
	me = rt_this_cpu()->current;
	if (me->is_boot || me->is_idle)
		rt_panic("rt_thread_exit() from %s", me->is_idle ? "an idle thread" : "main");
	me->state = T_DEAD;
	schedule();
	rt_panic("dead thread %lu ran again", me->id);
}
