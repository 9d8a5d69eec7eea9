/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ntpmu_pebs: NtSetSystemInformation(SystemProcessorProfileControlArea)
 * under pmuvm: every status code of the call, then a
 * PEBS profile of a CPL0 workload read back with ntpmu's reader.
 *
 * The workload (prof_run) is a hot loop of 30 x "add esi, ebx; dec ebx;
 * jnz" then a cold loop of 3 x "dec; jnz".  Instructions retired on GP
 * counter 0 with a PEBS period of 10 give a record at instructions 10, 20,
 * ... 90, all in the hot loop, three on each of its instructions, with EBX
 * known for each: the profile must show exactly that.
 *
 * Allocation failures come from the runtime's fault injection
 * (rt_alloc_fail_after), leaks show in its free bytes.  With --pebs off the
 * call answers NOT_SUPPORTED.
 */
#include <rt.h>
#include <ntpmu/ntpmu.h>
#include <ntpmu/pebs.h>

#include "nt/ntexapi.h"
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

static uint8_t buf[32 * RECORD_SIZE] __attribute__((aligned(4096)));
static size_t heap_free;		/* the heap's free bytes before the first call */

static NTSTATUS call(SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA *s, BOOLEAN allocate)
{
	s->Allocate = allocate;
	return NtSetSystemInformation(SystemProcessorProfileControlArea, s, sizeof(*s));
}

static void status_codes(PPROCESSOR_PROFILE_CONTROL_AREA *out)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { 0 }, t = { 0 };
	static const uint8_t zero[sizeof(PROCESSOR_PROFILE_CONTROL_AREA)];
	size_t with_area;

	rt_alloc_fail_after(0);
	GUEST_ASSERT_EQ(call(&s, TRUE), STATUS_INSUFFICIENT_RESOURCES);
	GUEST_ASSERT(!s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ(rt_alloc_free_bytes(), heap_free);
	GUEST_ASSERT_EQ(call(&s, FALSE), STATUS_MEMORY_NOT_ALLOCATED);

	GUEST_ASSERT_EQ(call(&s, TRUE), STATUS_SUCCESS);
	with_area = rt_alloc_free_bytes();
	GUEST_ASSERT(with_area < heap_free);
	GUEST_ASSERT(s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ((uintptr_t)s.ProcessorProfileControlArea % 64, 0);
	GUEST_ASSERT_EQ(memcmp(s.ProcessorProfileControlArea, zero, sizeof(zero)), 0);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_DS_AREA), (uintptr_t)s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ(call(&t, TRUE), STATUS_ADDRESS_ALREADY_EXISTS);
	GUEST_ASSERT_EQ(t.ProcessorProfileControlArea, s.ProcessorProfileControlArea);
	GUEST_ASSERT_EQ(rt_alloc_free_bytes(), with_area);	/* the second allocation was freed */
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
	GUEST_ASSERT_EQ(rt_alloc_free_bytes(), heap_free);
	GUEST_ASSERT_EQ(call(&s, FALSE), STATUS_MEMORY_NOT_ALLOCATED);
	test_ok("control area freed");
}

int main(void)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { 0 };
	PPROCESSOR_PROFILE_CONTROL_AREA area;
	uint64_t nopebs = 0;

	ntpmu_rt_init();
	heap_free = rt_alloc_free_bytes();
	mbi_arg_u64("nopebs", &nopebs);
	if (nopebs) {
		GUEST_ASSERT_EQ(call(&s, TRUE), STATUS_NOT_SUPPORTED);
		GUEST_ASSERT_EQ(rt_alloc_free_bytes(), heap_free);
		test_ok("control area not supported");
		return 0;
	}
	status_codes(&area);
	profile(area);
	release(area);
	return 0;
}
