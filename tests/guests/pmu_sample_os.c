/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmu_sample_os: sample user code on core cycles counted at OS and USR,
 * under a kernel whose system calls make exits that KVM handles itself, as
 * Linux's timer ticks do (the TSC deadline WRMSR, the x2APIC EOI). Fixed
 * counter 1 counts core cycles at OS|USR with PMI, preset to -PERIOD; the
 * handler records the interrupted CS and re-arms the counter. User code
 * spins CHUNK_TICKS TSC ticks, then makes a system call (its UD2 gate is an
 * exit too: KVM intercepts #UD) whose handler runs CPUID KERNEL_EXITS times
 * with the counter counting, and so on until it spun SPIN_TICKS ticks.
 *
 * On hardware the system call costs a few thousand cycles, a small part
 * of each chunk, and nearly every sample interrupts user code. Where exits
 * are slow (nested KVM) they take most of the vCPU's time. That time is
 * the host's, and the samples must still fall where the guest spends its
 * own: pmuvm's timer, kicking the vCPU while KVM handles one of those
 * exits or enters the guest after one, must not sample there
 * (docs/counting.md, "Sampling on cycles").
 *
 * Asserts: at least 100 PMIs, and at least 80% of them interrupted CPL3.
 */
#include "pmu_common.h"
#include <rt/syscall.h>

#define PERIOD		2000000ull	/* ~1 ms at perf's 1000 Hz */
#define SPIN_TICKS	1000000000ull	/* ~0.4 s of user code */
#define CHUNK_TICKS	200000ull	/* between two system calls */
#define GAP_TICKS	2000
#define KERNEL_EXITS	8
#define SYS_EXITS	RT_SYS_FIRST_FREE

static struct pmu_cfg cfg;
static volatile int nr_pmis, nr_user;
static volatile uint64_t kernel_rip;

static uint64_t preset(void)
{
	return -PERIOD & width_mask(cfg.fixed_width);
}

static void pmi(struct rt_frame *f)
{
	nr_pmis++;
	if (f->cs == RT_USER_CS)
		nr_user++;
	else
		kernel_rip = f->rip;
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset());
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_CTRL_FIXED(1));
	apic_write_lvtpc(PMI_VECTOR);
}

/* The kernel side: KERNEL_EXITS exits to KVM while the counter counts at OS. */
static uint64_t sys_exits(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	uint64_t v = 0;

	(void)a0, (void)a1, (void)a2, (void)a3;
	for (int i = 0; i < KERNEL_EXITS; i++)
		v |= cpuid(0).eax;
	return v;
}

/* At CPL3: spins until it ran SPIN_TICKS ticks, a system call every CHUNK_TICKS. */
static uint64_t user_chunks(uint64_t unused)
{
	uint64_t ran = 0, calls = 0;

	(void)unused;
	while (ran < SPIN_TICKS) {
		ran += pmu_spin_ticks(CHUNK_TICKS, GAP_TICKS);
		rt_syscall(SYS_EXITS, 0, 0, 0, 0);
		calls++;
	}
	return calls;
}

int main(void)
{
	uint64_t calls, t0, elapsed;

	cfg = pmu_cfg_read();
	printf("pmu_sample_os: version=%u fixed=%u\n", cfg.version, cfg.nr_fixed);
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 1));
	GUEST_ASSERT(!rt_syscall_register(SYS_EXITS, sys_exits));

	rt_set_irq_handler(PMI_VECTOR, pmi);
	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset());
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1) | FIXED_CTRL_USR(1) | FIXED_CTRL_PMI(1));
	t0 = rdtsc();
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));
	calls = rt_run_user(user_chunks, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	elapsed = rdtsc() - t0;
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	printf("pmu_sample_os: elapsed_tsc=%llu calls=%llu pmis=%d user=%d\n",
	       (unsigned long long)elapsed, (unsigned long long)calls, nr_pmis, nr_user);
	if (nr_user < nr_pmis)
		printf("pmu_sample_os: last kernel rip=0x%llx (system call 0x%llx)\n",
		       (unsigned long long)kernel_rip, (unsigned long long)(uint64_t)sys_exits);
	GUEST_VALUE("pmis", nr_pmis);
	GUEST_VALUE("user", nr_user);
	GUEST_ASSERT(nr_pmis >= 100);
	GUEST_ASSERT(nr_user * 10 >= nr_pmis * 8);
	test_ok("pmu_sample_os");
	return 0;
}
