/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared helpers of the pmu_* guests: the PMU configuration from CPUID. */
#ifndef PMU_COMMON_H
#define PMU_COMMON_H

#include <rt.h>
#include <x86-pmu/cpuid.h>
#include <x86-pmu/events.h>
#include <x86-pmu/msr.h>

#define PMI_VECTOR	0xe0

struct pmu_cfg {
	/*
	 * fixed_counters: bit i, fixed counter i exists (from version 5 with
	 * holes, cpuid_0a_fixed_counters()); nr_fixed is one past the highest,
	 * so a loop to it tests pmu_fixed_exists() before it touches one.
	 */
	unsigned int version, nr_gp, gp_width, nr_fixed, fixed_width;
	uint32_t fixed_counters;
	bool pdcm, fw_write;
	uint64_t perf_cap;
};

static inline struct pmu_cfg pmu_cfg_read(void)
{
	struct pmu_cfg c = { 0 };
	struct cpuid_regs r;

	if (cpuid(0).eax < CPUID_LEAF_PMU)
		return c;
	r = cpuid(CPUID_LEAF_PMU);
	c.version = CPUID_0A_EAX_VERSION(r.eax);
	c.nr_gp = CPUID_0A_EAX_NR_GP(r.eax);
	c.gp_width = CPUID_0A_EAX_GP_WIDTH(r.eax);
	c.fixed_counters = cpuid_0a_fixed_counters(r.eax, r.ecx, r.edx);
	c.nr_fixed = cpuid_0a_fixed_span(c.fixed_counters);
	c.fixed_width = CPUID_0A_EDX_FIXED_WIDTH(r.edx);
	c.pdcm = cpuid(1).ecx & CPUID_1_ECX_PDCM;
	if (c.pdcm && !rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &c.perf_cap))
		c.fw_write = c.perf_cap & PERF_CAP_FW_WRITE;
	return c;
}

static inline bool pmu_fixed_exists(const struct pmu_cfg *c, unsigned int i)
{
	return i < 32 && (c->fixed_counters >> i & 1);
}

/* Fixed counters 0 to n - 1 all exist (n <= 32). */
static inline bool pmu_fixed_first(const struct pmu_cfg *c, unsigned int n)
{
	uint32_t want = n >= 32 ? ~0u : (1u << n) - 1;

	return (c->fixed_counters & want) == want;
}

/*
 * An asm function `name` that counts its body at CPL0: one WRMSR sets
 * GLOBAL_CTRL to `gp` | `fixed` << 32 (not counted: a WRMSR counts with the
 * counters as they were), then the body, then PMU_SEQ_END_INSNS
 * instructions clear it (the last, a WRMSR, counted).  RBX is the body's.
 */
#define PMU_SEQ_BEGIN(name, gp, fixed)				\
	".globl " #name "\n" #name ":\n"			\
	"	pushq %rbx\n"					\
	"	movl $0x38f, %ecx\n"				\
	"	movl $" #gp ", %eax\n"				\
	"	movl $" #fixed ", %edx\n"			\
	"	wrmsr\n"
#define PMU_SEQ_END						\
	"	movl $0x38f, %ecx\n"				\
	"	xorl %eax, %eax\n"				\
	"	xorl %edx, %edx\n"				\
	"	wrmsr\n"					\
	"	popq %rbx\n"					\
	"	ret\n"
#define PMU_SEQ_END_INSNS	4

/*
 * EventSelect | UMask of @ev on the core CPUID.1 names, as tools choose
 * model-specific encodings (include/x86-pmu/events.h); the guest fails
 * where that core has none.
 */
static inline uint64_t pmu_model_event(int ev)
{
	uint64_t code = pmu_core_event_code(pmu_core_of_signature(cpuid(1).eax), ev);

	GUEST_ASSERT(code != 0);
	return code;
}

/*
 * Instructions retired around a CPL3 call of fn: USR in fixed counter 0,
 * OS in GP counter 0 (the runtime's way into user mode and back).
 */
static inline void pmu_count_user_run(uint64_t (*fn)(uint64_t), uint64_t *usr, uint64_t *os)
{
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(0));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_INSTRUCTIONS);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(0) | 1);
	rt_run_user(fn, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	*usr = rdmsr(MSR_IA32_FIXED_CTR0);
	*os = rdmsr(MSR_IA32_PMC0);
}

/* SYSCALL and SYSRET (SDM vol. 2B), for the guests that make system calls. */
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_FMASK	0xc0000084
#define RFLAGS_TF_IF	0x300ull

/*
 * SYSCALL enters `entry` with TF and IF cleared (FMASK); STAR: SYSCALL loads
 * CS 0x08/SS 0x10, SYSRETQ CS 0x28|3/SS 0x20|3 (rt/layout.h).
 */
static inline void syscall_setup(void (*entry)(void))
{
	wrmsr(MSR_STAR, (uint64_t)SEG_KCODE32 << 48 | (uint64_t)SEG_KCODE64 << 32);
	wrmsr(MSR_LSTAR, (uint64_t)entry);
	wrmsr(MSR_FMASK, RFLAGS_TF_IF);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}

/* A macro's value as a string, for asm(). */
#define STR(x)		#x
#define XSTR(x)		STR(x)

/*
 * CPL3 code for rt_run_user(): user_nop is a RET; user_syscalls makes
 * SYSCALL_N (10) system calls, counting down in R8 (SYSCALL takes RCX and
 * R11), then returns.
 */
#define SYSCALL_N	10
uint64_t user_nop(uint64_t arg);
uint64_t user_syscalls(uint64_t arg);
#define USER_SYSCALLS_ASM						\
	".globl user_nop\n"						\
	"user_nop:\n"							\
	"	ret\n"							\
	".globl user_syscalls\n"					\
	"user_syscalls:\n"						\
	"	movl $10, %r8d\n"					\
	"1:	syscall\n"						\
	"	decl %r8d\n"						\
	"	jnz 1b\n"						\
	"	ret\n"

static inline uint64_t width_mask(unsigned int w)
{
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* Spin (CPL0) until *flag != 0 or @ticks TSC ticks passed; true if set. */
static inline bool wait_flag(volatile int *flag, uint64_t ticks)
{
	uint64_t end = rdtsc() + ticks;

	while (!*flag && rdtsc() < end)
		cpu_relax();
	return *flag != 0;
}

/*
 * "pmu_final: cpu=N gp=V0,V1,... fixed=F0,..." with this CPU's counters, for
 * system tests to compare with pmuvm's --report (up to the highest fixed
 * counter; a hole prints 0, as the report has it).  Stop the counters first.
 */
static inline void pmu_print_final(const struct pmu_cfg *c)
{
	printf("pmu_final: cpu=%d gp=", rt_cpu_id());
	for (unsigned int x = 0; x < c->nr_gp; x++)
		printf("%s%llu", x ? "," : "", (unsigned long long)rdmsr(MSR_IA32_PMC0 + x));
	printf(" fixed=");
	for (unsigned int i = 0; i < c->nr_fixed; i++)
		printf("%s%llu", i ? "," : "",
		       pmu_fixed_exists(c, i) ?
		       (unsigned long long)rdmsr(MSR_IA32_FIXED_CTR0 + i) : 0ull);
	printf("\n");
}

/*
 * Spins until `ticks` TSC ticks passed and returns those it ran: from one
 * RDTSC to the next, gaps of `gap` or more mean it was interrupted (a
 * handler, a host exit, the host scheduler) and do not count. Plain
 * instructions, so it runs at CPL3 too (rt_run_user()).
 */
static inline uint64_t pmu_spin_ticks(uint64_t ticks, uint64_t gap)
{
	uint64_t start = rdtsc(), prev = start, now, ran = 0;

	do {
		now = rdtsc();
		if (now - prev < gap)
			ran += now - prev;
		prev = now;
	} while (now - start < ticks);
	return ran;
}

#endif
