/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ntpmu calls on a real (virtual) PMU: KeSet/KeQuery, HAL arbitration
 * with an overflow handler called from a real PMI, and thread profiling of
 * two runtime threads on one CPU, with the reads done at CPL3 as Windows
 * does.  main() (thread A) hands the CPU to thread B only by joining it,
 * so each thread's share of the counts is known exactly.
 *
 * With no architectural PMU (plain QEMU/KVM here) the configuration call
 * answers STATUS_NOT_IMPLEMENTED; the guest says so and passes.
 */
#include <rt.h>
#include <ntpmu/ntpmu.h>

#include "nt/ntddk.h"
#include "nt/ntrtl.h"
#include "nt/winbase.h"
#include "pmu_common.h"

/* CPL3 work: spin for `ticks` TSC ticks. */
static uint64_t user_spin(uint64_t ticks)
{
	uint64_t t0 = rdtsc();

	while (rdtsc() - t0 < ticks)
		;
	return 0;
}

struct user_read {
	HANDLE h;
	PERFORMANCE_DATA pd;
	DWORD err;
};

/* CPL3: ReadThreadProfilingData reads with RDPMC/RDTSC, no kernel call. */
static uint64_t user_read(uint64_t arg)
{
	struct user_read *r = (struct user_read *)arg;

	r->pd.Size = sizeof(r->pd);
	r->pd.Version = PERFORMANCE_DATA_VERSION;
	r->err = ReadThreadProfilingData(r->h, READ_THREAD_PROFILING_FLAG_DISPATCHING |
					 READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &r->pd);
	return 0;
}

static volatile unsigned int ovf_calls;
static volatile ULONGLONG ovf_bits;
static HANDLE ovf_owner;

static void overflow_handler(ULONGLONG bits, HANDLE owner)
{
	ovf_calls++;
	ovf_bits = bits;
	ovf_owner = owner;
}

static int no_pmu(void)
{
	HARDWARE_COUNTER c = { .Type = PMCCounter, .Index = 0 };
	PHYSICAL_COUNTER_RESOURCE_LIST l = { .Count = 1 };
	NTSTATUS st = KeSetHardwareCounterConfiguration(&c, 1);
	HANDLE h;

	printf("ntpmu: no architectural PMU: KeSetHardwareCounterConfiguration -> "
	       "STATUS_NOT_IMPLEMENTED (0x%x)\n", (unsigned int)st);
	GUEST_ASSERT_EQ(st, STATUS_NOT_IMPLEMENTED);
	l.Descriptors[0].Type = ResourceTypeSingle;
	GUEST_ASSERT_EQ(HalAllocateHardwareCounters(NULL, 0, &l, &h),
			STATUS_INSUFFICIENT_RESOURCES);
	test_ok("ntpmu_api");
	return 0;
}

/* HAL: a driver owns GP2 with an overflow handler, called from a real PMI. */
static void hal_overflow(struct pmu_cfg *cfg)
{
	struct {
		ULONG Count;
		PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR Descriptors[2];
	} l = { .Count = 2 };
	HARDWARE_COUNTER c = { .Type = PMCCounter, .Index = 2 };
	HANDLE h, h2;

	l.Descriptors[0].Type = ResourceTypeSingle;
	l.Descriptors[0].u.CounterIndex = 2;
	l.Descriptors[1].Type = ResourceTypeOverflow;
	l.Descriptors[1].u.OverflowHandler = overflow_handler;
	GUEST_ASSERT_EQ(HalAllocateHardwareCounters(NULL, 0, (void *)&l, &h), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(HalAllocateHardwareCounters(NULL, 0, NULL, &h2),
			STATUS_INSUFFICIENT_RESOURCES);
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(&c, 1), STATUS_WMI_ALREADY_ENABLED);

	wrmsr(MSR_IA32_PMC0 + 2, -1000ull & width_mask(cfg->gp_width) & 0xffffffffull);
	wrmsr(MSR_IA32_PERFEVTSEL0 + 2, PMU_EVENT_CORE_CYCLES | EVTSEL_EN | EVTSEL_USR |
	      EVTSEL_OS | EVTSEL_INT);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_CTRL) | BIT_ULL(2));
	rt_run_user(user_spin, 20000000);
	wrmsr(MSR_IA32_PERFEVTSEL0 + 2, 0);
	printf("ntpmu: overflow handler calls=%u bits=0x%llx\n", ovf_calls,
	       (unsigned long long)ovf_bits);
	GUEST_ASSERT(ovf_calls >= 1);
	GUEST_ASSERT_EQ(ovf_bits, BIT_ULL(2));
	GUEST_ASSERT(ovf_owner == h);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & BIT_ULL(2), 0);
	GUEST_ASSERT_EQ(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(HalFreeHardwareCounters(h), STATUS_INVALID_PARAMETER);
}

/*
 * The running thread's "events" on GP1: its event select stays 0, so GP1
 * changes only when the thread adds to it here, and each thread's total is
 * known exactly.  The legacy alias sign-extends bit 31 (kvm-vpmu docs/windows-api.md 1.2), which
 * the values used (within 2^31 of 0) keep.
 */
static void thread_events(uint64_t n)
{
	wrmsr(MSR_IA32_PMC0 + 1, (uint32_t)(rdmsr(MSR_IA32_PMC0 + 1) + n));
}

struct thread_b {
	struct rt_thread *a;
	HANDLE ha, hb;
	struct user_read rb;
};

/*
 * Thread B, while A waits in rt_thread_join(): profiles itself (GP0 and
 * GP1, not fixed 1), works, reads its data at CPL3, and may touch neither
 * A's thread nor A's handle.
 */
static void thread_b(void *arg)
{
	struct thread_b *b = arg;
	HANDLE h;

	GUEST_ASSERT_EQ(EnableThreadProfiling(b->a, 0, 0x5, &h), ERROR_INVALID_PARAMETER);
	GUEST_ASSERT_EQ(EnableThreadProfiling(NtCurrentThread(), 0, 0x5, &b->hb), ERROR_SUCCESS);
	rt_run_user(user_spin, 6000000);
	thread_events(3000);
	b->rb.h = b->hb;
	rt_run_user(user_read, (uint64_t)&b->rb);
	GUEST_ASSERT_EQ(DisableThreadProfiling(b->ha), ERROR_INVALID_HANDLE);
	GUEST_ASSERT_EQ(DisableThreadProfiling(b->hb), ERROR_SUCCESS);
}

/* Thread profiling: A's counts exclude B's work; the reads are RDPMCs at CPL3. */
static void profiling(struct pmu_cfg *pc)
{
	HARDWARE_COUNTER cfg[3] = {
		{ .Type = PMCCounter, .Index = 0 },
		{ .Type = PMCCounter, .Index = 0x40000001 },
		{ .Type = PMCCounter, .Index = 1 },
	};
	struct user_read ra = { 0 };
	struct thread_b b = { 0 };
	struct rt_thread *tb;
	uint64_t raw0, raw1;
	BOOLEAN on;

	rt_sched_start();		/* main() becomes thread A */
	b.a = rt_thread_current();
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(cfg, 3), STATUS_SUCCESS);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, PMU_EVENT_CORE_CYCLES | EVTSEL_EN | EVTSEL_USR | EVTSEL_OS);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1) | FIXED_CTRL_USR(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(0) | GLOBAL_CTRL_FIXED(1));
	/* GP1 starts 0x800 below its wrap: B's window crosses 2^gp_width and 2^32. */
	wrmsr(MSR_IA32_PMC0 + 1, (uint32_t)-0x800);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0 + 1), -0x800ull & width_mask(pc->gp_width));
	raw0 = rdmsr(MSR_IA32_PMC0);

	GUEST_ASSERT_EQ(EnableThreadProfiling(NtCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH,
					      0x7, &b.ha), ERROR_SUCCESS);
	GUEST_ASSERT_EQ(QueryThreadProfiling(b.a, &on), ERROR_SUCCESS);
	GUEST_ASSERT_EQ(on, TRUE);
	rt_run_user(user_spin, 2000000);
	thread_events(1000);
	/* Interrupts stay off here, so B first runs when A blocks in the join. */
	tb = rt_thread_create(thread_b, &b, -1, "B");
	GUEST_ASSERT(tb);
	rt_thread_join(tb);
	rt_run_user(user_spin, 2000000);
	thread_events(500);

	ra.h = b.ha;
	rt_run_user(user_read, (uint64_t)&ra);
	raw1 = rdmsr(MSR_IA32_PMC0);
	printf("ntpmu: A cycles=%llu fixed=%llu switches=%u; B cycles=%llu; raw=%llu\n",
	       (unsigned long long)ra.pd.HwCounters[0].Value,
	       (unsigned long long)ra.pd.HwCounters[1].Value,
	       ra.pd.ContextSwitchCount, (unsigned long long)b.rb.pd.HwCounters[0].Value,
	       (unsigned long long)(raw1 - raw0));
	printf("ntpmu: thread events A=%llu B=%llu\n",
	       (unsigned long long)ra.pd.HwCounters[2].Value,
	       (unsigned long long)b.rb.pd.HwCounters[2].Value);
	GUEST_ASSERT_EQ(ra.err, ERROR_SUCCESS);
	GUEST_ASSERT_EQ(b.rb.err, ERROR_SUCCESS);
	GUEST_ASSERT_EQ(ra.pd.HwCountersCount, 3);
	GUEST_ASSERT_EQ(b.rb.pd.HwCountersCount, 3);
	GUEST_ASSERT_EQ(ra.pd.ContextSwitchCount, 1);
	GUEST_ASSERT_EQ(ra.pd.HwCounters[2].Value, 1500);
	GUEST_ASSERT_EQ(b.rb.pd.HwCounters[2].Value, 3000);
	GUEST_ASSERT_EQ(b.rb.pd.HwCounters[1].Value, 0);	/* not requested by B */
	GUEST_ASSERT(ra.pd.HwCounters[0].Value > 0 && ra.pd.HwCounters[1].Value > 0 &&
		     b.rb.pd.HwCounters[0].Value > 0);
	/* Each window is counted once: A's total never includes B's. */
	GUEST_ASSERT(ra.pd.HwCounters[0].Value + b.rb.pd.HwCounters[0].Value <= raw1 - raw0);
	GUEST_ASSERT_EQ(DisableThreadProfiling(b.hb), ERROR_INVALID_HANDLE);
	GUEST_ASSERT_EQ(DisableThreadProfiling(b.ha), ERROR_SUCCESS);
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	struct ntpmu_pmu_info info;

	ntpmu_rt_init();
	ntpmu_pmu_info(&info);
	printf("ntpmu: pmu version %u, %u gp counters, %u fixed counters\n", info.version,
	       info.nr_gp, info.nr_fixed);
	if (!info.version)
		return no_pmu();
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 3 && pmu_fixed_exists(&cfg, 1));
	hal_overflow(&cfg);
	profiling(&cfg);
	test_ok("ntpmu_api");
	return 0;
}
