/* SPDX-License-Identifier: MIT */
/*
 * The ntpmu platform on the guest runtime: real PMU MSRs, the scheduler's
 * switch hook, the runtime allocator, spinlock and per-thread slot.
 *
 * It is the one platform of every guest: a guest calls ntpmu_rt_init()
 * (ntpmu/ntpmu.h) after rt_smp_start() if it starts the APs, while the
 * other CPUs are idle, and before creating threads
 * (tests/guests/ntpmu_threads.c).  The runtime never frees a thread, so an
 * exited thread's profiling state stays until DisableThreadProfiling
 * (ntpmu_thread_exit() is not called).
 *
 * Choices here:
 *   - HANDLEs are NtCurrentThread() or a struct rt_thread pointer; the
 *     runtime has no handle table, so other pointers are trusted as threads.
 *   - All threads belong to one application (the runtime has no processes),
 *     so "one profiling application at a time" never refuses here.
 *   - rt_thread_wait_reason() is taken to return a KWAIT_REASON number, or
 *     a negative value for a thread that is still runnable.
 *   - The PMI is a fixed vector (NTPMU_RT_PMI_VECTOR) on every CPU; the
 *     LVT entry is re-armed after each PMI (hardware masks it on delivery).
 */
#include <rt.h>
#include <rt/alloc.h>
#include <rt/spinlock.h>
#include <rt/thread.h>

#include "nt/ntdef.h"
#include "ntpmu_rt.h"

#define NTPMU_RT_PMI_VECTOR	0xe1

static struct spinlock ntpmu_rt_lock;

static int rt_rdmsr(void *ctx, uint32_t msr, uint64_t *val)
{
	return rdmsr_safe(msr, val);
}

static int rt_wrmsr(void *ctx, uint32_t msr, uint64_t val)
{
	return wrmsr_safe(msr, val);
}

static int rt_rdpmc(void *ctx, uint32_t ecx, uint64_t *val)
{
	return rdpmc_safe(ecx, val);
}

static uint64_t rt_rdtsc(void *ctx)
{
	return rdtsc();
}

static void rt_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct cpuid_regs r = cpuid_count(leaf, subleaf);

	regs[0] = r.eax;
	regs[1] = r.ebx;
	regs[2] = r.ecx;
	regs[3] = r.edx;
}

/*
 * The CPUs online now, which rt_smp_start() brings up as 0..n-1: a guest
 * that never starts its APs (--cpus 2, the demo) has ntpmu on CPU 0 only,
 * where rt_run_on_cpu() to an offline AP would fail.
 */
static unsigned int rt_nr_cpus_op(void *ctx)
{
	unsigned int n = 0;

	while ((int)n < rt_nr_cpus() && rt_cpu_online((int)n))
		n++;
	return n;
}

static unsigned int rt_cpu_id_op(void *ctx)
{
	return (unsigned int)rt_cpu_id();
}

static void rt_run_on_cpu_op(void *ctx, unsigned int cpu, void (*fn)(void *), void *arg)
{
	rt_run_on_cpu((int)cpu, fn, arg);
}

/*
 * Zeroed to the size asked and 0xa5 beyond it, up to the chunk's end:
 * fresh heap memory is mostly zero, which would hide ntpmu relying on
 * bytes it did not ask for.
 */
static void *rt_zalloc_op(void *ctx, size_t size)
{
	uint8_t *p = rt_zalloc(size, 0);

	if (p)
		memset(p + size, 0xa5, rt_alloc_usable_size(p) - size);
	return p;
}

static void rt_free_op(void *ctx, void *p)
{
	rt_free(p);
}

static unsigned long rt_lock_op(void *ctx)
{
	return spin_lock_irqsave(&ntpmu_rt_lock);
}

static void rt_unlock_op(void *ctx, unsigned long flags)
{
	spin_unlock_irqrestore(&ntpmu_rt_lock, flags);
}

static void *rt_current_thread_op(void *ctx)
{
	return rt_thread_current();
}

static void *rt_thread_from_handle_op(void *ctx, void *handle)
{
	if (handle == NtCurrentThread())
		return rt_thread_current();
	return handle;
}

static void *rt_thread_slot_get_op(void *ctx, void *thread)
{
	return rt_thread_ntpmu(thread);
}

static void rt_thread_slot_set_op(void *ctx, void *thread, void *val)
{
	rt_thread_set_ntpmu(thread, val);
}

static void *rt_thread_app_op(void *ctx, void *thread)
{
	return NULL;
}

static int rt_thread_wait_reason_op(void *ctx, void *thread)
{
	return rt_thread_wait_reason(thread);
}

static void rt_set_user_rdpmc_op(void *ctx, bool enable)
{
	uint64_t cr4 = read_cr4();

	write_cr4(enable ? cr4 | CR4_PCE : cr4 & ~(uint64_t)CR4_PCE);
}

static uint32_t rt_thread_id_op(void *ctx, void *thread)
{
	return (uint32_t)rt_thread_id(thread);
}

/* The interrupted RIP of the PMI being handled, per CPU (read by the ETW sampler). */
static uint64_t pmi_rip[NTPMU_MAX_CPUS];

static uint64_t rt_pmi_ip_op(void *ctx)
{
	return pmi_rip[rt_cpu_id()];
}

static uint64_t tsc_hz;

static uint64_t rt_tsc_hz_op(void *ctx)
{
	return tsc_hz;
}

static const struct ntpmu_platform_ops ntpmu_rt_ops = {
	.rdmsr = rt_rdmsr,
	.wrmsr = rt_wrmsr,
	.rdpmc = rt_rdpmc,
	.rdtsc = rt_rdtsc,
	.cpuid = rt_cpuid,
	.nr_cpus = rt_nr_cpus_op,
	.cpu_id = rt_cpu_id_op,
	.run_on_cpu = rt_run_on_cpu_op,
	.zalloc = rt_zalloc_op,
	.free = rt_free_op,
	.lock = rt_lock_op,
	.unlock = rt_unlock_op,
	.current_thread = rt_current_thread_op,
	.thread_from_handle = rt_thread_from_handle_op,
	.thread_slot_get = rt_thread_slot_get_op,
	.thread_slot_set = rt_thread_slot_set_op,
	.thread_app = rt_thread_app_op,
	.thread_wait_reason = rt_thread_wait_reason_op,
	.set_user_rdpmc = rt_set_user_rdpmc_op,
	.thread_id = rt_thread_id_op,
	.pmi_ip = rt_pmi_ip_op,
	.tsc_hz = rt_tsc_hz_op,
};

static void switch_hook(struct rt_thread *prev, struct rt_thread *next)
{
	ntpmu_context_switch(prev, next);
	ntpmu_etw_context_switch(prev, next);
}

static void pmi_handler(struct rt_frame *f)
{
	pmi_rip[rt_cpu_id()] = f->rip;
	ntpmu_pmi();
	apic_write_lvtpc(NTPMU_RT_PMI_VECTOR);	/* undo the mask-on-delivery */
}

static void arm_lvtpc(void *arg)
{
	apic_write_lvtpc(NTPMU_RT_PMI_VECTOR);
}

void ntpmu_rt_init(void)
{
	/* Once, here: the pvclock area is one for all CPUs (pvclock.c). */
	tsc_hz = ntpmu_rt_pvclock_hz();
	ntpmu_init(&ntpmu_rt_ops, NULL);
	rt_set_irq_handler(NTPMU_RT_PMI_VECTOR, pmi_handler);
	rt_on_each_cpu(arm_lvtpc, NULL);
	rt_sched_set_switch_hook(switch_hook);
}
