/* SPDX-License-Identifier: MIT */
/*
 * Thread profiling, kernel side (docs/windows-api.md 3.3, 3.4): enable, disable and query,
 * and the context-switch hook that keeps each profiled thread's counter and
 * cycle readings in its THREAD_PERFORMANCE_DATA block.
 *
 * The configured counters run free on every processor (the driver that set
 * the configuration programs them).  A profiled thread's block holds, per
 * counter, Start = the counter when the thread was last switched in and
 * Total = what it counted before; the user-mode reader adds RDPMC - Start
 * (ntpmu_read.c), so another thread's events never land in its totals.
 * Only the thread itself and the switch hook on the CPU it runs on touch a
 * block, so the hook needs no lock; UpdateCount changes on every update so
 * a reader that was preempted retries.
 *
 * Choices where Windows' kernel-side statuses are unconfirmed (docs/windows-api.md 8.1):
 * a handle naming no thread is STATUS_INVALID_HANDLE; another thread than
 * the caller is STATUS_INVALID_PARAMETER_1 (a thread profiles only itself);
 * enabling twice, or while a thread of another application profiles ("one
 * profiling application at a time"), is STATUS_WMI_ALREADY_ENABLED; disable
 * with a handle that is not the caller's block is STATUS_INVALID_HANDLE.
 * The ntdll checks and the heap allocation come first, as in docs/windows-api.md 3.4.
 */
#include "ntpmu_internal.h"

static struct ntpmu_thread *profile_of(void *thread)
{
	return ntpmu.ops->thread_slot_get(ntpmu.ctx, thread);
}

static void set_profile(void *thread, struct ntpmu_thread *t)
{
	ntpmu.ops->thread_slot_set(ntpmu.ctx, thread, t);
}

struct ntpmu_thread *ntpmu_current_profile(void)
{
	void *thread = ntpmu.ops->current_thread(ntpmu.ctx);

	return thread ? profile_of(thread) : NULL;
}

static uint64_t read_pmc(ULONG index)
{
	uint64_t v = 0;

	ntpmu.ops->rdpmc(ntpmu.ctx, index, &v);
	return v;
}

static void set_user_rdpmc(bool on)
{
	struct ntpmu_cpu_state *cs = &ntpmu.cpu[ntpmu.ops->cpu_id(ntpmu.ctx)];

	if (cs->user_rdpmc == on)
		return;
	cs->user_rdpmc = on;
	ntpmu.ops->set_user_rdpmc(ntpmu.ctx, on);
}

/* The thread starts running on this CPU: take the Start readings. */
static void start_readings(struct ntpmu_thread *t)
{
	THREAD_PERFORMANCE_DATA *b = &t->blk;
	unsigned int i;

	for (i = 0; i < MAX_HW_COUNTERS; i++)
		if (t->active >> i & 1)
			b->HwCounters[i].Start = read_pmc(b->HwCounters[i].Index);
	b->CycleTime.Start = ntpmu.ops->rdtsc(ntpmu.ctx);
	b->ProcessorNumber.Number = (UCHAR)ntpmu.ops->cpu_id(ntpmu.ctx);
	__atomic_add_fetch(&b->UpdateCount, 1, __ATOMIC_RELEASE);
}

static void switch_in(struct ntpmu_thread *t)
{
	if (t->flags & THREAD_PROFILING_FLAG_DISPATCH)
		t->blk.ContextSwitches++;
	start_readings(t);
}

static void switch_out(struct ntpmu_thread *t)
{
	THREAD_PERFORMANCE_DATA *b = &t->blk;
	unsigned int i;

	for (i = 0; i < MAX_HW_COUNTERS; i++) {
		if (t->active >> i & 1) {
			COUNTER_READING *r = &b->HwCounters[i];

			r->Total += (read_pmc(r->Index) - r->Start) & t->width_mask[i];
		}
	}
	b->CycleTime.Total += ntpmu.ops->rdtsc(ntpmu.ctx) - b->CycleTime.Start;
	if (t->flags & THREAD_PROFILING_FLAG_DISPATCH) {
		int reason = ntpmu.ops->thread_wait_reason(ntpmu.ctx, t->thread);

		if (reason >= 0 && reason < 64)
			__atomic_or_fetch(&b->WaitReasonBitMap, 1ULL << reason,
					  __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&b->UpdateCount, 1, __ATOMIC_RELEASE);
}

void ntpmu_context_switch(void *prev, void *next)
{
	struct ntpmu_thread *p = prev ? profile_of(prev) : NULL;
	struct ntpmu_thread *n = next ? profile_of(next) : NULL;

	if (p)
		switch_out(p);
	if (n)
		switch_in(n);
	set_user_rdpmc(n && n->active);
}

/* The block Windows' ntdll allocates and the kernel fills (docs/windows-api.md 3.4). */
static void fill_block(struct ntpmu_thread *t, ULONG flags, ULONG64 counters)
{
	THREAD_PERFORMANCE_DATA *b = &t->blk;
	uint64_t absent = 0;
	ULONG i;

	b->Size = sizeof(*b);
	b->Version = 1;
	b->HardwareCounters = counters;
	t->flags = flags;
	b->HwCountersCount = ntpmu.config_count;
	for (i = 0; i < ntpmu.config_count; i++) {
		int bit = ntpmu_counter_bit(ntpmu.config_index[i]);

		b->HwCounters[i].Type = PMCCounter;
		b->HwCounters[i].Index = ntpmu.config_index[i];
		/* A counter this PMU lacks is never read: it stays 0. */
		if (bit < 0)
			absent |= 1ULL << i;
		if (bit < 0 || !(counters >> i & 1))
			continue;
		t->active |= 1ULL << i;
		t->width_mask[i] = bit >= NTPMU_FIXED_BIT ? ntpmu.fixed_mask : ntpmu.gp_mask;
	}
	b->HardwareCounters &= ~absent;
}

static NTSTATUS install(struct ntpmu_thread *t, void *thread, ULONG flags, ULONG64 counters)
{
	void *app = ntpmu.ops->thread_app(ntpmu.ctx, thread);

	if (profile_of(thread))
		return STATUS_WMI_ALREADY_ENABLED;
	if (ntpmu.nr_profiled && ntpmu.profile_app != app)
		return STATUS_WMI_ALREADY_ENABLED;
	t->thread = thread;
	fill_block(t, flags, counters);
	t->next = ntpmu.profiled;
	ntpmu.profiled = t;
	ntpmu.nr_profiled++;
	ntpmu.profile_app = app;
	set_profile(thread, t);
	start_readings(t);
	set_user_rdpmc(t->active != 0);
	return STATUS_SUCCESS;
}

NTSTATUS NTAPI RtlEnableThreadProfiling(HANDLE ThreadHandle, ULONG Flags, ULONG64 HardwareCounters,
					PVOID *PerformanceDataHandle)
{
	struct ntpmu_thread *t;
	void *thread;
	unsigned long irq;
	NTSTATUS st;

	if (Flags & ~(ULONG)THREAD_PROFILING_FLAG_DISPATCH)
		return STATUS_INVALID_PARAMETER_2;
	if (HardwareCounters & ~0xFFFFULL)
		return STATUS_INVALID_PARAMETER_3;
	if (!PerformanceDataHandle)
		return STATUS_INVALID_PARAMETER_4;
	t = ntpmu.ops->zalloc(ntpmu.ctx, sizeof(*t));
	if (!t)
		return STATUS_NO_MEMORY;

	thread = ntpmu.ops->thread_from_handle(ntpmu.ctx, ThreadHandle);
	irq = ntpmu_lock();
	if (!thread)
		st = STATUS_INVALID_HANDLE;
	else if (thread != ntpmu.ops->current_thread(ntpmu.ctx))
		st = STATUS_INVALID_PARAMETER_1;
	else
		st = install(t, thread, Flags, HardwareCounters);
	ntpmu_unlock(irq);
	if (st != STATUS_SUCCESS) {
		ntpmu.ops->free(ntpmu.ctx, t);
		return st;
	}
	*PerformanceDataHandle = &t->blk;
	return STATUS_SUCCESS;
}

/* Under the lock: forget t (its slot, the list, the application). */
static void uninstall(struct ntpmu_thread *t)
{
	struct ntpmu_thread **pp;

	for (pp = &ntpmu.profiled; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	set_profile(t->thread, NULL);
	if (--ntpmu.nr_profiled == 0)
		ntpmu.profile_app = NULL;
}

NTSTATUS NTAPI RtlDisableThreadProfiling(PVOID PerformanceDataHandle)
{
	void *thread = ntpmu.ops->current_thread(ntpmu.ctx);
	struct ntpmu_thread *t;
	unsigned long irq;

	irq = ntpmu_lock();
	t = thread ? profile_of(thread) : NULL;
	if (!t || PerformanceDataHandle != &t->blk) {
		ntpmu_unlock(irq);
		return STATUS_INVALID_HANDLE;
	}
	uninstall(t);
	set_user_rdpmc(false);
	ntpmu_unlock(irq);
	ntpmu.ops->free(ntpmu.ctx, t);
	return STATUS_SUCCESS;
}

NTSTATUS NTAPI RtlQueryThreadProfiling(HANDLE ThreadHandle, PBOOLEAN Enabled)
{
	void *thread;

	if (!Enabled)
		return STATUS_INVALID_PARAMETER_2;
	thread = ntpmu.ops->thread_from_handle(ntpmu.ctx, ThreadHandle);
	if (!thread)
		return STATUS_INVALID_HANDLE;
	*Enabled = profile_of(thread) ? TRUE : FALSE;
	return STATUS_SUCCESS;
}

/* After the thread's last switch-out; it did not call DisableThreadProfiling. */
void ntpmu_thread_exit(void *thread)
{
	struct ntpmu_thread *t;
	unsigned long irq;

	if (!ntpmu.ops)
		return;
	irq = ntpmu_lock();
	t = profile_of(thread);
	if (t)
		uninstall(t);
	ntpmu_unlock(irq);
	if (t)
		ntpmu.ops->free(ntpmu.ctx, t);
}

void ntpmu_thread_reset(void)
{
	while (ntpmu.profiled) {
		struct ntpmu_thread *t = ntpmu.profiled;

		uninstall(t);
		ntpmu.ops->free(ntpmu.ctx, t);
	}
}
