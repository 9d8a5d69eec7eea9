/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmu_overflow: counter overflow, GLOBAL_STATUS, PMI delivery through LVTPC
 * and freeze on PMI, seen from the guest (docs/intel-pmu.md 3.3, 3.4, 3.6).
 *
 * Every case counts unhalted core cycles (0x3C/0x00) at OS and USR on GP
 * counter 0 and/or fixed counter 1, preset PRESET cycles before the wrap
 * (GP counter 1 counts the same cycles as a witness where a case needs one).
 * Cycles only accrue while the vCPU runs guest code and CPL0 code is
 * emulated here, so the preset is small (~40 us at 2.5 GHz) and every wait
 * is a bounded spin.
 *
 * The PMI handler does not unmask LVTPC unless a case asks it to, so a
 * second PMI would be dropped (and show up in the report as masked).
 *
 * Version 2 and 3 freeze by clearing GLOBAL_CTRL, version 4+ by setting
 * CTR_Frz (and LBR_Frz); the case picks by CPUID.0AH.EAX version.
 *
 * Output for the system test: the PMIs and NMIs seen and the PMI requests
 * made while LVTPC was masked ("pmu_overflow: pmis=N nmis=N masked=N"),
 * and the final counter values (pmu_final line, see pmu_common.h).
 */
#include "pmu_common.h"

#define PRESET		100000ull	/* cycles to the wrap */
#define WAIT_TICKS	5000000000ull	/* ~2 s of TSC: an upper bound only */
#define QUIET_TICKS	20000000ull	/* ~8 ms in which no PMI may arrive */

static struct pmu_cfg cfg;
static volatile int nr_pmi, nr_nmi;		/* this case */
static volatile int total_pmi, total_nmi, nr_masked;	/* for the report check */
static volatile bool unmask_in_handler;
static volatile uint64_t pmi_lvtpc, pmi_status, pmi_ctrl;

static void record(void)
{
	pmi_lvtpc = apic_read_lvtpc();
	pmi_status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	pmi_ctrl = rdmsr(MSR_IA32_PERF_GLOBAL_CTRL);
}

static void pmi(struct rt_frame *f)
{
	record();
	if (unmask_in_handler)
		apic_write_lvtpc(PMI_VECTOR);
	nr_pmi++;
	total_pmi++;
}

static void nmi(struct rt_frame *f)
{
	record();
	nr_nmi++;
	total_nmi++;
}

static uint64_t gp_preset(void)
{
	return (0 - PRESET) & width_mask(cfg.gp_width);
}

static uint64_t fixed_preset(void)
{
	return (0 - PRESET) & width_mask(cfg.fixed_width);
}

static void stop_all(void)
{
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	for (unsigned int x = 0; x < cfg.nr_gp; x++)
		wrmsr(MSR_IA32_PERFEVTSEL0 + x, 0);
	wrmsr(MSR_IA32_DEBUGCTL, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
	unmask_in_handler = false;
	nr_pmi = nr_nmi = 0;
}

/*
 * GP counter x on core cycles, still disabled in GLOBAL_CTRL; the legacy
 * write of the low 32 bits sign-extends.
 */
static void program_gp(unsigned int x, bool intr, uint64_t value)
{
	wrmsr(MSR_IA32_PMC0 + x, value);
	wrmsr(MSR_IA32_PERFEVTSEL0 + x, PMU_EVENT_CORE_CYCLES | EVTSEL_OS | EVTSEL_USR |
					EVTSEL_EN | (intr ? EVTSEL_INT : 0));
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0 + x), value & width_mask(cfg.gp_width));
}

static void program_fixed1(bool pmi_bit)
{
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, fixed_preset());
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1) | FIXED_CTRL_USR(1) |
				       (pmi_bit ? FIXED_CTRL_PMI(1) : 0));
}

/* Polls GLOBAL_STATUS (each read is an exit, so guest time passes) until `bits` are set. */
static uint64_t wait_status(uint64_t bits)
{
	uint64_t end = rdtsc() + WAIT_TICKS, s;

	do
		s = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	while ((s & bits) != bits && rdtsc() < end);
	if ((s & bits) != bits)
		GUEST_FAIL("GLOBAL_STATUS 0x%llx never got 0x%llx", (unsigned long long)s,
			   (unsigned long long)bits);
	return s;
}

/* Polls `msr` for up to `ticks` until it differs from `old`: the counter runs. */
static bool advances(uint32_t msr, uint64_t old, uint64_t ticks)
{
	uint64_t end = rdtsc() + ticks;

	while (rdtsc() < end)
		if (rdmsr(msr) != old)
			return true;
	return false;
}

static void expect_no_pmi(void)
{
	GUEST_ASSERT(!wait_flag(&nr_pmi, QUIET_TICKS));
	GUEST_ASSERT(!wait_flag(&nr_nmi, 1));
}

/* Overflow without INT/PMI: status set, no PMI; 0x390 clears it (docs/intel-pmu.md 3.3, 2.6). */
static void case_no_interrupt(bool fixed)
{
	uint64_t bit = fixed ? GLOBAL_CTRL_FIXED(1) : BIT_ULL(0);
	uint32_t ctr = fixed ? MSR_IA32_FIXED_CTR0 + 1 : MSR_IA32_PMC0;
	uint64_t v;

	apic_write_lvtpc(PMI_VECTOR);
	if (fixed)
		program_fixed1(false);
	else
		program_gp(0, false, gp_preset());
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, bit);
	GUEST_ASSERT_EQ(wait_status(bit), bit);
	expect_no_pmi();
	/* It wrapped and counts on from 0. */
	v = rdmsr(ctr);
	GUEST_ASSERT(v < PRESET * 1000);
	GUEST_ASSERT(advances(ctr, v, WAIT_TICKS));
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), bit);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
	GUEST_ASSERT_EQ(apic_read_lvtpc(), PMI_VECTOR);
	stop_all();
	test_ok(fixed ? "fixed overflow, PMI clear: status only" :
			"gp overflow, INT clear: status only");
}

/* With INT/PMI: one PMI at the LVTPC vector, and LVTPC masked on delivery (docs/intel-pmu.md 3.4). */
static void case_interrupt(bool gp, bool fixed)
{
	uint64_t bits = (gp ? BIT_ULL(0) : 0) | (fixed ? GLOBAL_CTRL_FIXED(1) : 0);

	apic_write_lvtpc(PMI_VECTOR);
	/* Unmasking in the handler would let a second PMI through. */
	unmask_in_handler = gp && fixed;
	if (gp)
		program_gp(0, true, gp_preset());
	if (fixed)
		program_fixed1(true);
	/* One write enables both: they count the same cycles and wrap together. */
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, bits);
	GUEST_ASSERT(wait_flag(&nr_pmi, WAIT_TICKS));
	GUEST_ASSERT_EQ(pmi_status, bits);
	GUEST_ASSERT_EQ(pmi_ctrl, bits);
	GUEST_ASSERT_EQ(pmi_lvtpc, PMI_VECTOR | APIC_LVT_MASKED);
	GUEST_ASSERT_EQ(nr_pmi, 1);
	nr_pmi = 0;
	expect_no_pmi();		/* nothing else wraps: no second PMI */
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), bits);
	GUEST_ASSERT_EQ(apic_read_lvtpc(), unmask_in_handler ? PMI_VECTOR :
					   PMI_VECTOR | APIC_LVT_MASKED);
	stop_all();
	test_ok(gp && fixed ? "simultaneous gp and fixed overflow: one PMI" :
		gp ? "gp overflow with INT: PMI, LVTPC masked" :
		     "fixed overflow with PMI: PMI, LVTPC masked");
}

/* A masked LVTPC delivers nothing; the request is dropped, not held (KVM). */
static void case_masked(void)
{
	apic_write_lvtpc(PMI_VECTOR | APIC_LVT_MASKED);
	program_gp(0, true, gp_preset());
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(0));
	GUEST_ASSERT_EQ(wait_status(BIT_ULL(0)), BIT_ULL(0));
	nr_masked++;
	expect_no_pmi();
	apic_write_lvtpc(PMI_VECTOR);
	expect_no_pmi();
	stop_all();
	test_ok("masked LVTPC: status set, no PMI");
}

/* LVTPC in NMI mode: the PMI is an NMI, and LVTPC is masked on delivery too. */
static void case_nmi(void)
{
	rt_set_exception_hook(VEC_NMI, nmi);
	apic_write_lvtpc(APIC_LVT_DM_NMI);
	program_gp(0, true, gp_preset());
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(0));
	/* No *_safe accessor while an NMI may hit (their RIPs are in the extable). */
	GUEST_ASSERT(wait_flag(&nr_nmi, WAIT_TICKS));
	GUEST_ASSERT_EQ(nr_pmi, 0);
	GUEST_ASSERT_EQ(pmi_status, BIT_ULL(0));
	GUEST_ASSERT_EQ(pmi_lvtpc, APIC_LVT_DM_NMI | APIC_LVT_MASKED);
	GUEST_ASSERT_EQ(apic_read_lvtpc(), APIC_LVT_DM_NMI | APIC_LVT_MASKED);
	rt_set_exception_hook(VEC_NMI, NULL);
	GUEST_ASSERT_EQ(nr_nmi, 1);
	nr_nmi = 0;
	stop_all();
	test_ok("LVTPC NMI mode: NMI delivered");
}

/*
 * STATUS_SET (v4+, docs/intel-pmu.md 2.7) is a VMM aid: setting an overflow bit requests
 * no PMI, and setting CTR_Frz stops the counters like a freeze does
 * (vmm/model/README.md choices table).
 */
static void case_status_set(void)
{
	uint64_t v;

	if (cfg.version < 4)
		return;
	apic_write_lvtpc(PMI_VECTOR);
	program_gp(1, true, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT_ULL(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, BIT_ULL(1));
	expect_no_pmi();
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), BIT_ULL(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_STATUS_CTR_FRZ);
	v = rdmsr(MSR_IA32_PMC0 + 1);
	GUEST_ASSERT(!advances(MSR_IA32_PMC0 + 1, v, QUIET_TICKS));
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_STATUS_CTR_FRZ | BIT_ULL(1));
	GUEST_ASSERT(advances(MSR_IA32_PMC0 + 1, v, WAIT_TICKS));
	stop_all();
	test_ok("STATUS_SET: no PMI for an overflow bit, CTR_Frz stops counting");
}

/*
 * Freeze on PMI (docs/intel-pmu.md 3.6): GP0 overflows with INT while GP1 counts the
 * same cycles from 0.  The freeze happens at the PMI request, so both stop
 * exactly there: GP0 at 0, GP1 at PRESET.
 */
static void case_freeze(void)
{
	uint64_t both = BIT_ULL(0) | BIT_ULL(1);
	uint64_t frz = GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_LBR_FRZ;
	bool v4 = cfg.version >= 4;

	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI);
	program_gp(0, true, gp_preset());
	program_gp(1, false, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, both);
	GUEST_ASSERT(wait_flag(&nr_pmi, WAIT_TICKS));
	if (v4) {
		/* Streamlined: CTR_Frz and LBR_Frz set, GLOBAL_CTRL untouched. */
		GUEST_ASSERT_EQ(pmi_status, BIT_ULL(0) | frz);
		GUEST_ASSERT_EQ(pmi_ctrl, both);
	} else {
		/* Legacy: GLOBAL_CTRL cleared. */
		GUEST_ASSERT_EQ(pmi_status, BIT_ULL(0));
		GUEST_ASSERT_EQ(pmi_ctrl, 0);
	}
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0), 0);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0 + 1), PRESET);
	GUEST_ASSERT(!advances(MSR_IA32_PMC0 + 1, PRESET, QUIET_TICKS));
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_DEBUGCTL),
			DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI);

	/* Resume: v4+ clears CTR_Frz through 0x390, v2/v3 rewrites GLOBAL_CTRL. */
	wrmsr(MSR_IA32_DEBUGCTL, 0);
	if (v4) {
		wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, BIT_ULL(0) | frz);
		GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_CTRL), both);
	} else {
		wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, BIT_ULL(0));
		GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, both);
	}
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
	GUEST_ASSERT(advances(MSR_IA32_PMC0 + 1, PRESET, WAIT_TICKS));
	stop_all();
	test_ok(v4 ? "freeze on PMI (v4+): CTR_Frz stops counters until cleared" :
		     "freeze on PMI (v2/v3): GLOBAL_CTRL cleared");
}

int main(void)
{
	cfg = pmu_cfg_read();
	printf("pmu_overflow: version=%u gp=%u fixed=%u\n", cfg.version, cfg.nr_gp, cfg.nr_fixed);
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 2 && pmu_fixed_exists(&cfg, 1));
	rt_set_irq_handler(PMI_VECTOR, pmi);
	/* GLOBAL_CTRL resets with every GP enable set: clear it before programming. */
	stop_all();
	sti();

	case_no_interrupt(false);
	case_no_interrupt(true);
	case_interrupt(true, false);
	case_interrupt(false, true);
	case_interrupt(true, true);
	case_masked();
	case_nmi();
	case_status_set();
	case_freeze();

	cli();
	pmu_print_final(&cfg);
	printf("pmu_overflow: pmis=%d nmis=%d masked=%d\n", total_pmi, total_nmi, nr_masked);
	return 0;
}
