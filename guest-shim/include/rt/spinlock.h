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

static inline int spin_is_mine(const struct spinlock *l)
{
	return l->locked && l->owner == rt_cpu_id() + 1;
}

#endif
