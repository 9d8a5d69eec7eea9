/* SPDX-License-Identifier: MIT */
/*
 * Test-and-set spinlock that remembers its owner, so the fatal-exception
 * path can tell "I hold it" (break it) from "another CPU holds it" (wait).
 */
#ifndef RT_SPINLOCK_H
#define RT_SPINLOCK_H

#include <rt/smp.h>
#include <rt/x86.h>

struct spinlock {
	volatile int locked;
	volatile int owner;	/* cpu id + 1, 0 when free */
};

static inline void spin_lock(struct spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (l->locked)
			cpu_relax();
	l->owner = rt_cpu_id() + 1;
}

static inline void spin_unlock(struct spinlock *l)
{
	l->owner = 0;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/*
 * For locks also taken from interrupt handlers (or by the scheduler's tick):
 * interrupts stay off while held, so the holder can be neither preempted nor
 * interrupted by a handler that wants the same lock.  Returns the caller's
 * RFLAGS for spin_unlock_irqrestore().  A lock taken this way anywhere must
 * not be held by preemptible code (plain spin_lock() with interrupts on, or
 * CPL3) on the same CPU: the irqsave waiter would spin forever, since the
 * tick that would run the holder again cannot come.
 */
static inline uint64_t spin_lock_irqsave(struct spinlock *l)
{
	uint64_t flags = read_rflags();

	cli();
	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags)
{
	spin_unlock(l);
	if (flags & RFLAGS_IF)
		sti();
}

/* Interrupt state save/restore without a lock. */
static inline uint64_t local_irq_save(void)
{
	uint64_t flags = read_rflags();

	cli();
	return flags;
}

static inline void local_irq_restore(uint64_t flags)
{
	if (flags & RFLAGS_IF)
		sti();
}

static inline int spin_is_mine(const struct spinlock *l)
{
	return l->locked && l->owner == rt_cpu_id() + 1;
}

#endif
