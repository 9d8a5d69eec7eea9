/* SPDX-License-Identifier: MIT */
/*
 * The demo's PEBS profile: gets this CPU's PEBS control area
 * from ntpmu (NtSetSystemInformation(SystemProcessorProfileControlArea)),
 * samples instructions retired with PEBS over a small CPL0 workload, reads
 * the records back with ntpmu's reader and prints where the samples fell,
 * in proportion to what each loop retires (1200 instructions in the hot
 * loop, 80 in the cold one).  Without PEBS (plain QEMU/KVM, --pebs off) it
 * says so.
 */
#include <rt.h>
#include <ntpmu/ntpmu.h>
#include <ntpmu/pebs.h>
#include <x86-pmu/events.h>
#include <x86-pmu/msr.h>

#include "nt/ntexapi.h"
#include "demo.h"

#define PERIOD		101	/* prime, so samples walk over the loop body */
#define MAX_SAMPLES	64
#define HOT_BYTES	6	/* add, dec, jnz: 2 bytes each */

void demo_workload(void);
extern char demo_hot[], demo_cold[];

/* 400 x hot (add; dec; jnz), then 40 x cold (dec; jnz). */
asm(".text\n"
    ".globl demo_workload\ndemo_workload:\n"
    "	pushq %rbx\n"
    "	movl $400, %ebx\n"
    ".globl demo_hot\ndemo_hot:\n"
    "	addl %ebx, %esi\n"
    "	decl %ebx\n"
    "	jnz demo_hot\n"
    "	movl $40, %ebx\n"
    ".globl demo_cold\ndemo_cold:\n"
    "	decl %ebx\n"
    "	jnz demo_cold\n"
    "	popq %rbx\n"
    "	ret\n");

static uint8_t buffer[MAX_SAMPLES * 0xb0] __attribute__((aligned(4096)));

static void sample(PPROCESSOR_PROFILE_CONTROL_AREA area)
{
	PEBS_DS_SAVE_AREA64 *ds = &area->PebsDsSaveArea.As64Bit;

	ds->PebsBufferBase = ds->PebsIndex = (uintptr_t)buffer;
	ds->PebsAbsoluteMaximum = ds->PebsInterruptThreshold = (uintptr_t)buffer + sizeof(buffer);
	ds->PebsGpCounterReset[0] = -(uint64_t)PERIOD;
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_PEBS_DATA_CFG, PEBS_DATACFG_GPRS);
	wrmsr(MSR_IA32_PMC0, (uint32_t)-PERIOD);	/* legacy write: sign-extended */
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | EVTSEL_ADAPTIVE |
				    PMU_EVENT_INSTRUCTIONS);
	wrmsr(MSR_IA32_PEBS_ENABLE, 1);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	demo_workload();
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
}

static void print_profile(PPROCESSOR_PROFILE_CONTROL_AREA area)
{
	static struct ntpmu_pebs_sample smp[MAX_SAMPLES];
	static const char *const insn[3] = { "add esi, ebx", "dec ebx", "jnz demo_hot" };
	unsigned int hot[3] = { 0 }, cold = 0, other = 0;
	uint64_t h = (uint64_t)demo_hot;
	int n = ntpmu_pebs_read(area, smp, MAX_SAMPLES);

	if (n < 0) {
		puts("demo: pebs: unreadable buffer");
		return;
	}
	for (int i = 0; i < n; i++) {
		uint64_t ip = smp[i].EventingIp;

		if (ip >= h && ip < h + HOT_BYTES)
			hot[(ip - h) / 2]++;
		else if (ip >= (uint64_t)demo_cold && ip < (uint64_t)demo_cold + 4)
			cold++;
		else
			other++;
	}
	printf("demo: pebs profile, instructions retired every %d (%d samples):\n", PERIOD, n);
	for (int s = 0; s < 3; s++)
		printf("demo:   hot  %#llx  %-13s %3u\n", (unsigned long long)(h + 2 * s), insn[s],
		       hot[s]);
	printf("demo:   cold loop                   %3u\n", cold);
	printf("demo:   elsewhere                   %3u\n", other);
}

void demo_pebs_profile(void)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { NULL, TRUE };
	NTSTATUS st;

	ntpmu_rt_init();
	st = NtSetSystemInformation(SystemProcessorProfileControlArea, &s, sizeof(s));
	if (st == STATUS_NOT_SUPPORTED) {
		puts("demo: pebs: not supported on this CPU");
		return;
	}
	if (st != STATUS_SUCCESS) {
		printf("demo: pebs: control area: status %#x\n", (unsigned int)st);
		return;
	}
	sample(s.ProcessorProfileControlArea);
	print_profile(s.ProcessorProfileControlArea);
	s.Allocate = FALSE;
	NtSetSystemInformation(SystemProcessorProfileControlArea, &s, sizeof(s));
}
