/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hostile_pmu: a guest that attacks pmuvm's PMU emulation, then
 * triple-faults.  pmuvm must survive all of it (tests/system/test_hostile.c
 * checks the exit status, stderr and the report):
 *
 *   1. xorshift64 random values (seed=N from --append, else a fixed seed)
 *      written to every PMU MSR and its neighbours with wrmsr_safe, each
 *      read back with rdmsr_safe; #GPs are expected.  Counters that read
 *      back must fit their width (CPUID.0AH).
 *   2. IA32_DS_AREA pointed at the LAPIC and IOAPIC MMIO pages, beyond RAM,
 *      unmapped and non-canonical addresses: accepted and read back iff
 *      CPUID.1:EDX.DS and the address is canonical, else #GP (kvm-vpmu.md
 *      1.2).
 *   3. LVTPC delivery modes that are invalid for it: no PMI arrives.
 *   4. A PMI flood, with LVTPC in fixed mode and then in NMI mode: core
 *      cycles on GP0 and fixed counter 1 preset to -1 with PMI enabled;
 *      the handler acks, unmasks LVTPC and re-arms both at -1.  The guest
 *      must keep running and take the PMIs.
 *   5. A triple fault (null IDT, then #UD).
 *
 * Prints "hostile: pmis=N" and "hostile: nmi_pmis=N" so the test can
 * compare with the report.
 */
#include "hostile_common.h"
#include "pmu_common.h"

#define ROUNDS		12
#define FLOOD_TARGET	300
#define FLOOD_TICKS	2500000000ull	/* ~1 s of TSC: stop even if PMIs stall */

static const struct { uint32_t first, last; } msr_ranges[] = {
	{ 0x0c1, 0x0c8 },	/* IA32_PMCx */
	{ 0x186, 0x18d },	/* IA32_PERFEVTSELx */
	{ 0x1a0, 0x1a0 },	/* IA32_MISC_ENABLE */
	{ 0x1c4, 0x1c5 },	/* IA32_XFD, IA32_XFD_ERR (KVM's, not pmuvm's) */
	{ 0x1c8, 0x1c9 },	/* LBR_SELECT, LBR_TOS */
	{ 0x1d9, 0x1d9 },	/* IA32_DEBUGCTL */
	{ 0x309, 0x30c },	/* IA32_FIXED_CTRx */
	{ 0x329, 0x329 },	/* PERF_METRICS */
	{ 0x345, 0x345 },	/* IA32_PERF_CAPABILITIES */
	{ 0x38d, 0x393 },	/* FIXED_CTR_CTRL .. GLOBAL_INUSE, and one past */
	{ 0x3f1, 0x3f2 },	/* IA32_PEBS_ENABLE, PEBS_DATA_CFG */
	{ 0x3f6, 0x3f7 },	/* PEBS_LD_LAT, PEBS_FRONTEND */
	{ 0x4c1, 0x4c8 },	/* IA32_A_PMCx */
	{ 0x600, 0x600 },	/* IA32_DS_AREA */
};

static struct pmu_cfg cfg;
static unsigned int nr_gp_faults, nr_writes;

/* Counter MSRs that exist must never read back more than their width. */
static void check_width(uint32_t msr, uint64_t v)
{
	uint64_t mask = ~0ull;

	if ((msr >= 0xc1 && msr < 0xc1 + cfg.nr_gp) ||
	    (msr >= 0x4c1 && msr < 0x4c1 + cfg.nr_gp))
		mask = width_mask(cfg.gp_width);
	else if (msr >= 0x309 && pmu_fixed_exists(&cfg, msr - 0x309))
		mask = width_mask(cfg.fixed_width);
	if (v & ~mask)
		GUEST_FAIL("msr 0x%x reads 0x%llx, wider than its counter", msr,
			   (unsigned long long)v);
}

static void random_msr_writes(void)
{
	unsigned int round, i;
	uint32_t msr;
	uint64_t v;

	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < sizeof(msr_ranges) / sizeof(msr_ranges[0]); i++) {
			for (msr = msr_ranges[i].first; msr <= msr_ranges[i].last; msr++) {
				nr_writes++;
				if (wrmsr_safe(msr, hostile_value()))
					nr_gp_faults++;
				if (!rdmsr_safe(msr, &v))
					check_width(msr, v);
			}
		}
		/* RDPMC with random ECX: #GP or a value; it must not hurt pmuvm. */
		for (i = 0; i < 16; i++)
			rdpmc_safe((uint32_t)hostile_value(), &v);
	}
	printf("hostile: %u random writes, %u #GP\n", nr_writes, nr_gp_faults);
}

static bool canonical48(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

static void ds_area(void)
{
	const uint64_t addrs[] = {
		APIC_DEFAULT_BASE,		/* LAPIC MMIO */
		0xfec00000ull,			/* IOAPIC MMIO */
		mbi_ram_total() + (1ull << 30),	/* beyond RAM */
		0x00007ffffffff000ull,		/* top of the lower half, unmapped */
		0xffff800000000000ull,		/* upper half */
		0x0000800000000000ull,		/* non-canonical */
		0x8000000000000000ull,		/* non-canonical */
	};
	/*
	 * IA32_DS_AREA exists when pmuvm offers PEBS.  CPUID.1:EDX.DS says so
	 * on most hosts, but kvm_pvm hides that bit from the guest, so the
	 * PEBS format in PERF_CAPABILITIES (docs/intel-pmu.md 1.4) counts too.
	 */
	bool ds = (cpuid(1).edx & (1u << 21)) || (cfg.perf_cap & PERF_CAP_PEBS_FORMAT);
	unsigned int i;
	uint64_t v;

	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		bool ok = ds && canonical48(addrs[i]);
		int vec = wrmsr_safe(MSR_IA32_DS_AREA, addrs[i]);

		GUEST_ASSERT_EQ(vec, ok ? 0 : VEC_GP);
		if (ok) {
			GUEST_ASSERT_EQ(rdmsr_safe(MSR_IA32_DS_AREA, &v), 0);
			GUEST_ASSERT_EQ(v, addrs[i]);
		}
	}
	/* PEBS assists with DS_AREA or the buffer at such addresses: pebs_records.c. */
	printf("hostile: ds_area checked (DS %s)\n", ds ? "present" : "absent");
}

static volatile unsigned int nr_pmis;
static bool have_fc1;		/* fixed counter 1 exists (v2+, CPUID.0AH:EDX or ECX) */
static uint32_t lvtpc_entry = PMI_VECTOR;	/* what the handler unmasks to */

static void rearm(void)
{
	wrmsr(MSR_IA32_PMC0, ~0ull);	/* legacy write: sign-extended -1 */
	if (have_fc1)
		wrmsr(MSR_IA32_FIXED_CTR0 + 1, width_mask(cfg.fixed_width));
}

/* Both flood counters off: no overflow after this. */
static void flood_stop(void)
{
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
	if (have_fc1)
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
}

/*
 * Ack and unmask first, re-arm last: the re-armed counters overflow at the
 * handler's next exit, so the next PMI is pending before it returns and is
 * taken right after the IRET.  That storm would starve main() forever, so
 * the FLOOD_TARGET-th PMI stops the counters, before it unmasks LVTPC: the
 * two counters overflow at different exits, and one re-armed by the PMI
 * before would otherwise raise one more.
 */
static void pmi(struct rt_frame *f)
{
	(void)f;
	if (++nr_pmis >= FLOOD_TARGET)
		flood_stop();
	if (cfg.version >= 2)
		wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	apic_write_lvtpc(lvtpc_entry);
	if (nr_pmis < FLOOD_TARGET)
		rearm();
}

/* Back to RESET-like values after phase 1 left random programming behind. */
static void pmu_quiesce(void)
{
	unsigned int i;

	if (cfg.version >= 2) {
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
		wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	}
	for (i = 0; i < cfg.nr_gp; i++)
		wrmsr(MSR_IA32_PERFEVTSEL0 + i, 0);
	wrmsr_safe(MSR_IA32_DEBUGCTL, 0);
}

/*
 * LVTPC delivery modes other than fixed and NMI (SMI, INIT, ExtINT and the
 * reserved ones) are not valid for this LVT (SDM fig. 10-8): an overflow
 * with one of them delivers nothing here, and the guest carries on.
 */
static void lvtpc_bad_modes(void)
{
	static const unsigned int modes[] = { 1, 2, 3, 5, 6, 7 };
	unsigned int i, before = nr_pmis;

	if (cfg.version < 1)
		return;
	have_fc1 = false;
	rt_set_irq_handler(PMI_VECTOR, pmi);
	sti();
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		pmu_quiesce();
		apic_write_lvtpc(modes[i] << APIC_LVT_DM_SHIFT | PMI_VECTOR);
		rearm();
		wrmsr(MSR_IA32_PERFEVTSEL0, PMU_EVENT_CORE_CYCLES | EVTSEL_EN | EVTSEL_OS |
		      EVTSEL_INT);
		if (cfg.version >= 2)
			wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
		rdmsr(MSR_IA32_PERFEVTSEL0);
		rdmsr(MSR_IA32_PERFEVTSEL0);
	}
	cli();
	pmu_quiesce();
	apic_write_lvtpc(APIC_LVT_MASKED | PMI_VECTOR);
	GUEST_ASSERT_EQ(nr_pmis, before);
	printf("hostile: bad LVTPC modes delivered nothing\n");
}

/* The flood, with LVTPC in fixed-vector mode or in NMI mode. */
static void pmi_flood(bool nmi)
{
	const char *name = nmi ? "nmi_pmis" : "pmis";
	uint64_t end, iters = 0;

	if (cfg.version < 1) {
		printf("hostile: no PMU, no PMI flood\n");
		return;
	}
	have_fc1 = pmu_fixed_exists(&cfg, 1);
	pmu_quiesce();
	nr_pmis = 0;
	lvtpc_entry = (nmi ? APIC_LVT_DM_NMI : APIC_LVT_DM_FIXED) | PMI_VECTOR;
	if (nmi)
		rt_set_exception_hook(VEC_NMI, pmi);
	else
		rt_set_irq_handler(PMI_VECTOR, pmi);
	apic_write_lvtpc(lvtpc_entry);
	rearm();
	wrmsr(MSR_IA32_PERFEVTSEL0, PMU_EVENT_CORE_CYCLES | EVTSEL_EN | EVTSEL_OS |
	      EVTSEL_USR | EVTSEL_INT);
	if (have_fc1)
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(1) | FIXED_CTRL_USR(1) |
		      FIXED_CTRL_PMI(1));
	if (cfg.version >= 2)
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1 | (have_fc1 ? GLOBAL_CTRL_FIXED(1) : 0));
	end = rdtsc() + FLOOD_TICKS;
	sti();
	while (nr_pmis < FLOOD_TARGET && rdtsc() < end) {
		/* An MSR exit: where pmuvm accounts cycles and raises PMIs. */
		rdmsr(MSR_IA32_PERFEVTSEL0);
		iters++;
	}
	cli();
	pmu_quiesce();
	apic_write_lvtpc(APIC_LVT_MASKED | PMI_VECTOR);
	printf("hostile: %s=%u loop=%llu\n", name, nr_pmis, (unsigned long long)iters);
	GUEST_ASSERT(nr_pmis >= 20);
}

int main(void)
{
	cfg = pmu_cfg_read();
	printf("hostile: version=%u gp=%u fixed=%u seed=0x%llx\n", cfg.version, cfg.nr_gp,
	       cfg.nr_fixed, (unsigned long long)hostile_seed());

	random_msr_writes();
	ds_area();
	lvtpc_bad_modes();
	pmi_flood(false);
	pmi_flood(true);
	printf("hostile: triple fault now\n");
	hostile_triple_fault();
}
