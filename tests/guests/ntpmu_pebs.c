/*
 * ntpmu_pebs: NtSetSystemInformation(SystemProcessorProfileControlArea)
 * under pmuvm (issue #6 item 5): every status code of the call, then a
 * PEBS profile of a CPL0 workload read back with ntpmu's reader.
 *
 * The workload (prof_run) is a hot loop of 30 x "add esi, ebx; dec ebx;
 * jnz" then a cold loop of 3 x "dec; jnz".  Instructions retired on GP
 * counter 0 with a PEBS period of 10 give a record at instructions 10, 20,
 * ... 90, all in the hot loop, three on each of its instructions, with EBX
 * known for each: the profile must show exactly that.
 *
 * A minimal single-CPU platform: a two-slot pool that can be told to fail,
 * cli around a spinlock.  With --pebs off the call answers NOT_SUPPORTED.
 */
#include <rt.h>
#include <rt/spinlock.h>

#include "nt/ntexapi.h"
#include "../../guest-shim/ntpmu/ntpmu_pebs.h"
#include "../../guest-shim/ntpmu/ntpmu_platform.h"
#include "pmu_common.h"

#define HOT		30
#define PERIOD		10
#define NR_SAMPLES	9
#define RECORD_SIZE	0xb0	/* Basic + GPR groups */

void prof_run(void);
extern char hot_head[];

asm(".text\n"
    ".globl prof_run\nprof_run:\n"
    "	pushq %rbx\n"
    "	xorl %esi, %esi\n"
    "	movl $30, %ebx\n"			/* HOT */
    "	movl $0x38f, %ecx\n"
    "	movl $1, %eax\n"
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    ".globl hot_head\nhot_head:\n"
    "	addl %ebx, %esi\n"			/* 2 bytes */
    "	decl %ebx\n"				/* 2 bytes */
    "	jnz hot_head\n"				/* 2 bytes */
    "	movl $3, %ebx\n"
    "cold_head:\n"
    "	decl %ebx\n"
    "	jnz cold_head\n"
    "	xorl %eax, %eax\n"
    "	wrmsr\n"
    "	popq %rbx\n"
    "	ret\n");

static struct spinlock lock;
static _Alignas(64) uint8_t pool[2][512];
static bool pool_used[2];
static int fail_next_alloc;
static uint8_t buf[32 * RECORD_SIZE] __attribute__((aligned(4096)));

static int g_rdmsr(void *ctx, uint32_t msr, uint64_t *val) { return rdmsr_safe(msr, val); }
static int g_wrmsr(void *ctx, uint32_t msr, uint64_t val) { return wrmsr_safe(msr, val); }
static unsigned int g_nr_cpus(void *ctx) { return 1; }
static unsigned int g_cpu_id(void *ctx) { return 0; }

static void g_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct cpuid_regs r = cpuid_count(leaf, subleaf);

	regs[0] = r.eax;
	regs[1] = r.ebx;
	regs[2] = r.ecx;
	regs[3] = r.edx;
}

static void *g_zalloc(void *ctx, size_t size)
{
	if (fail_next_alloc) {
		fail_next_alloc = 0;
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		if (!pool_used[i] && size <= sizeof(pool[i])) {
			pool_used[i] = true;
			memset(pool[i], 0xa5, sizeof(pool[i]));	/* the call must zero it */
			memset(pool[i], 0, size);
			return pool[i];
		}
	}
	return NULL;
}

static void g_free(void *ctx, void *p)
{
	for (int i = 0; i < 2; i++)
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

static const struct ntpmu_platform_ops ops = {
	.rdmsr = g_rdmsr, .wrmsr = g_wrmsr, .cpuid = g_cpuid, .nr_cpus = g_nr_cpus,
	.cpu_id = g_cpu_id, .zalloc = g_zalloc, .free = g_free, .lock = g_lock,
	.unlock = g_unlock,
};

static NTSTATUS call(SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA *s, BOOLEAN allocate)
{
	s->Allocate = allocate;
	return NtSetSystemInformation(SystemProcessorProfileControlArea, s, sizeof(*s));
}

static void status_codes(PPROCESSOR_PROFILE_CONTROL_AREA *out)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { 0 }, t = { 0 };
	static const uint8_t zero[sizeof(PROCESSOR_PROFILE_CONTROL_AREA)];

	fail_next_alloc = 1;
	GUEST_ASSERT_EQ(call(&s, TRUE), STATUS_INSUFFICIENT_RESOURCES);
	GUEST_ASSERT(!s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ(call(&s, FALSE), STATUS_MEMORY_NOT_ALLOCATED);

	GUEST_ASSERT_EQ(call(&s, TRUE), STATUS_SUCCESS);
	GUEST_ASSERT(s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ((uintptr_t)s.ProcessorProfileControlArea % 64, 0);
	GUEST_ASSERT_EQ(memcmp(s.ProcessorProfileControlArea, zero, sizeof(zero)), 0);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_DS_AREA), (uintptr_t)s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ(call(&t, TRUE), STATUS_ADDRESS_ALREADY_EXISTS);
	GUEST_ASSERT_EQ(t.ProcessorProfileControlArea, s.ProcessorProfileControlArea);
	GUEST_ASSERT(!pool_used[1]);		/* the second allocation was freed */
	*out = s.ProcessorProfileControlArea;
	test_ok("control area status codes");
}

static void profile(PPROCESSOR_PROFILE_CONTROL_AREA area)
{
	PEBS_DS_SAVE_AREA64 *ds = &area->PebsDsSaveArea.As64Bit;
	struct ntpmu_pebs_sample smp[16];
	const char *names[3] = { "add esi,ebx", "dec ebx", "jnz hot_head" };
	unsigned int hist[3] = { 0 };
	uint64_t head = (uint64_t)hot_head;
	int n;

	ds->PebsBufferBase = ds->PebsIndex = (uintptr_t)buf;
	ds->PebsAbsoluteMaximum = ds->PebsInterruptThreshold = (uintptr_t)buf + sizeof(buf);
	ds->PebsGpCounterReset[0] = -(uint64_t)PERIOD;
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_PEBS_DATA_CFG, PEBS_DATACFG_GPRS);
	wrmsr(MSR_IA32_PMC0, -(uint64_t)PERIOD & width_mask(pmu_cfg_read().gp_width));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | EVTSEL_ADAPTIVE |
				    PMU_EVENT_INSTRUCTIONS);
	wrmsr(MSR_IA32_PEBS_ENABLE, 1);
	prof_run();
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);

	n = ntpmu_pebs_read(area, smp, 16);
	printf("ntpmu_pebs: %d samples\n", n);
	GUEST_ASSERT_EQ(n, NR_SAMPLES);
	for (int i = 0; i < n; i++) {
		unsigned int k = PERIOD * (i + 1), iter = (k + 2) / 3, slot = (k - 1) % 3;
		/* After the add of iteration i EBX is still HOT-(i-1); after dec/jnz, HOT-i. */
		uint64_t rbx = HOT - iter + (slot == 0);

		GUEST_ASSERT_EQ(smp[i].EventingIp, head + 2 * slot);
		GUEST_ASSERT(smp[i].HasGprs);
		GUEST_ASSERT_EQ(smp[i].Gpr[3], rbx);
		GUEST_ASSERT_EQ(smp[i].Counters, 1);
		hist[slot]++;
	}
	printf("ntpmu_pebs: profile of the hottest loop (instructions retired, period %d):\n",
	       PERIOD);
	for (int s = 0; s < 3; s++)
		printf("ntpmu_pebs:   %#llx  %-14s %u\n", (unsigned long long)(head + 2 * s),
		       names[s], hist[s]);
	GUEST_ASSERT(hist[0] == 3 && hist[1] == 3 && hist[2] == 3);
	test_ok("pebs profile");
}

static void release(PPROCESSOR_PROFILE_CONTROL_AREA area)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { area, 0 };

	GUEST_ASSERT_EQ(call(&s, FALSE), STATUS_SUCCESS);
	GUEST_ASSERT(!s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_DS_AREA), 0);
	GUEST_ASSERT(!pool_used[0] && !pool_used[1]);
	GUEST_ASSERT_EQ(call(&s, FALSE), STATUS_MEMORY_NOT_ALLOCATED);
	test_ok("control area freed");
}

int main(void)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { 0 };
	PPROCESSOR_PROFILE_CONTROL_AREA area;
	uint64_t nopebs = 0;

	ntpmu_init(&ops, NULL);
	mbi_arg_u64("nopebs", &nopebs);
	if (nopebs) {
		GUEST_ASSERT_EQ(call(&s, TRUE), STATUS_NOT_SUPPORTED);
		GUEST_ASSERT(!pool_used[0] && !pool_used[1]);
		test_ok("control area not supported");
		return 0;
	}
	status_codes(&area);
	profile(area);
	release(area);
	return 0;
}
