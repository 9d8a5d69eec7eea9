/*
 * The ntpmu calls on a real (virtual) PMU: KeSet/KeQuery, HAL arbitration
 * with an overflow handler called from a real PMI, and thread profiling of
 * two threads that this guest switches between itself (the runtime has no
 * scheduler yet), with the reads done at CPL3 as Windows does.
 *
 * With no architectural PMU (plain QEMU/KVM here) the configuration call
 * answers STATUS_NOT_IMPLEMENTED; the guest says so and passes.
 *
 * The platform is a minimal one for a single-threaded guest on CPU 0: a
 * fixed pool instead of an allocator, cli/sti around a spinlock, and two
 * static "threads".  ntpmu-rt/platform_rt.c is the full one.
 */
#include <rt.h>
#include <rt/spinlock.h>

#include "nt/ntddk.h"
#include "nt/ntrtl.h"
#include "nt/winbase.h"
#include "../../guest-shim/ntpmu/ntpmu_platform.h"
#include "pmu_common.h"

#define NTPMU_PMI_VECTOR	0xe1
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
	for (int i = 0; i < POOL_SLOTS; i++) {
		if (!pool_used[i] && size <= POOL_SLOT_SIZE) {
			pool_used[i] = true;
			memset(pool[i], 0, size);
			return pool[i];
		}
	}
	return NULL;
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

static const struct ntpmu_platform_ops ops = {
	.rdmsr = g_rdmsr, .wrmsr = g_wrmsr, .rdpmc = g_rdpmc, .rdtsc = g_rdtsc,
	.cpuid = g_cpuid, .nr_cpus = g_nr_cpus, .cpu_id = g_cpu_id,
	.run_on_cpu = g_run_on_cpu, .zalloc = g_zalloc, .free = g_free,
	.lock = g_lock, .unlock = g_unlock, .current_thread = g_current,
	.thread_from_handle = g_from_handle, .thread_slot_get = g_slot_get,
	.thread_slot_set = g_slot_set, .thread_app = g_app,
	.thread_wait_reason = g_wait_reason, .set_user_rdpmc = g_user_rdpmc,
};

static void switch_to(struct gthread *next)
{
	cli();
	ntpmu_context_switch(current, next);
	current = next;
}

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

static void pmi(struct rt_frame *f)
{
	ntpmu_pmi();
	apic_write_lvtpc(NTPMU_PMI_VECTOR);
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

	rt_set_irq_handler(NTPMU_PMI_VECTOR, pmi);
	apic_write_lvtpc(NTPMU_PMI_VECTOR);
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

/* Thread profiling: A's counts exclude B's work. */
static void profiling(void)
{
	HARDWARE_COUNTER cfg[2] = {
		{ .Type = PMCCounter, .Index = 0 },
		{ .Type = PMCCounter, .Index = 0x40000001 },
	};
	struct user_read ra = { 0 }, rb = { 0 };
	uint64_t raw0, raw1, probe;
	HANDLE ha, hb;
	BOOLEAN on;

	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(cfg, 2), STATUS_SUCCESS);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, PMU_EVENT_CORE_CYCLES | EVTSEL_EN | EVTSEL_USR | EVTSEL_OS);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1) | FIXED_CTRL_USR(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(0) | GLOBAL_CTRL_FIXED(1));
	raw0 = rdmsr(MSR_IA32_PMC0);

	GUEST_ASSERT_EQ(EnableThreadProfiling(NtCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH,
					      0x3, &ha), ERROR_SUCCESS);
	GUEST_ASSERT_EQ(EnableThreadProfiling(&thread_b, 0, 0x3, &hb), ERROR_INVALID_PARAMETER);
	GUEST_ASSERT_EQ(QueryThreadProfiling(&thread_a, &on), ERROR_SUCCESS);
	GUEST_ASSERT_EQ(on, TRUE);
	rt_run_user(user_spin, 2000000);
	switch_to(&thread_b);
	GUEST_ASSERT_EQ(EnableThreadProfiling(NtCurrentThread(), 0, 0x1, &hb), ERROR_SUCCESS);
	rt_run_user(user_spin, 6000000);
	switch_to(&thread_a);
	rt_run_user(user_spin, 2000000);

	if (rdpmc_safe(0, &probe)) {
		/* pmuvm does not emulate RDPMC yet (shared/platform-notes.md). */
		printf("ntpmu: RDPMC faults in this VM: counter reads not checked\n");
	} else {
		ra.h = ha;
		rb.h = hb;
		rt_run_user(user_read, (uint64_t)&ra);
		switch_to(&thread_b);
		rt_run_user(user_read, (uint64_t)&rb);
		switch_to(&thread_a);
		raw1 = rdmsr(MSR_IA32_PMC0);
		printf("ntpmu: A cycles=%llu fixed=%llu switches=%u; B cycles=%llu; raw=%llu\n",
		       (unsigned long long)ra.pd.HwCounters[0].Value,
		       (unsigned long long)ra.pd.HwCounters[1].Value,
		       ra.pd.ContextSwitchCount, (unsigned long long)rb.pd.HwCounters[0].Value,
		       (unsigned long long)(raw1 - raw0));
		GUEST_ASSERT_EQ(ra.err, ERROR_SUCCESS);
		GUEST_ASSERT_EQ(rb.err, ERROR_SUCCESS);
		GUEST_ASSERT_EQ(ra.pd.HwCountersCount, 2);
		GUEST_ASSERT_EQ(ra.pd.ContextSwitchCount, 1);
		GUEST_ASSERT(ra.pd.HwCounters[0].Value > 0 && rb.pd.HwCounters[0].Value > 0);
		/* Each window is counted once: A's total never includes B's. */
		GUEST_ASSERT(ra.pd.HwCounters[0].Value + rb.pd.HwCounters[0].Value <= raw1 - raw0);
	}
	GUEST_ASSERT_EQ(DisableThreadProfiling(hb), ERROR_INVALID_HANDLE);
	GUEST_ASSERT_EQ(DisableThreadProfiling(ha), ERROR_SUCCESS);
	switch_to(&thread_b);
	GUEST_ASSERT_EQ(DisableThreadProfiling(hb), ERROR_SUCCESS);
	switch_to(&thread_a);
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	struct ntpmu_pmu_info info;

	ntpmu_init(&ops, NULL);
	ntpmu_pmu_info(&info);
	printf("ntpmu: pmu version %u, %u gp counters, %u fixed counters\n", info.version,
	       info.nr_gp, info.nr_fixed);
	if (!info.version)
		return no_pmu();
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 3 && cfg.nr_fixed >= 2);
	hal_overflow(&cfg);
	profiling();
	test_ok("ntpmu_api");
	return 0;
}
