/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A driver's HAL event buffer end to end (ResourceTypeEventBuffer,
 * guest-shim/ntpmu/ntpmu_evbuf.c) on the runtime's ntpmu platform: GP0
 * counts kernel instructions with PEBS (adaptive records with the GPR
 * group) every PERIOD instructions of a known loop; pmuvm's assists write
 * the records, and every THRESHOLD of them the PMI calls the driver's
 * handler with the buffer, the entry size and the count.
 *
 * Checked: the handler is called with EntrySize 0xb0 (basic + GPRs) and
 * NumberOfEntries == THRESHOLD, from CPU 0 with our handle; every record's
 * eventing IP lies in the loop and, within a batch, its RBX (the loop
 * counter) falls by PERIOD / 2 from one record to the next (two
 * instructions per iteration).  The counters freeze on the PMI so the
 * handler adds no records before it hands the batch over.
 */
#include <rt.h>
#include <rt/thread.h>

#include "nt/ntddk.h"
#include <ntpmu/ntpmu.h>
#include "pmu_common.h"

#define PERIOD		100	/* more than the PMI handler's tail after it unfreezes */
#define THRESHOLD	3
#define ITERATIONS	1000		/* 2000 instructions: ~20 records, ~6 handler calls */
#define ENTRY_SIZE	0xb0
#define GPR_RBX		3		/* adaptive GPR group: RAX RCX RDX RBX ... */

void evbuf_loop(uint64_t iterations);
extern char evbuf_head[], evbuf_end[];

asm(".text\n"
    ".globl evbuf_loop\nevbuf_loop:\n"
    "	pushq %rbx\n"
    "	movq %rdi, %rbx\n"
    "	movl $0x38f, %ecx\n"
    "	movl $1, %eax\n"			/* GP0 */
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    ".globl evbuf_head\nevbuf_head:\n"
    "	decq %rbx\n"
    "	jnz evbuf_head\n"
    ".globl evbuf_end\nevbuf_end:\n"
    "	xorl %eax, %eax\n"
    "	wrmsr\n"
    "	popq %rbx\n"
    "	ret\n");

static volatile unsigned int calls, bad_calls, records;
static volatile uint64_t last_rbx, bad_records;
static HANDLE owner;

static void on_buffer(PVOID buf, SIZE_T entry, SIZE_T n, HANDLE h)
{
	const uint8_t *rec = buf;

	calls++;
	last_rbx = 0;		/* the handler's own instructions count between batches */
	if (entry != ENTRY_SIZE || n != THRESHOLD || h != owner || rt_cpu_id() != 0)
		bad_calls++;
	for (SIZE_T i = 0; i < n && entry == ENTRY_SIZE; i++, rec += entry) {
		uint64_t ip, rbx;

		memcpy(&ip, rec + 0x08, 8);
		memcpy(&rbx, rec + 0x20 + 0x10 + 8 * GPR_RBX, 8);
		if (ip < (uint64_t)evbuf_head || ip >= (uint64_t)evbuf_end ||
		    (last_rbx && rbx != last_rbx - PERIOD / 2))
			bad_records++;
		last_rbx = rbx;
		records++;
	}
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	struct {
		ULONG Count;
		PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR Descriptors[2];
	} l = { .Count = 2 };
	GROUP_AFFINITY ga = { .Mask = 1 };
	uint64_t caps = 0;

	rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &caps);
	GUEST_ASSERT(cfg.version >= 4 && ((caps & PERF_CAP_PEBS_FORMAT) >> 8) >= 4);
	ntpmu_rt_init();
	l.Descriptors[0].Type = ResourceTypeSingle;
	l.Descriptors[0].u.CounterIndex = 0;
	l.Descriptors[1].Type = ResourceTypeEventBuffer;
	l.Descriptors[1].u.EventBufferConfiguration.OverflowHandler = on_buffer;
	l.Descriptors[1].u.EventBufferConfiguration.EventThreshold = THRESHOLD;

	wrmsr(MSR_PEBS_DATA_CFG, PEBS_DATACFG_GPRS);	/* before: it sets the entry size */
	GUEST_ASSERT_EQ(HalAllocateHardwareCounters(&ga, 1, (void *)&l, &owner), STATUS_SUCCESS);
	/* GLOBAL_CTRL resets with the GP counters enabled: off until the loop. */
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	/*
	 * The handler runs at CPL0, where GP0 counts too: freeze the counters
	 * on the PMI (v4+ CTR_Frz) so its own instructions add no records;
	 * ntpmu's PMI handler unfreezes when it acks the status.
	 */
	wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	/* The reload value for GP0 lives in the DS area ntpmu programmed (offset 0x40). */
	((uint64_t *)(uintptr_t)rdmsr(MSR_IA32_DS_AREA))[8] =
		-(uint64_t)PERIOD & width_mask(cfg.gp_width);
	wrmsr(MSR_IA32_PMC0, -(uint64_t)PERIOD & width_mask(cfg.gp_width));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | EVTSEL_ADAPTIVE | PMU_EVENT_INSTRUCTIONS);
	wrmsr(MSR_IA32_PEBS_ENABLE, 1);
	asm volatile("sti");
	evbuf_loop(ITERATIONS);
	asm volatile("cli");
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
	wrmsr(MSR_IA32_DEBUGCTL, 0);
	printf("ntpmu_evbuf: calls=%u records=%u bad_calls=%u bad_records=%llu\n", calls, records,
	       bad_calls, (unsigned long long)bad_records);
	GUEST_ASSERT(calls >= 5);
	GUEST_ASSERT_EQ(records, calls * THRESHOLD);
	GUEST_ASSERT_EQ(bad_calls, 0);
	GUEST_ASSERT_EQ(bad_records, 0);
	GUEST_ASSERT_EQ(HalFreeHardwareCounters(owner), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_DS_AREA), 0);
	test_ok("ntpmu HAL event buffer");
	return 0;
}
