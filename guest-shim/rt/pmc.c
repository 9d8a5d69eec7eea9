/* SPDX-License-Identifier: MIT */
/*
 * The vendor-neutral counter helper (rt/pmc.h).  Each vendor's PMU is a row
 * of MSR numbers and event encodings, picked at probe time; the calls only
 * index it.
 */
#include <rt/pmc.h>
#include <rt/string.h>
#include <rt/x86.h>
#include <x86-pmu/cpuid.h>
#include <x86-pmu/events.h>
#include <x86-pmu/msr.h>

/* IA32_PERFEVTSEL0-7 and IA32_PMC0-7 are consecutive (SDM vol. 4 table 2-2). */
#define INTEL_MAX_GP	8
/* What the AMD legacy probe writes and reads back (48-bit counters). */
#define AMD_PROBE_VALUE	0x5a5a5a5aull

struct pmc_layout {
	uint32_t ctl0, ctr0, stride;	/* counter i: ctl0 + stride * i, ctr0 + stride * i */
	uint32_t global_ctrl;		/* 0: no global enable */
	uint64_t event[RT_PMC_NR_EVENTS];
};

static const uint64_t intel_events[RT_PMC_NR_EVENTS] = {
	[RT_PMC_CYCLES] = PMU_EVENT_CORE_CYCLES,
	[RT_PMC_INSTRUCTIONS] = PMU_EVENT_INSTRUCTIONS,
	[RT_PMC_BRANCHES] = PMU_EVENT_BRANCHES,
};

static const uint64_t amd_events[RT_PMC_NR_EVENTS] = {
	[RT_PMC_CYCLES] = PMU_AMD_EVENT_CORE_CYCLES,
	[RT_PMC_INSTRUCTIONS] = PMU_AMD_EVENT_INSTRUCTIONS,
	[RT_PMC_BRANCHES] = PMU_AMD_EVENT_BRANCHES,
};

/* CPUID.0AH:EBX bit of each event (set: not available). */
static const unsigned int intel_ebx_bit[RT_PMC_NR_EVENTS] = {
	[RT_PMC_CYCLES] = PMU_EV_CORE_CYCLES,
	[RT_PMC_INSTRUCTIONS] = PMU_EV_INSTRUCTIONS,
	[RT_PMC_BRANCHES] = PMU_EV_BRANCHES,
};

static struct rt_pmc_info pmc;
static struct pmc_layout layout;
static unsigned int unavailable;	/* bit e: event e is not counted */

static uint64_t width_mask(unsigned int bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static void probe_intel(void)
{
	struct cpuid_regs r;
	unsigned int len;

	if (cpuid(0).eax < CPUID_LEAF_PMU)
		return;
	r = cpuid(CPUID_LEAF_PMU);
	if (!CPUID_0A_EAX_VERSION(r.eax) || !CPUID_0A_EAX_NR_GP(r.eax))
		return;
	pmc.vendor = RT_PMC_INTEL;
	pmc.version = CPUID_0A_EAX_VERSION(r.eax);
	pmc.nr_gp = CPUID_0A_EAX_NR_GP(r.eax);
	if (pmc.nr_gp > INTEL_MAX_GP)
		pmc.nr_gp = INTEL_MAX_GP;
	pmc.gp_width = CPUID_0A_EAX_GP_WIDTH(r.eax);
	/* Fixed counters are enumerated from version 2 (SDM 18.2.2), with holes from 5. */
	pmc.fixed_counters = cpuid_0a_fixed_counters(r.eax, r.ecx, r.edx);
	pmc.nr_fixed = cpuid_0a_fixed_span(pmc.fixed_counters);
	if (pmc.version >= 2)
		pmc.fixed_width = CPUID_0A_EDX_FIXED_WIDTH(r.edx);
	pmc.global_ctrl = pmc.version >= 2;
	layout = (struct pmc_layout){ MSR_IA32_PERFEVTSEL0, MSR_IA32_PMC0, 1,
				      pmc.global_ctrl ? MSR_IA32_PERF_GLOBAL_CTRL : 0, { 0 } };
	memcpy(layout.event, intel_events, sizeof(layout.event));
	len = CPUID_0A_EAX_EVLEN(r.eax);
	for (unsigned int e = 0; e < RT_PMC_NR_EVENTS; e++)
		if (intel_ebx_bit[e] >= len || (r.ebx >> intel_ebx_bit[e] & 1))
			unavailable |= 1u << e;
}

/* The legacy counters have no CPUID bit: one that keeps a value is there. */
static bool amd_legacy_present(void)
{
	uint64_t old, v;

	if (rdmsr_safe(MSR_K7_PERFCTR0, &old) || wrmsr_safe(MSR_K7_PERFCTR0, AMD_PROBE_VALUE))
		return false;
	if (rdmsr_safe(MSR_K7_PERFCTR0, &v))
		return false;
	wrmsr_safe(MSR_K7_PERFCTR0, old);
	return v == AMD_PROBE_VALUE;
}

static void probe_amd(void)
{
	uint32_t ext = cpuid(0x80000000).eax;

	pmc.gp_width = AMD_COUNTER_WIDTH;
	pmc.version = 1;
	if (ext >= 0x80000001)
		pmc.amd_core_ext = cpuid(0x80000001).ecx & CPUID_8000_0001_ECX_PERFCTR_CORE;
	if (ext >= CPUID_LEAF_AMD_PMU) {
		struct cpuid_regs r = cpuid(CPUID_LEAF_AMD_PMU);

		if (r.eax & CPUID_8000_0022_EAX_PERFMON_V2 && CPUID_8000_0022_EBX_NR_CORE(r.ebx)) {
			pmc.version = 2;
			pmc.amd_core_ext = true;
			pmc.nr_gp = CPUID_8000_0022_EBX_NR_CORE(r.ebx);
			pmc.global_ctrl = true;
		}
	}
	if (pmc.amd_core_ext) {
		if (!pmc.nr_gp)
			pmc.nr_gp = AMD_NR_CORE_COUNTERS;
		layout = (struct pmc_layout){ MSR_F15H_PERF_CTL0, MSR_F15H_PERF_CTR0, 2,
					      pmc.global_ctrl ? MSR_AMD64_PERF_CNTR_GLOBAL_CTL : 0,
					      { 0 } };
	} else if (amd_legacy_present()) {
		pmc.nr_gp = AMD_NR_LEGACY_COUNTERS;
		layout = (struct pmc_layout){ MSR_K7_EVNTSEL0, MSR_K7_PERFCTR0, 1, 0, { 0 } };
	} else {
		return;
	}
	memcpy(layout.event, amd_events, sizeof(layout.event));
	pmc.vendor = RT_PMC_AMD;
}

static const struct {
	char id[13];
	void (*probe)(void);
} vendors[] = {
	{ "GenuineIntel", probe_intel },
	{ "AuthenticAMD", probe_amd },
	{ "HygonGenuine", probe_amd },
};

int rt_pmc_probe(struct rt_pmc_info *info)
{
	struct cpuid_regs r = cpuid(0);

	memset(&pmc, 0, sizeof(pmc));
	memset(&layout, 0, sizeof(layout));
	unavailable = 0;
	memcpy(pmc.cpu_vendor + 0, &r.ebx, 4);
	memcpy(pmc.cpu_vendor + 4, &r.edx, 4);
	memcpy(pmc.cpu_vendor + 8, &r.ecx, 4);
	for (unsigned int i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
		if (!memcmp(pmc.cpu_vendor, vendors[i].id, 12))
			vendors[i].probe();
	if (pmc.vendor == RT_PMC_NONE) {
		memset(&layout, 0, sizeof(layout));
		pmc.version = pmc.nr_gp = pmc.gp_width = pmc.nr_fixed = pmc.fixed_width = 0;
		pmc.fixed_counters = 0;
		pmc.amd_core_ext = pmc.global_ctrl = false;
	}
	if (info)
		*info = pmc;
	return pmc.vendor == RT_PMC_NONE ? -RT_ENODEV : 0;
}

static uint32_t ctl_msr(unsigned int ctr)
{
	return layout.ctl0 + layout.stride * ctr;
}

static uint32_t ctr_msr(unsigned int ctr)
{
	return layout.ctr0 + layout.stride * ctr;
}

int rt_pmc_start(unsigned int ctr, enum rt_pmc_event event, unsigned int modes)
{
	uint64_t sel;

	if (pmc.vendor == RT_PMC_NONE)
		return -RT_ENODEV;
	if (ctr >= pmc.nr_gp || (unsigned int)event >= RT_PMC_NR_EVENTS || !modes ||
	    modes & ~(RT_PMC_OS | RT_PMC_USR))
		return -RT_EINVAL;
	if (unavailable & 1u << event)
		return -RT_EOPNOTSUPP;
	sel = layout.event[event] | EVTSEL_EN;
	if (modes & RT_PMC_OS)
		sel |= EVTSEL_OS;
	if (modes & RT_PMC_USR)
		sel |= EVTSEL_USR;
	/*
	 * Global enables reset to set on both vendors (SDM 18.2.2, APM
	 * 13.2.3): clear this one first, so that the counter always starts
	 * at the last write, whatever ran before.
	 */
	if (layout.global_ctrl)
		wrmsr(layout.global_ctrl, rdmsr(layout.global_ctrl) & ~(1ull << ctr));
	wrmsr(ctl_msr(ctr), 0);
	wrmsr(ctr_msr(ctr), 0);
	wrmsr(ctl_msr(ctr), sel);
	if (layout.global_ctrl)
		wrmsr(layout.global_ctrl, rdmsr(layout.global_ctrl) | 1ull << ctr);
	return 0;
}

uint64_t rt_pmc_read(unsigned int ctr)
{
	if (ctr >= pmc.nr_gp)
		return 0;
	return rdmsr(ctr_msr(ctr)) & width_mask(pmc.gp_width);
}

uint64_t rt_pmc_stop(unsigned int ctr)
{
	if (ctr >= pmc.nr_gp)
		return 0;
	wrmsr(ctl_msr(ctr), 0);
	if (layout.global_ctrl)
		wrmsr(layout.global_ctrl, rdmsr(layout.global_ctrl) & ~(1ull << ctr));
	return rt_pmc_read(ctr);
}

const char *rt_pmc_event_name(enum rt_pmc_event event)
{
	static const char *const names[RT_PMC_NR_EVENTS] = {
		[RT_PMC_CYCLES] = "cycles",
		[RT_PMC_INSTRUCTIONS] = "instructions",
		[RT_PMC_BRANCHES] = "branches",
	};

	return (unsigned int)event < RT_PMC_NR_EVENTS ? names[event] : "none";
}

const char *rt_pmc_vendor_name(enum rt_pmc_vendor vendor)
{
	static const char *const names[] = {
		[RT_PMC_NONE] = "none",
		[RT_PMC_INTEL] = "intel",
		[RT_PMC_AMD] = "amd",
	};

	return (unsigned int)vendor < sizeof(names) / sizeof(names[0]) ? names[vendor] : "none";
}
