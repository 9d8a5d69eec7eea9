/* SPDX-License-Identifier: MIT */
/*
 * ntpmu: the Windows counter calls (nt/) on the Intel architectural
 * PMU.  The core in this directory is pure C with no dependency on the guest
 * runtime: everything it needs from the machine goes through the ops below.
 * The guest runtime implements them on real MSRs (ntpmu-rt/platform_rt.c);
 * the unit tests implement them on in-process vPMU models, one per fake CPU.
 *
 * Counter index space (HARDWARE_COUNTER.Index, resource descriptors): the
 * RDPMC index, as the Windows reader passes it to RDPMC (docs/windows-api.md 1.1, 3.5):
 * GP counter n is n, fixed counter n is 0x40000000 | n.  Overflow bits given
 * to overflow handlers use the IA32_PERF_GLOBAL_STATUS layout (GP n = bit n,
 * fixed n = bit 32 + n).
 */
#ifndef NTPMU_PLATFORM_H
#define NTPMU_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ntpmu/ntpmu.h>

#define NTPMU_MAX_CPUS	64	/* one processor group */

struct ntpmu_platform_ops {
	/* This CPU's MSRs; 0 or the exception vector (13 = #GP). */
	int (*rdmsr)(void *ctx, uint32_t msr, uint64_t *val);
	int (*wrmsr)(void *ctx, uint32_t msr, uint64_t val);
	/* Safe to call at CPL3: the user-mode reader uses these two. */
	int (*rdpmc)(void *ctx, uint32_t ecx, uint64_t *val);
	uint64_t (*rdtsc)(void *ctx);
	void (*cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

	unsigned int (*nr_cpus)(void *ctx);
	unsigned int (*cpu_id)(void *ctx);
	/* Run fn(arg) on @cpu and wait for it. */
	void (*run_on_cpu)(void *ctx, unsigned int cpu, void (*fn)(void *), void *arg);

	void *(*zalloc)(void *ctx, size_t size);	/* zeroed; NULL if out of memory */
	void (*free)(void *ctx, void *p);

	/* One lock for all ntpmu state; blocks the PMI and context switches. */
	unsigned long (*lock)(void *ctx);
	void (*unlock)(void *ctx, unsigned long flags);

	/*
	 * Threads are opaque pointers, each with one pointer-sized slot for
	 * ntpmu.  current_thread and thread_slot_get must work at CPL3 too
	 * (the user-mode reader calls them).
	 */
	void *(*current_thread)(void *ctx);
	/* The thread a HANDLE names (NtCurrentThread() too), NULL if none. */
	void *(*thread_from_handle)(void *ctx, void *handle);
	void *(*thread_slot_get)(void *ctx, void *thread);
	void (*thread_slot_set)(void *ctx, void *thread, void *val);
	/* The "application" (process) a thread belongs to; only one profiles at a time. */
	void *(*thread_app)(void *ctx, void *thread);
	/* KWAIT_REASON of a thread being switched out, -1 if none (still runnable). */
	int (*thread_wait_reason)(void *ctx, void *thread);

	/* CR4.PCE on this CPU: user-mode RDPMC for profiled threads. */
	void (*set_user_rdpmc)(void *ctx, bool enable);

	/* Optional (NULL: 0).  ETW records: a thread's ID, 0 for none. */
	uint32_t (*thread_id)(void *ctx, void *thread);
	/* Optional (NULL: 0).  In the PMI: the interrupted instruction pointer. */
	uint64_t (*pmi_ip)(void *ctx);
	/*
	 * Optional (NULL: 0).  The TSC frequency in Hz as the platform knows
	 * it, 0 if it does not; used when CPUID 15H cannot say (ntpmu_clock.c).
	 */
	uint64_t (*tsc_hz)(void *ctx);
};

/*
 * Bind ntpmu to a platform and read the PMU description (CPUID 0xA).  The
 * state is global, as in the kernel; ntpmu_exit() drops every allocation,
 * configuration and profiled thread (tests re-init per case).
 */
void ntpmu_init(const struct ntpmu_platform_ops *ops, void *ctx);
void ntpmu_exit(void);

/* Platform hooks. */
/* The scheduler on this CPU switches from prev to next (interrupts off). */
void ntpmu_context_switch(void *prev, void *next);
/*
 * The same switch, for the ETW loggers (ntpmu_etw.c): the platform calls
 * both hooks, thread profiling's first.
 */
void ntpmu_etw_context_switch(void *prev, void *next);
/* A thread exits: drop its profiling state if it did not disable it. */
void ntpmu_thread_exit(void *thread);
/*
 * The PMI handler on this CPU: reads IA32_PERF_GLOBAL_STATUS, calls the
 * overflow handler owning this CPU's overflow interrupt with its counters'
 * bits, and clears the status.  Returns the status bits it found.
 */
uint64_t ntpmu_pmi(void);

#endif
