/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmu_counters: the checks of Linux's KVM selftest pmu_counters_test,
 * written anew for pmuvm's emulated Intel PMU, for the CPUID.0AH pmuvm was
 * started with (docs/counting.md, "Checks shared with KVM's selftests"):
 *
 *   - every architectural event, on every GP counter and on its fixed
 *     counter, counts what the sources produce whatever CPUID.0AH:EBX and
 *     the vector length say: instructions and branches exactly, cycles
 *     and reference cycles non-zero, an event no source produces 0; a
 *     disabled counter does not move and takes a written value;
 *   - GLOBAL_CTRL resets to the GP counters' enables (0 with none);
 *   - a GP counter, event select or fixed counter that CPUID does not
 *     enumerate #GPs on RDMSR, WRMSR and RDPMC (0xC1 and 0xC2 too, unlike
 *     KVM), and an absent fixed counter's FIXED_CTR_CTRL field and
 *     GLOBAL_CTRL bit #GP;
 *   - RDPMC's legacy fast-read bit (ECX bit 31) always #GPs.
 *
 * The command line's counting=MASK names the architectural events that
 * count on GP counters (bit i: CPUID.0AH:EBX event i), those pmuvm's
 * sources produce and its --event-filter allows, which only the system
 * test knows; fixed_counting=MASK the fixed counters that count (default:
 * those whose event is in counting), as KVM's pmu_event_filter_test checks.  Prints "pmu_counters: version=V gp=N fixed=N ecx=M evlen=L
 * ebx=M" (fixed: EDX[4:0]) so the system test can check the guest saw what
 * it asked for, and "pmu_counters: fixed_counters=M nr_fixed=N rt_pmc
 * fixed_counters=M nr_fixed=N": the fixed counters the test guests'
 * discovery (pmu_common.h) and the runtime's (rt_pmc_probe()) found.
 */
#include "pmu_common.h"

#define NR_LOOPS	10
/* measure(): MOV, NR_LOOPS x {NOP, MFENCE, LOOP}, then MOV, XOR, XOR, WRMSR. */
#define MEASURED_INSNS	(1 + 3 * NR_LOOPS + 4)
#define MEASURED_BRANCHES	NR_LOOPS
#define MAX_GP		8
#define MAX_FIXED	4
#define WRITTEN		0xdeadull

static struct pmu_cfg cfg;
static uint32_t fixed_present;	/* bit i: fixed counter i exists */
static uint32_t counting;	/* bit i: architectural event i counts on GP counters */
static uint32_t fixed_counting;	/* bit i: fixed counter i counts */
static uint32_t pmc_base;	/* IA32_A_PMC0 with FW_WRITE, else IA32_PMC0 */

/*
 * measure(msr, value): WRMSR msr <- value starts counting (a WRMSR counts
 * with the counters as they were: not counted), the loop runs, and WRMSR
 * msr <- 0 (counted) stops it again.
 */
void measure(uint32_t msr, uint64_t value);
asm(".text\n"
    ".globl measure\n"
    "measure:\n"
    "	movl %edi, %ecx\n"
    "	movl %esi, %eax\n"
    "	movq %rsi, %rdx\n"
    "	shrq $32, %rdx\n"
    "	wrmsr\n"
    "	movl $" XSTR(NR_LOOPS) ", %ecx\n"
    "1:	nop\n"
    "	mfence\n"
    "	loop 1b\n"
    "	movl %edi, %ecx\n"
    "	xorl %eax, %eax\n"
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    "	ret\n");

static void loop_uncounted(void)
{
	int n = NR_LOOPS;

	asm volatile("1: loop 1b" : "+c"(n));
}

static void expect_vector(const char *what, uint32_t idx, int vec, int want)
{
	if (vec != want)
		GUEST_FAIL("%s 0x%x: vector %d, want %d", what, idx, vec, want);
}

/* RDPMC of ecx: #GP if !present, else the value `want`; its fast read always #GPs. */
static void check_rdpmc(uint32_t ecx, bool present, uint64_t want)
{
	uint64_t v = 0;

	expect_vector("rdpmc", ecx, rdpmc_safe(ecx, &v), present ? 0 : VEC_GP);
	if (present && v != want)
		GUEST_FAIL("rdpmc 0x%x = 0x%llx, want 0x%llx", ecx, (unsigned long long)v,
			   (unsigned long long)want);
	expect_vector("fast rdpmc", ecx | RDPMC_FAST, rdpmc_safe(ecx | RDPMC_FAST, &v), VEC_GP);
}

/* The count of architectural event ev over measure(), where exact; 0 unless `counts`. */
static void check_count(int ev, bool counts, uint32_t rdpmc_ecx, uint32_t msr, const char *where)
{
	uint64_t count = 0;

	GUEST_ASSERT(!rdpmc_safe(rdpmc_ecx, &count));
	if (!counts) {
		if (count)
			GUEST_FAIL("event %d on %s: %llu, but it must not count", ev, where,
				   (unsigned long long)count);
	} else if (ev == PMU_EV_INSTRUCTIONS) {
		if (count != MEASURED_INSNS)
			GUEST_FAIL("instructions on %s: %llu, want %d", where,
				   (unsigned long long)count, MEASURED_INSNS);
	} else if (ev == PMU_EV_BRANCHES) {
		if (count != MEASURED_BRANCHES)
			GUEST_FAIL("branches on %s: %llu, want %d", where,
				   (unsigned long long)count, MEASURED_BRANCHES);
	} else if (!count) {
		GUEST_FAIL("event %d on %s: 0, but it must count", ev, where);
	}
	/* Stopped: it does not move; it takes a written value. */
	loop_uncounted();
	check_rdpmc(rdpmc_ecx, true, count);
	wrmsr(msr, WRITTEN);
	check_rdpmc(rdpmc_ecx, true, WRITTEN);
}

/*
 * Every architectural event on every GP counter, whatever EBX and the
 * vector length say (the fixed counters' events: check_fixed_counters()).
 */
static void check_arch_events(void)
{
	char where[32];

	for (int ev = 0; ev < PMU_EV_VECTOR_LEN; ev++) {
		uint64_t sel = EVTSEL_EN | EVTSEL_OS | pmu_event_code(ev);

		for (unsigned int i = 0; i < cfg.nr_gp; i++) {
			wrmsr(MSR_IA32_PERFEVTSEL0 + i, 0);
			wrmsr(pmc_base + i, 0);
			if (cfg.version >= 2)
				wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(i));
			measure(MSR_IA32_PERFEVTSEL0 + i, sel);
			snprintf(where, sizeof(where), "GP %u", i);
			check_count(ev, counting & BIT_ULL(ev), i, pmc_base + i, where);
		}
	}
	test_ok("architectural events");
}

/* SDM: GLOBAL_CTRL's RESET value sets bits n-1:0; the fixed enables are clear. */
static void check_global_ctrl_reset(void)
{
	uint64_t v;

	if (cfg.version < 2)
		return;
	GUEST_ASSERT(!rdmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, &v));
	GUEST_ASSERT_EQ(v, width_mask(cfg.nr_gp));
	test_ok("GLOBAL_CTRL reset");
}

/* Write, read back through RDMSR and RDPMC, or #GP everywhere. */
static void check_counter_msr(uint32_t msr, uint32_t rdpmc_ecx, bool present)
{
	int want = present ? 0 : VEC_GP;
	uint64_t v = 0;

	expect_vector("wrmsr", msr, wrmsr_safe(msr, 0xffff), want);
	expect_vector("rdmsr", msr, rdmsr_safe(msr, &v), want);
	if (present && v != 0xffff)
		GUEST_FAIL("rdmsr 0x%x = 0x%llx, want 0xffff", msr, (unsigned long long)v);
	check_rdpmc(rdpmc_ecx, present, 0xffff);
	expect_vector("wrmsr", msr, wrmsr_safe(msr, 0), want);
}

/*
 * GP counters 0-7 through the alias the selftest uses, the legacy one
 * (0xC1, 0xC2 included: pmuvm #GPs where KVM reads 0) and the event select.
 */
static void check_gp_counters(void)
{
	uint64_t v;

	for (unsigned int i = 0; i < MAX_GP; i++) {
		bool present = i < cfg.nr_gp;

		check_counter_msr(pmc_base + i, i, present);
		if (pmc_base != MSR_IA32_PMC0)
			check_counter_msr(MSR_IA32_PMC0 + i, i, present);
		expect_vector("rdmsr", MSR_IA32_PERFEVTSEL0 + i,
			      rdmsr_safe(MSR_IA32_PERFEVTSEL0 + i, &v), present ? 0 : VEC_GP);
		expect_vector("wrmsr", MSR_IA32_PERFEVTSEL0 + i,
			      wrmsr_safe(MSR_IA32_PERFEVTSEL0 + i, 0), present ? 0 : VEC_GP);
	}
	test_ok("GP counters");
}

/*
 * Fixed counter i exists iff i < EDX[4:0] or, from version 5, ECX[i]
 * (SDM vol. 2A, CPUID leaf 0AH); an absent one #GPs in its MSR, RDPMC,
 * FIXED_CTR_CTRL field and GLOBAL_CTRL bit; a present one counts its
 * event (docs/intel-pmu.md 3.7) as a GP counter does.
 */
static void check_fixed_counters(void)
{
	char where[32];

	for (unsigned int i = 0; i < MAX_FIXED; i++) {
		bool present = fixed_present & BIT_ULL(i);

		check_counter_msr(MSR_IA32_FIXED_CTR0 + i, RDPMC_FIXED | i, present);
		if (cfg.version < 2)
			continue;
		if (!present) {
			expect_vector("FIXED_CTR_CTRL for counter", i,
				      wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(i)), VEC_GP);
			expect_vector("GLOBAL_CTRL for fixed counter", i,
				      wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(i)),
				      VEC_GP);
			continue;
		}
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(i));
		measure(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(i));
		snprintf(where, sizeof(where), "fixed %u", i);
		check_count(pmu_fixed_event(i), fixed_counting & BIT_ULL(i), RDPMC_FIXED | i,
			    MSR_IA32_FIXED_CTR0 + i, where);
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	}
	test_ok("fixed counters");
}

int main(void)
{
	struct cpuid_regs r = { 0 };
	struct rt_pmc_info pmc;
	uint64_t arg;

	cfg = pmu_cfg_read();
	if (cpuid(0).eax >= CPUID_LEAF_PMU)
		r = cpuid(CPUID_LEAF_PMU);
	fixed_present = cfg.fixed_counters;
	printf("pmu_counters: version=%u gp=%u fixed=%u ecx=0x%x evlen=%u ebx=0x%x\n",
	       cfg.version, cfg.nr_gp, CPUID_0A_EDX_NR_FIXED(r.edx), r.ecx,
	       CPUID_0A_EAX_EVLEN(r.eax), r.ebx);
	rt_pmc_probe(&pmc);
	printf("pmu_counters: fixed_counters=0x%x nr_fixed=%u rt_pmc fixed_counters=0x%x "
	       "nr_fixed=%u\n", cfg.fixed_counters, cfg.nr_fixed, pmc.fixed_counters,
	       pmc.nr_fixed);
	GUEST_ASSERT(mbi_arg_u64("counting", &arg));
	counting = (uint32_t)arg;
	for (unsigned int i = 0; i < MAX_FIXED; i++)
		if (counting & BIT_ULL(pmu_fixed_event(i)))
			fixed_counting |= 1u << i;
	if (mbi_arg_u64("fixed_counting", &arg))
		fixed_counting = (uint32_t)arg;
	pmc_base = cfg.fw_write ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0;

	check_global_ctrl_reset();
	check_gp_counters();
	check_fixed_counters();
	if (cfg.version)
		check_arch_events();
	return 0;
}
