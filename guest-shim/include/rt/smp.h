/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU data and the other processors.
 *
 * CPU index == APIC ID (pmuvm and QEMU number them 0..N-1), so rt_cpu_id()
 * is the index into everything per-CPU.  Each CPU points IA32_GS_BASE at its
 * struct rt_cpu, which makes rt_cpu_id() one memory load.
 *
 * APs are started only when a guest asks (rt_smp_start()); each prints
 * "cpu N online apic_id=M" and then sleeps in "sti; hlt" until
 * rt_run_on_cpu() hands it work with a wake-up IPI.
 */
#ifndef RT_SMP_H
#define RT_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_thread;
struct rt_sched_cpu;

struct rt_cpu {
	struct rt_cpu *self;
	int id;
	uint32_t apic_id;
	bool x2apic;
	volatile int online;
	/* work posted by rt_run_on_cpu_async() */
	void (*volatile work_fn)(void *arg);
	void *volatile work_arg;
	volatile int work_done;
	/* scheduler (rt/thread.h): the running thread, NULL before rt_sched_start() */
	struct rt_thread *current;
	struct rt_sched_cpu *sched;
	/* per-CPU state of the ntpmu library; the runtime never touches it */
	void *ntpmu;
};

static inline int rt_cpu_id(void)
{
	int id;

	asm volatile("movl %%gs:%c1, %0" : "=r"(id)
		     : "i"(offsetof(struct rt_cpu, id)));
	return id;
}

static inline struct rt_cpu *rt_this_cpu(void)
{
	struct rt_cpu *c;

	asm volatile("movq %%gs:%c1, %0" : "=r"(c)
		     : "i"(offsetof(struct rt_cpu, self)));
	return c;
}

struct rt_cpu *rt_cpu(int cpu);
int rt_nr_cpus(void);			/* from fw_cfg; 1 without fw_cfg */
bool rt_cpu_online(int cpu);

/*
 * Start every AP (INIT-SIPI-SIPI) and wait until they are online or about
 * 1e10 TSC ticks passed.  Returns the number of CPUs online, BSP included.
 */
int rt_smp_start(void);

/*
 * Run fn(arg) on @cpu and wait; on the calling CPU it is a plain call.
 * On an AP, fn runs from the idle loop with interrupts disabled; once the
 * scheduler runs on that CPU (rt/thread.h), from the wake-up IPI's handler
 * instead (interrupts disabled, EOI already sent), so it also reaches a CPU
 * busy in a thread.  One work item per CPU may be outstanding; a CPU that
 * is not online fails the test.
 */
void rt_run_on_cpu(int cpu, void (*fn)(void *), void *arg);
void rt_run_on_cpu_async(int cpu, void (*fn)(void *), void *arg);
void rt_wait_cpu(int cpu);		/* wait for the async work to finish */

/*
 * Run fn(arg) on every online CPU, the caller's included, each with
 * interrupts disabled, and return when all are done.  With the scheduler
 * running, may be called from any thread on any CPU (also two at once);
 * the CPUs it targets must have started their scheduler or be idle.
 */
void rt_on_each_cpu(void (*fn)(void *), void *arg);

#endif
