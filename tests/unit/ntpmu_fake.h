/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake ntpmu platform for the hosted unit tests: up to FAKE_MAX_CPUS
 * processors, each with its own vPMU model (vmm/model) as its PMU MSRs, a
 * TSC the test advances, threads the test switches in and out, and an
 * allocator that can be told to fail.
 */
#ifndef TESTS_NTPMU_FAKE_H
#define TESTS_NTPMU_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/vpmu.h"
#include "ntpmu_platform.h"

#define FAKE_MAX_CPUS		4
#define FAKE_MAX_THREADS	8

struct fake_thread {
	void *slot;
	void *app;
	int wait_reason;	/* reported when it is switched out */
	uint32_t id;		/* ETW thread ID: 1 + its fake_thread_init() order */
};

struct fake_platform {
	unsigned int nr_cpus;
	unsigned int cur;			/* the CPU code runs on */
	struct vpmu pmu[FAKE_MAX_CPUS];
	struct fake_thread *running[FAKE_MAX_CPUS];
	bool pce[FAKE_MAX_CPUS];		/* CR4.PCE */
	unsigned int pce_writes;
	/*
	 * The reader runs at CPL3: its RDPMC needs PCE.  The kernel's own
	 * reads (under the lock, or in the switch hook) are at CPL0.
	 */
	bool user_mode;
	bool in_switch;
	uint64_t tsc;
	/* CPUID: highest leaf (0: 0xd), leaf 15H EAX/EBX/ECX, leaf 16H EAX. */
	uint32_t max_leaf;
	uint32_t leaf15[3];
	uint32_t leaf16;
	uint32_t leaf0a_ecx_xor;		/* CPUID.0AH:ECX bits flipped from the vPMU's */
	uint64_t tsc_hz;			/* the tsc_hz op's answer */
	uint64_t pmi_ip;			/* the PMI's interrupted IP */

	struct fake_thread *threads[FAKE_MAX_THREADS];
	unsigned int nr_threads;

	int alloc_fail_in;			/* > 0: the n-th next alloc fails */
	int live_allocs;
	int lock_depth;

	/* Called from the next RDPMC (once), e.g. to preempt a reader. */
	void (*rdpmc_hook)(struct fake_platform *f);
};

extern const struct ntpmu_platform_ops fake_ops;

/* Fresh vPMUs of `version` (default config) on nr_cpus, then ntpmu_init(). */
void fake_init(struct fake_platform *f, unsigned int version, unsigned int nr_cpus);
/* The same with PEBS of that record format (0: none, 3-5; 4-5 adaptive). */
void fake_init_pebs(struct fake_platform *f, unsigned int version, unsigned int nr_cpus,
		    unsigned int pebs_format);
/*
 * The same with version's default config but these fixed counters:
 * CPUID.0AH:EDX[4:0] = nr_fixed, version 5's ECX bitmap = fixed_bitmap
 * (the vPMU names the first nr_fixed there too); then ecx_xor flips ECX
 * bits, for a part whose ECX leaves those out or has reserved bits set.
 */
void fake_init_fixed(struct fake_platform *f, unsigned int version, unsigned int nr_cpus,
		     unsigned int nr_fixed, uint32_t fixed_bitmap, uint32_t ecx_xor);
/* ntpmu_exit(), then fail the test if an allocation leaked. */
void fake_exit(struct fake_platform *f);

void fake_thread_init(struct fake_platform *f, struct fake_thread *t, void *app);
/*
 * Context switch on `cpu` to `next` (NULL: idle); code then runs on `cpu`.
 * Both platform hooks run: thread profiling's, then the ETW loggers'.
 */
void fake_switch(struct fake_platform *f, unsigned int cpu, struct fake_thread *next);
/* `n` occurrences of `ev` at CPL3 on the current CPU. */
void fake_work(struct fake_platform *f, enum pmu_arch_event ev, uint64_t n);
/* GP counter `idx` counts `event` (any CPL) on every CPU, globally enabled. */
void fake_program_gp(struct fake_platform *f, unsigned int idx, uint64_t event);
/* Fixed counter `idx` counts at any CPL on every CPU, globally enabled. */
void fake_program_fixed(struct fake_platform *f, unsigned int idx);

#endif
