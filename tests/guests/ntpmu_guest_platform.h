/*
 * A minimal ntpmu platform (guest-shim/ntpmu/ntpmu_platform.h) for a
 * single-threaded guest on CPU 0: a fixed pool instead of an allocator
 * (g_fail_next_alloc makes the next allocation fail; a block is filled with
 * 0xa5 before it is zeroed to the size asked, so a caller relying on more
 * shows; g_pool_live() counts what is out), cli/sti around a spinlock, and
 * two static "threads" (thread_a is the
 * current one until the guest switches itself).  ntpmu-rt/platform_rt.c
 * is the full one.  Include once per guest; bind it with
 * ntpmu_init(&ntpmu_guest_ops, NULL).
 */
#ifndef NTPMU_GUEST_PLATFORM_H
#define NTPMU_GUEST_PLATFORM_H

#include <rt.h>
#include <rt/spinlock.h>

#include "nt/ntddk.h"
#include "ntpmu_platform.h"

#define POOL_SLOTS		8
#define POOL_SLOT_SIZE		1024

struct gthread {
	void *slot;
};

static struct gthread thread_a, thread_b;
static struct gthread *current = &thread_a;
static struct spinlock lock;
static _Alignas(64) uint8_t pool[POOL_SLOTS][POOL_SLOT_SIZE];
static bool pool_used[POOL_SLOTS];
static int g_fail_next_alloc;

static int g_rdmsr(void *ctx, uint32_t msr, uint64_t *val) { return rdmsr_safe(msr, val); }
static int g_wrmsr(void *ctx, uint32_t msr, uint64_t val) { return wrmsr_safe(msr, val); }
static int g_rdpmc(void *ctx, uint32_t ecx, uint64_t *val) { return rdpmc_safe(ecx, val); }
static uint64_t g_rdtsc(void *ctx) { return rdtsc(); }
static unsigned int g_nr_cpus(void *ctx) { return 1; }
static unsigned int g_cpu_id(void *ctx) { return 0; }
static void *g_current(void *ctx) { return current; }
static void *g_slot_get(void *ctx, void *t) { return ((struct gthread *)t)->slot; }
static void g_slot_set(void *ctx, void *t, void *v) { ((struct gthread *)t)->slot = v; }
static void *g_app(void *ctx, void *t) { return NULL; }
static int g_wait_reason(void *ctx, void *t) { return -1; }

static void g_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct cpuid_regs r = cpuid_count(leaf, subleaf);

	regs[0] = r.eax;
	regs[1] = r.ebx;
	regs[2] = r.ecx;
	regs[3] = r.edx;
}

static void g_run_on_cpu(void *ctx, unsigned int cpu, void (*fn)(void *), void *arg)
{
	fn(arg);
}

static void *g_zalloc(void *ctx, size_t size)
{
	if (g_fail_next_alloc) {
		g_fail_next_alloc = 0;
		return NULL;
	}
	for (int i = 0; i < POOL_SLOTS; i++) {
		if (!pool_used[i] && size <= POOL_SLOT_SIZE) {
			pool_used[i] = true;
			memset(pool[i], 0xa5, POOL_SLOT_SIZE);
			memset(pool[i], 0, size);
			return pool[i];
		}
	}
	return NULL;
}

static inline int g_pool_live(void)
{
	int n = 0;

	for (int i = 0; i < POOL_SLOTS; i++)
		n += pool_used[i];
	return n;
}

static void g_free(void *ctx, void *p)
{
	for (int i = 0; i < POOL_SLOTS; i++)
		if (p == pool[i])
			pool_used[i] = false;
}

static unsigned long g_lock(void *ctx)
{
	unsigned long flags = read_rflags();

	cli();
	spin_lock(&lock);
	return flags;
}

static void g_unlock(void *ctx, unsigned long flags)
{
	spin_unlock(&lock);
	if (flags & (1ul << 9))
		sti();
}

static void *g_from_handle(void *ctx, void *h)
{
	if (h == NtCurrentThread())
		return current;
	return h == &thread_a || h == &thread_b ? h : NULL;
}

static void g_user_rdpmc(void *ctx, bool on)
{
	write_cr4(on ? read_cr4() | CR4_PCE : read_cr4() & ~(uint64_t)CR4_PCE);
}

static const struct ntpmu_platform_ops ntpmu_guest_ops = {
	.rdmsr = g_rdmsr, .wrmsr = g_wrmsr, .rdpmc = g_rdpmc, .rdtsc = g_rdtsc,
	.cpuid = g_cpuid, .nr_cpus = g_nr_cpus, .cpu_id = g_cpu_id,
	.run_on_cpu = g_run_on_cpu, .zalloc = g_zalloc, .free = g_free,
	.lock = g_lock, .unlock = g_unlock, .current_thread = g_current,
	.thread_from_handle = g_from_handle, .thread_slot_get = g_slot_get,
	.thread_slot_set = g_slot_set, .thread_app = g_app,
	.thread_wait_reason = g_wait_reason, .set_user_rdpmc = g_user_rdpmc,
};

#endif
