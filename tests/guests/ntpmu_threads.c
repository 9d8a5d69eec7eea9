/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ntpmu thread profiling on the real runtime (guest-shim/ntpmu-rt): kernel
 * threads on every CPU, preempted by the scheduler tick, each profiling
 * itself (EnableThreadProfiling, one hardware counter: GP0 counting core
 * cycles at OS and USR: the clock source splits OS from USR only at a 4 ms
 * grain, vmm/clock/clock.c) while it spins at CPL3, then reading its own data
 * (ReadThreadProfilingData at CPL3, as Windows does, through RDPMC).
 *
 * Checked: every call succeeds; Size/Version/HwCountersCount as asked; a
 * thread's counter grew while it ran and the threads of one CPU together
 * never exceed what that CPU's counter counted (per-thread values are kept
 * across context switches, not shared); ContextSwitchCount is exactly the
 * runtime's switch-ins since EnableThreadProfiling (at least one: the sleep;
 * whether a yield switches depends on where the other thread's sleep ends
 * against the tick); the sleep shows up in WaitReasonBitMap as DelayExecution.
 */
#include <rt.h>
#include <rt/alloc.h>
#include <rt/thread.h>

#include "nt/ntddk.h"
#include "nt/winbase.h"
#include <ntpmu/ntpmu.h>
#include "pmu_common.h"

#define THREADS_PER_CPU	2
#define MAX_THREADS	(2 * THREADS_PER_CPU)
#define ROUNDS		4
#define SPIN_TICKS	3000000ull

struct worker {
	int cpu;
	HANDLE h;
	DWORD enable_err, read_err, disable_err;
	/* the runtime's switch-ins of this thread: around enable, around the read */
	uint32_t sw_before_enable, sw_enabled, sw_before_read, sw_after_read;
	PERFORMANCE_DATA pd;
};

static struct worker workers[MAX_THREADS];
static uint64_t raw_start[2], raw_end[2];

static uint64_t user_spin(uint64_t ticks)
{
	uint64_t end = rdtsc() + ticks;

	while (rdtsc() < end)
		;
	return 0;
}

static uint64_t user_read(uint64_t arg)
{
	struct worker *w = (struct worker *)arg;

	w->pd.Size = sizeof(w->pd);
	w->pd.Version = PERFORMANCE_DATA_VERSION;
	w->read_err = ReadThreadProfilingData(w->h, READ_THREAD_PROFILING_FLAG_DISPATCHING |
					      READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &w->pd);
	return 0;
}

static void worker_main(void *arg)
{
	struct worker *w = arg;

	/* A preemption may come between the two: it counts in ContextSwitchCount. */
	w->sw_before_enable = rt_thread_context_switches(rt_thread_current());
	w->enable_err = EnableThreadProfiling(NtCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH,
					      0x1, &w->h);
	if (w->enable_err)
		return;
	w->sw_enabled = rt_thread_context_switches(rt_thread_current());
	for (int i = 0; i < ROUNDS; i++) {
		rt_run_user(user_spin, SPIN_TICKS);
		if (i == 1)
			rt_thread_sleep_ticks(SPIN_TICKS);
		else
			rt_yield();
	}
	w->sw_before_read = rt_thread_context_switches(rt_thread_current());
	rt_run_user(user_read, (uint64_t)w);
	w->sw_after_read = rt_thread_context_switches(rt_thread_current());
	w->disable_err = DisableThreadProfiling(w->h);
}

static void counters_on(void *arg)
{
	int cpu = rt_cpu_id();

	(void)arg;
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | PMU_EVENT_CORE_CYCLES);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	raw_start[cpu] = rdmsr(MSR_IA32_PMC0);
}

static void counters_off(void *arg)
{
	int cpu = rt_cpu_id();

	(void)arg;
	raw_end[cpu] = rdmsr(MSR_IA32_PMC0);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
}

int main(void)
{
	HARDWARE_COUNTER cfg[1] = { { .Type = PMCCounter, .Index = 0 } };
	struct rt_thread *t[MAX_THREADS];
	int cpus = rt_smp_start(), n = 0;
	uint64_t sum[2] = { 0, 0 };

	GUEST_ASSERT(cpus >= 1 && cpus <= 2);
	printf("ntpmu_threads: %d cpus\n", cpus);
	ntpmu_rt_init();
	rt_sched_start_all();
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(cfg, 1), STATUS_SUCCESS);
	rt_on_each_cpu(counters_on, NULL);
	for (int cpu = 0; cpu < cpus; cpu++)
		for (int i = 0; i < THREADS_PER_CPU; i++, n++) {
			workers[n].cpu = cpu;
			t[n] = rt_thread_create(worker_main, &workers[n], cpu, "profiled");
			GUEST_ASSERT(t[n]);
		}
	for (int i = 0; i < n; i++)
		rt_thread_join(t[i]);
	rt_on_each_cpu(counters_off, NULL);

	for (int i = 0; i < n; i++) {
		struct worker *w = &workers[i];

		printf("ntpmu_threads: cpu %d thread %d: enable=%u read=%u disable=%u cycles=%llu "
		       "switches=%u (runtime %u..%u) cycle_time=%llu waits=%#llx\n", w->cpu, i,
		       w->enable_err, w->read_err, w->disable_err,
		       (unsigned long long)w->pd.HwCounters[0].Value, w->pd.ContextSwitchCount,
		       w->sw_before_read - w->sw_enabled, w->sw_after_read - w->sw_before_enable,
		       (unsigned long long)w->pd.CycleTime,
		       (unsigned long long)w->pd.WaitReasonBitMap);
		GUEST_ASSERT_EQ(w->enable_err, ERROR_SUCCESS);
		GUEST_ASSERT_EQ(w->read_err, ERROR_SUCCESS);
		GUEST_ASSERT_EQ(w->disable_err, ERROR_SUCCESS);
		GUEST_ASSERT_EQ(w->pd.HwCountersCount, 1);
		GUEST_ASSERT(w->pd.HwCounters[0].Value > 0);
		GUEST_ASSERT(w->pd.ContextSwitchCount >= 1);
		GUEST_ASSERT(w->pd.ContextSwitchCount >= w->sw_before_read - w->sw_enabled);
		GUEST_ASSERT(w->pd.ContextSwitchCount <= w->sw_after_read - w->sw_before_enable);
		GUEST_ASSERT(w->pd.CycleTime > 0);
		GUEST_ASSERT(w->pd.WaitReasonBitMap & (1ull << DelayExecution));
		sum[w->cpu] += w->pd.HwCounters[0].Value;
	}
	for (int cpu = 0; cpu < cpus; cpu++) {
		printf("ntpmu_threads: cpu %d: threads %llu <= counter %llu\n", cpu,
		       (unsigned long long)sum[cpu],
		       (unsigned long long)(raw_end[cpu] - raw_start[cpu]));
		GUEST_ASSERT(sum[cpu] <= raw_end[cpu] - raw_start[cpu]);
	}
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	test_ok("ntpmu thread profiling on the runtime");
	return 0;
}
