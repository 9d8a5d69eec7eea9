/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU data, AP start-up and cross-CPU calls (interface in rt/smp.h).
 *
 * AP start-up follows the universal algorithm of SDM 8.4.4.1 with the
 * delays dropped: INIT, STARTUP, STARTUP to each AP.  KVM and QEMU act on
 * the IPIs at once, and a second STARTUP that finds the AP already running
 * is ignored (SDM 8.4.4.1, 10.6.1).  All APs boot in parallel; the path
 * from reset to C is ~40 emulated instructions (trampoline.S, boot.S).
 */
#include <stdbool.h>
#include <stdint.h>
#include <rt/alloc.h>
#include <rt/apic.h>
#include <rt/exit.h>
#include <rt/fwcfg.h>
#include <rt/idt.h>
#include <rt/layout.h>
#include <rt/panic.h>
#include <rt/printf.h>
#include <rt/ucall.h>
#include <rt/smp.h>
#include <rt/spinlock.h>
#include <rt/string.h>
#include <rt/usermode.h>
#include <rt/x86.h>
#include "internal.h"
#include "sched.h"

#define SMP_TIMEOUT_TSC	10000000000ull	/* 2.5-5 s at 2-4 GHz TSC rates */

static struct rt_cpu cpus[RT_MAX_CPUS];
static int nr_cpus = 1;
uint64_t rt_ap_stack_top[RT_MAX_CPUS];	/* boot.S */
/* one cross-CPU call at a time: each CPU has a single work slot */
static struct spinlock oncpu_lock;

extern const char tramp_start[], tramp_end[];

struct rt_cpu *rt_cpu(int cpu)
{
	return cpu >= 0 && cpu < RT_MAX_CPUS ? &cpus[cpu] : NULL;
}

int rt_nr_cpus(void)
{
	return nr_cpus;
}

bool rt_cpu_online(int cpu)
{
	return cpu >= 0 && cpu < nr_cpus && cpus[cpu].online;
}

/* IA32_GS_BASE -> this CPU's struct, so %gs:off reads a per-CPU field. */
static void percpu_init(int cpu)
{
	struct rt_cpu *c = &cpus[cpu];

	c->self = c;
	c->id = cpu;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
}

/* Run the work posted to this CPU, if any (interrupts off). */
bool smp_run_pending_work(void)
{
	struct rt_cpu *c = rt_this_cpu();
	void (*fn)(void *) = __atomic_exchange_n(&c->work_fn, NULL, __ATOMIC_ACQUIRE);

	if (!fn)
		return false;
	fn(c->work_arg);
	__atomic_store_n(&c->work_done, 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * Without a scheduler the point is to leave hlt; the idle loop does the
 * rest.  With one, the CPU may be busy in a thread that never returns to
 * the idle loop, so run the work here (after the EOI: it may run long).
 */
static void wakeup_irq(struct rt_frame *f)
{
	if (!rt_this_cpu()->sched)
		return;
	rt_irq_eoi(f);
	smp_run_pending_work();
}

void smp_init_bsp(void)
{
	percpu_init(0);
	cpus[0].online = 1;
}

void smp_probe(void)
{
	if (fwcfg_present()) {
		int n = fwcfg_read_u16(FW_CFG_NB_CPUS);

		if (n > RT_MAX_CPUS) {
			printf("smp: %d cpus, runtime supports %d\n", n, RT_MAX_CPUS);
			n = RT_MAX_CPUS;
		}
		nr_cpus = n > 0 ? n : 1;
	}
	rt_set_irq_handler(RT_VEC_WAKEUP, wakeup_irq);
}

/* The AP's boot context, and every CPU's idle thread (sched.c). */
void cpu_idle_loop(void)
{
	for (;;) {
		cli();
		if (smp_run_pending_work() || sched_idle_poll())
			continue;
		safe_halt();	/* IF=1 only inside hlt: no lost wake-up */
	}
}

/* C entry for APs from boot.S; @cpu is the initial APIC ID. */
void rt_ap_start(int cpu)
{
	struct rt_cpu *c = &cpus[cpu];

	percpu_init(cpu);
	idt_load();
	apic_init();
	printf("cpu %d online apic_id=%u\n", cpu, c->apic_id);
	__atomic_store_n(&c->online, 1, __ATOMIC_RELEASE);
	cpu_idle_loop();
}

static int count_online(void)
{
	int n = 0;

	for (int i = 0; i < nr_cpus; i++)
		n += cpus[i].online != 0;
	return n;
}

/*
 * An AP's kernel and user stacks, from the heap: they are never given back
 * (an AP stays online).  Without them the guest asked for more CPUs than
 * its RAM holds stacks for: a broken rule, not a test result.
 */
static void ap_stacks(int cpu)
{
	char *k, *u;

	if (rt_ap_stack_top[cpu])
		return;
	k = rt_alloc(RT_STACK_SIZE, 16);
	u = rt_alloc(RT_USER_STACK_SIZE, 16);
	if (!k || !u)
		rt_panic("cpu %d: no memory for its stacks", cpu);
	usermode_set_cpu_stack(cpu, u + RT_USER_STACK_SIZE);
	__atomic_store_n(&rt_ap_stack_top[cpu], (uint64_t)(k + RT_STACK_SIZE), __ATOMIC_RELEASE);
}

int rt_smp_start(void)
{
	uint64_t t0;

	if (nr_cpus == 1)
		return 1;
	memcpy((void *)RT_TRAMP_ADDR, tramp_start, (size_t)(tramp_end - tramp_start));
	for (int i = 1; i < nr_cpus; i++) {
		if (cpus[i].online)
			continue;
		ap_stacks(i);
		apic_send_ipi((uint32_t)i, APIC_ICR_DM_INIT | APIC_ICR_ASSERT);
		apic_send_ipi((uint32_t)i, APIC_ICR_DM_STARTUP | RT_TRAMP_VECTOR);
		apic_send_ipi((uint32_t)i, APIC_ICR_DM_STARTUP | RT_TRAMP_VECTOR);
	}
	t0 = rdtsc();
	while (count_online() < nr_cpus && rdtsc() - t0 < SMP_TIMEOUT_TSC)
		cpu_relax();
	return count_online();
}

void rt_run_on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	struct rt_cpu *c = &cpus[cpu];

	if (!rt_cpu_online(cpu)) {
		printf("FAIL: rt_run_on_cpu: cpu %d is not online\n", cpu);
		ucall_fail(__FILE__, __LINE__, "rt_run_on_cpu: cpu not online", 1,
			   (const uint64_t[]){ (uint64_t)cpu });
		rt_exit(RT_EXIT_FAIL);
	}
	c->work_done = 0;
	c->work_arg = arg;
	__atomic_store_n(&c->work_fn, fn, __ATOMIC_RELEASE);
	apic_send_ipi(c->apic_id, APIC_ICR_DM_FIXED | RT_VEC_WAKEUP);
}

void rt_wait_cpu(int cpu)
{
	while (!__atomic_load_n(&cpus[cpu].work_done, __ATOMIC_ACQUIRE))
		cpu_relax();
}

void rt_run_on_cpu(int cpu, void (*fn)(void *), void *arg)
{
	if (cpu == rt_cpu_id()) {
		fn(arg);
		return;
	}
	spin_lock(&oncpu_lock);
	rt_run_on_cpu_async(cpu, fn, arg);
	rt_wait_cpu(cpu);
	spin_unlock(&oncpu_lock);
}

/*
 * The lock is taken with interrupts as the caller has them: a CPU spinning
 * for it must still take the wake-up IPI of a holder that waits for it.
 */
void rt_on_each_cpu(void (*fn)(void *), void *arg)
{
	int self = rt_cpu_id();
	uint64_t flags;

	spin_lock(&oncpu_lock);
	for (int i = 0; i < nr_cpus; i++)
		if (i != self && rt_cpu_online(i))
			rt_run_on_cpu_async(i, fn, arg);
	flags = local_irq_save();
	fn(arg);
	local_irq_restore(flags);
	for (int i = 0; i < nr_cpus; i++)
		if (i != self && rt_cpu_online(i))
			rt_wait_cpu(i);
	spin_unlock(&oncpu_lock);
}
