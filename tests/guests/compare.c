/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compare: what a guest sees of the PMU, for scripts/pmuvm-compare, which
 * boots this image under QEMU/KVM and under pmuvm and sets the two side by
 * side.  Every result is one machine-readable line
 *
 *	compare: KEY VALUE [NAME]
 *
 * with KEY one of
 *	pmu.version pmu.gp_counters pmu.gp_width pmu.fixed_counters
 *	pmu.fixed_width         CPUID.0AH as the guest reads it
 *	ntpmu.KeSetHardwareCounterConfiguration, ...Query..., HalAllocate...
 *	                        NTSTATUS in hex and its name
 *	expect.instructions expect.branches
 *	                        what the loop below retires, exactly
 *	count.{kernel,user}.{instructions,fixed_instructions,branches,cycles}
 *	                        counts read with RDMSR, or "unavailable"
 *
 * On an AMD CPU (pmuvm --pmu amd) the PMU keys come from CPUID 0x80000022
 * (PerfMonV2) and the counts from AMD's core counters with AMD's event
 * encodings; AMD has no fixed counters ("unavailable").
 *
 * The workload is the same loop at CPL0 and at CPL3 (rt_run_user), run
 * twice, for 1 and for 1 + LOOP_ITERATIONS iterations; every count is the
 * difference of the two runs.  That removes whatever the enabling and
 * disabling WRMSRs and the CPL3 entry and exit add, which differs between
 * pmuvm (docs/counting.md, "Retirement events: the exact source") and a hardware
 * PMU under KVM (which also counts instructions KVM emulates), so the
 * exact events must agree to the unit on any host that counts them.
 */
#include <rt.h>
#include <ntpmu/ntpmu.h>

#include "nt/ntddk.h"
#include "nt/ntstatus.h"
#include "pmu_common.h"

#define LOOP_ITERATIONS		1000
/* Each iteration is DEC + JNZ: two instructions, one branch. */
#define LOOP_INSNS_PER_ITER	2
#define LOOP_BRANCHES_PER_ITER	1

/* uint64_t compare_loop(uint64_t n), n >= 1: n iterations of DEC; JNZ. */
uint64_t compare_loop(uint64_t n);
asm(".text\n"
    ".globl compare_loop\n"
    "compare_loop:\n"
    "	movq %rdi, %rcx\n"
    "1:	decq %rcx\n"
    "	jnz 1b\n"
    "	xorl %eax, %eax\n"
    "	ret\n");

/* The counters used: fixed 0 and GP 0-2, so version 2 with 3 GP and 1 fixed. */
enum { CTR_INSNS, CTR_BRANCHES, CTR_CYCLES, NR_GP_USED };

static const uint64_t gp_event[NR_GP_USED] = {
	[CTR_INSNS] = PMU_EVENT_INSTRUCTIONS,
	[CTR_BRANCHES] = PMU_EVENT_BRANCHES,
	[CTR_CYCLES] = PMU_EVENT_CORE_CYCLES,
};

static const uint64_t amd_event[NR_GP_USED] = {
	[CTR_INSNS] = PMU_AMD_EVENT_INSTRUCTIONS,
	[CTR_BRANCHES] = PMU_AMD_EVENT_BRANCHES,
	[CTR_CYCLES] = PMU_AMD_EVENT_CORE_CYCLES,
};

static bool amd;

static uint32_t msr_ctl(unsigned int i)
{
	return amd ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_IA32_PERFEVTSEL0 + i;
}

static uint32_t msr_ctr(unsigned int i)
{
	return amd ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_IA32_PMC0 + i;
}

static uint32_t msr_global_ctrl(void)
{
	return amd ? MSR_AMD64_PERF_CNTR_GLOBAL_CTL : MSR_IA32_PERF_GLOBAL_CTRL;
}

/* AMD with PerfMonV2: the PMU keys as an AMD driver reads them. */
static bool amd_pmu_read(struct pmu_cfg *c)
{
	struct cpuid_regs r = cpuid(0);

	if (r.ebx != 0x68747541 || r.edx != 0x69746e65 || r.ecx != 0x444d4163)	/* AuthenticAMD */
		return false;
	*c = (struct pmu_cfg){ 0 };
	if (cpuid(0x80000000).eax >= CPUID_LEAF_AMD_PMU &&
	    (cpuid(CPUID_LEAF_AMD_PMU).eax & CPUID_8000_0022_EAX_PERFMON_V2)) {
		c->version = 2;
		c->nr_gp = CPUID_8000_0022_EBX_NR_CORE(cpuid(CPUID_LEAF_AMD_PMU).ebx);
		c->gp_width = 48;
	}
	return true;
}

struct counts {
	uint64_t gp[NR_GP_USED];
	uint64_t fixed0;
};

static const char *status_name(NTSTATUS st)
{
	switch (st) {
	case STATUS_SUCCESS:			return "STATUS_SUCCESS";
	case STATUS_NOT_IMPLEMENTED:		return "STATUS_NOT_IMPLEMENTED";
	case STATUS_INVALID_PARAMETER:		return "STATUS_INVALID_PARAMETER";
	case STATUS_INSUFFICIENT_RESOURCES:	return "STATUS_INSUFFICIENT_RESOURCES";
	case STATUS_NOT_SUPPORTED:		return "STATUS_NOT_SUPPORTED";
	case STATUS_WMI_ALREADY_ENABLED:	return "STATUS_WMI_ALREADY_ENABLED";
	default:				return "other";
	}
}

static void print_status(const char *call, NTSTATUS st)
{
	printf("compare: ntpmu.%s 0x%08x %s\n", call, (unsigned int)st, status_name(st));
}

/*
 * A driver's view: thread-profiling configuration of GP 0, query it back,
 * then own GP 1 through the HAL; everything is released again so that the
 * counts below start from a free PMU.
 */
static void ntpmu_calls(void)
{
	HARDWARE_COUNTER cfg = { .Type = PMCCounter, .Index = 0 };
	HARDWARE_COUNTER back[4];
	PHYSICAL_COUNTER_RESOURCE_LIST l = { .Count = 1 };
	NTSTATUS set, st;
	ULONG n = 0;
	HANDLE h;

	set = KeSetHardwareCounterConfiguration(&cfg, 1);
	print_status("KeSetHardwareCounterConfiguration", set);
	st = KeQueryHardwareCounterConfiguration(back, 4, &n);
	print_status("KeQueryHardwareCounterConfiguration", st);
	if (st == STATUS_SUCCESS)
		printf("compare: ntpmu.configured_counters %u\n", (unsigned int)n);
	l.Descriptors[0].Type = ResourceTypeSingle;
	l.Descriptors[0].u.CounterIndex = 1;
	st = HalAllocateHardwareCounters(NULL, 0, &l, &h);
	print_status("HalAllocateHardwareCounters", st);
	if (st == STATUS_SUCCESS)
		GUEST_ASSERT_EQ(HalFreeHardwareCounters(h), STATUS_SUCCESS);
	if (set == STATUS_SUCCESS)
		GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
}

/* Program the counters for one privilege level; GLOBAL_CTRL stays 0. */
static void counters_arm(uint64_t evtsel_mode, uint64_t fixed_ctrl)
{
	wrmsr(msr_global_ctrl(), 0);
	for (unsigned int i = 0; i < NR_GP_USED; i++) {
		wrmsr(msr_ctr(i), 0);
		wrmsr(msr_ctl(i), EVTSEL_EN | evtsel_mode | (amd ? amd_event[i] : gp_event[i]));
	}
	if (amd)
		return;
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl);
}

static struct counts counters_read(void)
{
	struct counts c;

	for (unsigned int i = 0; i < NR_GP_USED; i++)
		c.gp[i] = rdmsr(msr_ctr(i));
	c.fixed0 = amd ? 0 : rdmsr(MSR_IA32_FIXED_CTR0);
	return c;
}

static const uint64_t global_en = BIT_ULL(CTR_INSNS) | BIT_ULL(CTR_BRANCHES) |
				  BIT_ULL(CTR_CYCLES) | GLOBAL_CTRL_FIXED(0);

static struct counts run_kernel(uint64_t n)
{
	counters_arm(EVTSEL_OS, FIXED_CTRL_OS(0));
	wrmsr(msr_global_ctrl(), amd ? global_en & 0xff : global_en);
	compare_loop(n);
	wrmsr(msr_global_ctrl(), 0);
	return counters_read();
}

static struct counts run_user(uint64_t n)
{
	counters_arm(EVTSEL_USR, FIXED_CTRL_USR(0));
	wrmsr(msr_global_ctrl(), amd ? global_en & 0xff : global_en);
	rt_run_user(compare_loop, n);
	wrmsr(msr_global_ctrl(), 0);
	return counters_read();
}

static void print_count(const char *mode, const char *name, uint64_t a, uint64_t b)
{
	/* Signed: a time-based count may in principle come out smaller. */
	printf("compare: count.%s.%s %lld\n", mode, name, (long long)(b - a));
}

static void count(const char *mode, struct counts (*run)(uint64_t))
{
	struct counts a = run(1), b = run(1 + LOOP_ITERATIONS);

	print_count(mode, "instructions", a.gp[CTR_INSNS], b.gp[CTR_INSNS]);
	if (amd)
		printf("compare: count.%s.fixed_instructions unavailable\n", mode);
	else
		print_count(mode, "fixed_instructions", a.fixed0, b.fixed0);
	print_count(mode, "branches", a.gp[CTR_BRANCHES], b.gp[CTR_BRANCHES]);
	print_count(mode, "cycles", a.gp[CTR_CYCLES], b.gp[CTR_CYCLES]);
}

static void count_unavailable(const char *mode)
{
	static const char *const names[] = {
		"instructions", "fixed_instructions", "branches", "cycles",
	};

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("compare: count.%s.%s unavailable\n", mode, names[i]);
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	bool usable;

	amd = amd_pmu_read(&cfg);
	if (amd)
		printf("compare: cpu.vendor AuthenticAMD\n");

	printf("compare: pmu.version %u\n", cfg.version);
	printf("compare: pmu.gp_counters %u\n", cfg.nr_gp);
	printf("compare: pmu.gp_width %u\n", cfg.gp_width);
	printf("compare: pmu.fixed_counters %u\n", cfg.nr_fixed);
	printf("compare: pmu.fixed_width %u\n", cfg.fixed_width);

	ntpmu_rt_init();
	ntpmu_calls();

	printf("compare: expect.instructions %u\n", LOOP_ITERATIONS * LOOP_INSNS_PER_ITER);
	printf("compare: expect.branches %u\n", LOOP_ITERATIONS * LOOP_BRANCHES_PER_ITER);
	/* As a driver would, trust CPUID: without these counters, do not touch them. */
	usable = cfg.version >= 2 && cfg.nr_gp >= NR_GP_USED && (amd || pmu_fixed_exists(&cfg, 0));
	if (usable) {
		count("kernel", run_kernel);
		count("user", run_user);
	} else {
		count_unavailable("kernel");
		count_unavailable("user");
	}
	return 0;
}
