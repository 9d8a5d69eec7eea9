/*
 * The demo's PEBS profile: gets this CPU's PEBS control area
 * from ntpmu (NtSetSystemInformation(SystemProcessorProfileControlArea)),
 * samples instructions retired with PEBS over a small CPL0 workload, reads
 * the records back with ntpmu's reader and prints where the samples fell,
 * in proportion to what each loop retires (1200 instructions in the hot
 * loop, 80 in the cold one).  Without PEBS (plain QEMU/KVM, --pebs off) it
 * says so.
 *
 * The ntpmu platform here is the smallest that call needs: one CPU's MSRs,
 * one static area-sized pool slot, cli around a spinlock.
 */
#include <rt.h>
#include <rt/spinlock.h>
#include <pmu/events.h>
#include <pmu/msr.h>

#include "nt/ntexapi.h"
#include <ntpmu/pebs.h>
#include "ntpmu_platform.h"
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

static struct spinlock lock;
static _Alignas(64) uint8_t area_slot[256];
static bool slot_used;
static uint8_t buffer[MAX_SAMPLES * 0xb0] __attribute__((aligned(4096)));

static int d_rdmsr(void *ctx, uint32_t msr, uint64_t *val) { return rdmsr_safe(msr, val); }
static int d_wrmsr(void *ctx, uint32_t msr, uint64_t val) { return wrmsr_safe(msr, val); }
static unsigned int d_nr_cpus(void *ctx) { return 1; }
static unsigned int d_cpu_id(void *ctx) { return 0; }

static void d_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct cpuid_regs r = cpuid_count(leaf, subleaf);

	regs[0] = r.eax;
	regs[1] = r.ebx;
	regs[2] = r.ecx;
	regs[3] = r.edx;
}

static void *d_zalloc(void *ctx, size_t size)
{
	if (slot_used || size > sizeof(area_slot))
		return NULL;
	slot_used = true;
	memset(area_slot, 0, size);
	return area_slot;
}

static void d_free(void *ctx, void *p)
{
	if (p == area_slot)
		slot_used = false;
}

static unsigned long d_lock(void *ctx)
{
	unsigned long flags = read_rflags();

	cli();
	spin_lock(&lock);
	return flags;
}

static void d_unlock(void *ctx, unsigned long flags)
{
	spin_unlock(&lock);
	if (flags & (1ul << 9))
		sti();
}

static const struct ntpmu_platform_ops demo_ops = {
	.rdmsr = d_rdmsr, .wrmsr = d_wrmsr, .cpuid = d_cpuid, .nr_cpus = d_nr_cpus,
	.cpu_id = d_cpu_id, .zalloc = d_zalloc, .free = d_free, .lock = d_lock,
	.unlock = d_unlock,
};

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

	ntpmu_init(&demo_ops, NULL);
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
