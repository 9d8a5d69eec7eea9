/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: random MSR operation sequences against the vPMU model.
 *
 * Input: a configuration, then operations until the input runs out:
 *   config  version % 6, nr_gp, gp_width, nr_fixed, fixed_width, flags, events
 *   op 0    RDMSR  msr
 *   op 1    WRMSR  msr, value
 *   op 2    vpmu_count(ev, n, cpl)
 *   op 3    take_pmi / take_overflows
 *   op 4    RDPMC  ecx
 *   op 5    events_to_overflow(ev, cpl), checked by counting on a copy
 *   op 6    PEBS threshold PMI (vpmu_request_pmi with OvfBuf)
 * MSR operands name one of the architectural PMU MSRs (and the first number
 * past each range), or any 32-bit MSR number.
 *
 * The oracle is written from the Intel SDM's rules (vol. 3B, Performance Monitoring), never from the
 * model's own masks: which MSRs exist and which bits each may hold follow
 * from what the guest enumerates (CPUID.0AH, CPUID.01H, PERF_CAPABILITIES).
 * After every operation every PMU MSR and RDPMC index is read back and must
 * hold no reserved bit and no counter bit at or above the width; a WRMSR
 * that #GPs, and every read or query, must leave the whole model unchanged.
 * Where the spec leaves a bit to a feature pmuvm cannot see (TSX for EVTSEL
 * 32/33, PT and SGX for GLOBAL_STATUS 55/60, BTS for DEBUGCTL 6-10) the
 * choice is noted at the mask.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "model/vpmu.h"
#include "x86-pmu/cpuid.h"

#define MASK(w)		((w) >= 64 ? ~0ULL : BIT_ULL(w) - 1)

static void check(bool ok, const char *what, uint32_t msr)
{
	if (!ok) {
		fprintf(stderr, "fuzz_vpmu_msr: invariant violated: %s (msr 0x%x)\n", what, msr);
		abort();
	}
}

static void check_event(bool ok, const char *what, enum pmu_arch_event ev)
{
	if (!ok) {
		fprintf(stderr, "fuzz_vpmu_msr: invariant violated: %s (event %d, %s)\n", what,
			(int)ev, pmu_event_name(ev));
		abort();
	}
}

/* ---- what the guest enumerates (docs/intel-pmu.md 1.1, 1.2, 1.4) ------------------------ */

struct enumeration {
	unsigned int version, nr_gp, gp_width, fixed_width;
	uint32_t fixed;			/* bitmap of fixed counters that exist */
	uint32_t events;		/* architectural events available (~EBX) */
	bool anythread;			/* EVTSEL 21 / FIXED_CTR_CTRL 4i+2 usable */
	bool pdcm, ds;
	uint64_t perf_caps;
	unsigned int pebs_fmt;
	bool fw_write, baseline, perf_metrics;
	uint64_t misc_ro;		/* MISC_ENABLE 7, 11, 12 at RESET */
};

static void enumerate(struct vpmu *pmu, struct enumeration *e)
{
	uint32_t eax, ebx, ecx, edx, ecx1 = 0, edx1 = 0;
	unsigned int i;

	memset(e, 0, sizeof(*e));
	vpmu_cpuid_0a(&pmu->cfg, &eax, &ebx, &ecx, &edx);
	vpmu_cpuid_01(&pmu->cfg, &ecx1, &edx1);
	e->version = CPUID_0A_EAX_VERSION(eax);
	if (e->version) {
		e->nr_gp = CPUID_0A_EAX_NR_GP(eax);
		e->gp_width = CPUID_0A_EAX_GP_WIDTH(eax);
		e->events = ~ebx & (uint32_t)MASK(CPUID_0A_EAX_EVLEN(eax));
	}
	if (e->version > 1) {
		/* Fixed counter i exists if ECX[i] (v5+) or EDX[4:0] > i. */
		for (i = 0; i < 32; i++)
			if ((e->version >= 5 && (ecx & (1u << i))) || CPUID_0A_EDX_NR_FIXED(edx) > i)
				e->fixed |= 1u << i;
		e->fixed_width = CPUID_0A_EDX_FIXED_WIDTH(edx);
		e->anythread = e->version >= 3 && !(edx & CPUID_0A_EDX_ANYTHREAD_DEPRECATED);
	}
	e->pdcm = ecx1 & CPUID_1_ECX_PDCM;
	e->ds = edx1 & CPUID_1_EDX_DS;
	if (e->pdcm)
		check(vpmu_rdmsr(pmu, MSR_IA32_PERF_CAPABILITIES, &e->perf_caps) == VPMU_OK,
		      "PDCM without PERF_CAPABILITIES", MSR_IA32_PERF_CAPABILITIES);
	e->pebs_fmt = (e->perf_caps & PERF_CAP_PEBS_FORMAT) >> PERF_CAP_PEBS_FORMAT_SHIFT;
	e->fw_write = e->perf_caps & PERF_CAP_FW_WRITE;
	e->baseline = (e->perf_caps & PERF_CAP_PEBS_BASELINE) && e->pebs_fmt >= 4;
	e->perf_metrics = e->perf_caps & PERF_CAP_PERF_METRICS;

	/* The enumeration must describe the configuration that was asked for. */
	check(e->version == pmu->cfg.version && e->nr_gp == pmu->cfg.nr_gp,
	      "CPUID.0AH version or counters", 0);
	check(!e->nr_gp || (e->gp_width >= 32 && e->gp_width == pmu->cfg.gp_width),
	      "CPUID.0AH GP width", 0);
	check(e->version < 2 || e->fixed == vpmu_fixed_counters(&pmu->cfg),
	      "CPUID.0AH fixed counters", 0);
	check(!e->fixed || (e->fixed_width >= 32 && e->fixed_width == pmu->cfg.fixed_width),
	      "CPUID.0AH fixed width", 0);
	check(e->fixed < (1u << VPMU_MAX_FIXED), "more fixed counters than the model has", 0);
}

static uint64_t counter_bits(const struct enumeration *e)
{
	return MASK(e->nr_gp) | (uint64_t)e->fixed << PMC_IDX_FIXED;
}

/* ---- the spec's MSR list: existence and the bits each may hold -------------- */

enum exists { NO, YES, UNSPECIFIED };

struct msr_view {
	enum exists exists;
	uint64_t allowed;	/* bits a read may return */
	bool exact;		/* a successful write reads back as written */
};

static bool in(uint32_t msr, uint32_t first, unsigned int n, unsigned int *idx)
{
	*idx = msr - first;
	return msr - first < n;
}

static enum exists yes(bool b)
{
	return b ? YES : NO;
}

static struct msr_view view(const struct enumeration *e, uint32_t msr)
{
	struct msr_view v = { NO, 0, false };
	uint64_t ctr = counter_bits(e);
	unsigned int i, x;

	if (in(msr, MSR_IA32_PMC0, 8, &x)) {
		/* docs/intel-pmu.md 2.1: reads return value & MASK_gp. */
		v = (struct msr_view){ yes(x < e->nr_gp), MASK(e->gp_width), false };
	} else if (in(msr, MSR_IA32_A_PMC0, 8, &x)) {
		v = (struct msr_view){ yes(x < e->nr_gp && e->fw_write), MASK(e->gp_width), true };
	} else if (in(msr, MSR_IA32_PERFEVTSEL0, 8, &x)) {
		/*
		 * docs/intel-pmu.md 2.2: bits 31:0 but AnyThread (21) unless enumerated; 34
		 * with PEBS_BASELINE. 32/33 need TSX and 35/36/47:40 leaf 0x23,
		 * neither of which the model advertises: reserved.
		 */
		v.exists = yes(x < e->nr_gp);
		v.allowed = 0xffffffffULL & ~EVTSEL_ANY;
		if (e->anythread)
			v.allowed |= EVTSEL_ANY;
		if (e->baseline)
			v.allowed |= EVTSEL_ADAPTIVE;
		v.exact = true;
	} else if (in(msr, MSR_IA32_FIXED_CTR0, 8, &x)) {
		v = (struct msr_view){ yes(x < 32 && (e->fixed & (1u << x))),
				       MASK(e->fixed_width), false };
	} else if (msr == MSR_IA32_MISC_ENABLE) {
		v = (struct msr_view){ YES, ~0ULL, false };
	} else if (msr == MSR_IA32_DEBUGCTL) {
		/*
		 * docs/intel-pmu.md 2.9: bits 0, 1, 6-15 are defined; 11/12 need PDCM and
		 * version > 1, 14 needs PERF_CAPABILITIES[12]. 6-10, 13, 15
		 * belong to features outside this table: allowed.
		 */
		v.exists = YES;
		v.allowed = GENMASK_ULL(15, 6) | DEBUGCTL_LBR | DEBUGCTL_BTF;
		if (!(e->pdcm && e->version > 1))
			v.allowed &= ~(DEBUGCTL_FREEZE_LBRS_ON_PMI | DEBUGCTL_FREEZE_PERFMON_ON_PMI);
		if (!(e->perf_caps & PERF_CAP_FREEZE_WHILE_SMM))
			v.allowed &= ~DEBUGCTL_FREEZE_WHILE_SMM;
	} else if (msr == MSR_PERF_METRICS) {
		v = (struct msr_view){ yes(e->perf_metrics), ~0ULL, false };
	} else if (msr == MSR_IA32_PERF_CAPABILITIES) {
		/* docs/intel-pmu.md 1.4: 63:20 reserved, 18 reported 0. */
		v = (struct msr_view){ yes(e->pdcm), GENMASK_ULL(19, 0) & ~BIT_ULL(18), false };
	} else if (msr == MSR_IA32_FIXED_CTR_CTRL) {
		/*
		 * docs/intel-pmu.md 2.3: EN_OS, EN_USR, PMI per counter; ANY if
		 * enumerated; 32+4i adaptive.
		 */
		v.exists = yes(e->version >= 2);
		for (i = 0; i < 8; i++) {
			if (!(e->fixed & (1u << i)))
				continue;
			v.allowed |= FIXED_CTRL_OS(i) | FIXED_CTRL_USR(i) | FIXED_CTRL_PMI(i);
			if (e->anythread || (i == 3 && (e->perf_caps & BIT_ULL(19))))
				v.allowed |= FIXED_CTRL_ANY(i);
			if (e->baseline)
				v.allowed |= FIXED_CTRL_ADAPTIVE(i);
		}
		v.exact = true;
	} else if (msr == MSR_IA32_PERF_GLOBAL_STATUS) {
		/* docs/intel-pmu.md 2.5; 55 (PT) and 60 (SGX) depend on the host: allowed. */
		v.exists = yes(e->version >= 2);
		v.allowed = ctr | GLOBAL_STATUS_TRACE_TOPA_PMI | GLOBAL_STATUS_ASCI |
			    GLOBAL_STATUS_BUFFER_OVF | GLOBAL_STATUS_COND_CHGD;
		if (e->perf_metrics)
			v.allowed |= GLOBAL_STATUS_PERF_METRICS;
		if (e->version > 3)
			v.allowed |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ;
		if (e->version > 2)
			v.allowed |= GLOBAL_STATUS_OVF_UNCORE;
	} else if (msr == MSR_IA32_PERF_GLOBAL_CTRL) {
		/* docs/intel-pmu.md 2.4. */
		v.exists = yes(e->version >= 2);
		v.allowed = ctr | (e->perf_metrics ? BIT_ULL(48) : 0);
		v.exact = true;
	} else if (msr == MSR_IA32_PERF_GLOBAL_OVF_CTRL) {
		/* docs/intel-pmu.md 2.6: the clearable bits. */
		v.exists = yes(e->version >= 2);
		v.allowed = ctr | GLOBAL_STATUS_TRACE_TOPA_PMI | GLOBAL_STATUS_OVF_UNCORE |
			    GLOBAL_STATUS_BUFFER_OVF | GLOBAL_STATUS_COND_CHGD;
		if (e->version >= 4)
			v.allowed |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ |
				     GLOBAL_STATUS_ASCI;
	} else if (msr == MSR_IA32_PERF_GLOBAL_STATUS_SET) {
		/* docs/intel-pmu.md 2.7: counter bits, 55, 58-62. */
		v.exists = yes(e->version >= 4);
		v.allowed = ctr | GLOBAL_STATUS_TRACE_TOPA_PMI | GENMASK_ULL(62, 58);
	} else if (msr == MSR_IA32_PERF_GLOBAL_INUSE) {
		/* docs/intel-pmu.md 2.8. */
		v = (struct msr_view){ yes(e->version >= 4), ctr | GLOBAL_INUSE_PMI, false };
	} else if (msr == MSR_IA32_PEBS_ENABLE) {
		/*
		 * docs/intel-pmu.md 2.11 and 6: with baseline every counter; without, the GP
		 * counters (KVM) plus the load-latency bits 35:32 of PMC0-3 (SDM
		 * formats 1-3). Exists with a PEBS format (KVM).
		 */
		v.exists = yes(e->ds && e->pebs_fmt);
		if (e->baseline)
			v.allowed = ctr;
		else
			v.allowed = MASK(e->nr_gp) |
				    (MASK(e->nr_gp < 4 ? e->nr_gp : 4) << 32);
		v.exact = true;
	} else if (msr == MSR_PEBS_DATA_CFG) {
		v = (struct msr_view){ yes(e->baseline), PEBS_DATACFG_VALID, true };
	} else if (msr == MSR_PEBS_LD_LAT_THRESHOLD) {
		/* docs/intel-pmu.md 2.13: bits 15:0. When it exists is not stated. */
		v = (struct msr_view){ UNSPECIFIED, GENMASK_ULL(15, 0), true };
	} else if (msr == MSR_PEBS_FRONTEND) {
		v = (struct msr_view){ UNSPECIFIED, ~0ULL, false };
	} else if (msr == MSR_IA32_DS_AREA) {
		/* docs/intel-pmu.md 2.10: valid iff CPUID DS; canonical is checked separately. */
		v = (struct msr_view){ yes(e->ds), ~0ULL, true };
	}
	return v;
}

/* Every MSR the spec lists, and the first number past each range. */
static const uint32_t pmu_msrs[] = {
	0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
	0x186, 0x187, 0x188, 0x189, 0x18a, 0x18b, 0x18c, 0x18d, 0x18e,
	0x1a0, 0x1d9,
	0x309, 0x30a, 0x30b, 0x30c, 0x30d,
	0x329, 0x345, 0x38d, 0x38e, 0x38f, 0x390, 0x391, 0x392, 0x393,
	0x3f1, 0x3f2, 0x3f6, 0x3f7,
	0x4c1, 0x4c2, 0x4c3, 0x4c4, 0x4c5, 0x4c6, 0x4c7, 0x4c8, 0x4c9,
	0x600,
	0x14c1, 0x1309,		/* PEBS-via-PT reload MSRs: not modelled */
};
#define NR_PMU_MSRS	(sizeof(pmu_msrs) / sizeof(pmu_msrs[0]))

static bool canonical57(uint64_t v)
{
	return (uint64_t)((int64_t)(v << 7) >> 7) == v;
}

/* ---- invariants ------------------------------------------------------------- */

static void check_msr(struct vpmu *pmu, const struct enumeration *e, uint32_t msr)
{
	struct msr_view v = view(e, msr);
	uint64_t val = 0;
	int r = vpmu_rdmsr(pmu, msr, &val);

	check(r == VPMU_OK || r == VPMU_GP, "RDMSR return value", msr);
	if (v.exists != UNSPECIFIED)
		check((r == VPMU_OK) == (v.exists == YES),
		      r == VPMU_OK ? "RDMSR of an MSR that does not exist succeeds" :
				     "RDMSR of an MSR that exists #GPs", msr);
	if (r != VPMU_OK)
		return;
	check(!(val & ~v.allowed), "reserved or above-width bits read back", msr);
	if (msr == MSR_IA32_DS_AREA)
		check(canonical57(val), "non-canonical DS_AREA", msr);
	if (msr == MSR_IA32_MISC_ENABLE)
		check((val & (MISC_ENABLE_EMON | MISC_ENABLE_BTS_UNAVAIL |
			      MISC_ENABLE_PEBS_UNAVAIL)) == e->misc_ro,
		      "read-only MISC_ENABLE bits changed", msr);
	if (msr == MSR_IA32_PERF_CAPABILITIES)
		check(val == e->perf_caps, "PERF_CAPABILITIES changed", msr);
}

/*
 * docs/intel-pmu.md 2.1: ECX[31:16] is the type, 0 (GP) or 0x4000 (fixed); 0x6000
 * (PERF_METRICS) only with PERF_CAPABILITIES[15]; any other type or index
 * #GPs. Types with the legacy fast-read bit 31 may #GP or return the low
 * 32 bits (KUT accepts both).
 */
static void check_rdpmc(const struct enumeration *e, uint32_t ecx, int r, uint64_t val)
{
	uint32_t type = ecx >> 16, idx = ecx & 0xffff;

	if (type & 0x8000) {
		check(r != VPMU_OK || !(val >> 32), "RDPMC fast read above 32 bits", ecx);
		return;
	}
	if (type == 0) {
		check((r == VPMU_OK) == (idx < e->nr_gp), "RDPMC GP index", ecx);
		check(r != VPMU_OK || !(val & ~MASK(e->gp_width)), "RDPMC above GP width", ecx);
	} else if (type == 0x4000) {
		check((r == VPMU_OK) == (idx < 32 && (e->fixed & (1u << idx))),
		      "RDPMC fixed index", ecx);
		check(r != VPMU_OK || !(val & ~MASK(e->fixed_width)), "RDPMC above fixed width",
		      ecx);
	} else if (!(type == 0x6000 && e->perf_metrics)) {
		check(r == VPMU_GP, "RDPMC of an invalid type succeeds", ecx);
	}
}

static void check_all(struct vpmu *pmu, const struct enumeration *e)
{
	uint64_t val;
	unsigned int i;
	size_t k;

	for (k = 0; k < NR_PMU_MSRS; k++)
		check_msr(pmu, e, pmu_msrs[k]);

	for (i = 0; i <= VPMU_MAX_GP; i++)
		check_rdpmc(e, i, vpmu_rdpmc(pmu, i, &val), val);
	for (i = 0; i <= VPMU_MAX_FIXED; i++)
		check_rdpmc(e, (uint32_t)RDPMC_FIXED | i,
			    vpmu_rdpmc(pmu, (uint32_t)RDPMC_FIXED | i, &val), val);
	/* The stored counters too, not only what the accessors return. */
	for (i = 0; i < e->nr_gp; i++)
		check(!(pmu->gp[i].value & ~MASK(e->gp_width)), "GP counter above its width", i);
	for (i = 0; i < VPMU_MAX_FIXED; i++)
		if (e->fixed & (1u << i))
			check(!(pmu->fixed[i].value & ~MASK(e->fixed_width)),
			      "fixed counter above its width", i);
}

/* Reads and queries must not change the model; nor may a WRMSR that #GPs. */
static void check_unchanged(const struct vpmu *before, const struct vpmu *after,
			    const char *what, uint32_t msr)
{
	check(!memcmp(before, after, sizeof(*before)), what, msr);
}

/* docs/intel-pmu.md 2.1 and 2.6/2.7: what a successful write must leave behind. */
static void check_write(struct vpmu *pmu, const struct enumeration *e, uint32_t msr,
			uint64_t data)
{
	struct msr_view v = view(e, msr);
	uint64_t val = 0, status = 0;
	unsigned int x;

	check(v.exists != NO, "WRMSR of an MSR that does not exist succeeds", msr);
	/* docs/intel-pmu.md 1.4, 2.5, 2.8: read-only to the guest, a WRMSR #GPs. */
	check(msr != MSR_IA32_PERF_CAPABILITIES && msr != MSR_IA32_PERF_GLOBAL_STATUS &&
	      msr != MSR_IA32_PERF_GLOBAL_INUSE, "WRMSR of a read-only MSR succeeds", msr);
	check(vpmu_rdmsr(pmu, msr, &val) == VPMU_OK, "written MSR cannot be read", msr);
	if (v.exact)
		check(val == data, "written value does not read back", msr);
	if (in(msr, MSR_IA32_PMC0, 8, &x))
		check(val == ((uint64_t)(int64_t)(int32_t)(uint32_t)data & MASK(e->gp_width)),
		      "legacy PMC write is not sign-extended from bit 31", msr);
	if (in(msr, MSR_IA32_FIXED_CTR0, 8, &x))
		check(val == (data & MASK(e->fixed_width)), "fixed counter write", msr);
	if (msr == MSR_IA32_PERF_GLOBAL_OVF_CTRL || msr == MSR_IA32_PERF_GLOBAL_STATUS_SET) {
		check(vpmu_rdmsr(pmu, MSR_IA32_PERF_GLOBAL_STATUS, &status) == VPMU_OK,
		      "GLOBAL_STATUS unreadable", msr);
		if (msr == MSR_IA32_PERF_GLOBAL_OVF_CTRL)
			check(!(status & data), "0x390 did not clear", msr);
		else
			check((status & data) == data, "0x391 did not set", msr);
	}
}

/* ---- operations --------------------------------------------------------------- */

static uint32_t pick_msr(struct cursor *c)
{
	uint8_t sel = u8(c);

	if (sel < 0xf0)
		return pmu_msrs[sel % NR_PMU_MSRS];
	return (uint32_t)u64(c, 4);
}

static uint64_t pick_value(struct cursor *c, const struct enumeration *e, uint32_t msr)
{
	uint64_t allowed = view(e, msr).allowed;
	uint8_t mode = u8(c);

	switch (mode & 7) {
	case 0: return u64(c, 8);
	case 1: return u64(c, 8) & allowed;
	case 2: return BIT_ULL(mode >> 2 & 63) | (u64(c, 1) ? 0 : u64(c, 8) & allowed);
	case 3: return u64(c, 4);
	case 4: return allowed;
	case 5: return ~0ULL;
	case 6: return 0;
	default: return allowed - u64(c, 1);	/* counters just below the wrap */
	}
}

static uint64_t pick_count(struct cursor *c)
{
	uint8_t mode = u8(c);

	switch (mode & 3) {
	case 0: return mode >> 2;
	case 1: return u64(c, 2);
	case 2: return u64(c, 8);
	default: return UINT64_MAX - (mode >> 2);
	}
}

static enum pmu_arch_event pick_event(struct cursor *c)
{
	uint8_t b = u8(c) % (PMU_EV_NR + 2);

	/* PMU_EV_NR and PMU_EV_NONE are out-of-range values a source must not crash. */
	return b == PMU_EV_NR + 1 ? PMU_EV_NONE : (enum pmu_arch_event)b;
}

static uint64_t rd(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v = 0;

	vpmu_rdmsr(pmu, msr, &v);	/* 0 where the MSR does not exist */
	return v;
}

/*
 * After vpmu_count(ev, n, cpl): a counter the docs/intel-pmu.md 3.1 enable condition,
 * its CPL filter or its event (docs/intel-pmu.md 5, unavailable events count nothing)
 * rules out did not move; one that did advanced by at most n (one per
 * occurrence, docs/intel-pmu.md 3.2 with c = 1); one that wrapped has its GLOBAL_STATUS
 * bit set (docs/intel-pmu.md 3.3, whatever INT says) and is reported by take_overflows.
 */
static void check_count(struct vpmu *before, struct vpmu *after, const struct enumeration *e,
			enum pmu_arch_event ev, uint64_t n, unsigned int cpl)
{
	uint64_t ctrl = rd(before, MSR_IA32_PERF_GLOBAL_CTRL);
	uint64_t fctrl = rd(before, MSR_IA32_FIXED_CTR_CTRL);
	uint64_t status = rd(after, MSR_IA32_PERF_GLOBAL_STATUS);
	bool running = !(e->version >= 4 &&
			 (rd(before, MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_CTR_FRZ));
	bool avail = ev >= 0 && ev < PMU_EV_NR && (e->events & (1u << ev));
	unsigned int i;

	for (i = 0; i < e->nr_gp; i++) {
		uint64_t sel = rd(before, MSR_IA32_PERFEVTSEL0 + i);
		uint64_t v0 = rd(before, MSR_IA32_PMC0 + i), v1 = rd(after, MSR_IA32_PMC0 + i);
		bool may = avail && running && (sel & EVTSEL_EN) &&
			   (e->version < 2 || (ctrl & BIT_ULL(i))) &&
			   (sel & (cpl ? EVTSEL_USR : EVTSEL_OS)) &&
			   (sel & (EVTSEL_EVENT | EVTSEL_UMASK)) ==
				   pmu_core_event_code(pmu_intel_part_core(e->version), ev);

		check(may || v1 == v0, "a GP counter that may not count moved", i);
		check(v1 < v0 || v1 - v0 <= n, "a GP counter advanced by more than n", i);
		if (v1 < v0) {
			check(e->version < 2 || (status & BIT_ULL(i)), "GP wrap without status", i);
			check(after->overflows & BIT_ULL(i), "GP wrap not reported", i);
		}
	}
	for (i = 0; i < VPMU_MAX_FIXED; i++) {
		uint64_t v0, v1;
		bool may;

		if (!(e->fixed & (1u << i)))
			continue;
		v0 = rd(before, MSR_IA32_FIXED_CTR0 + i);
		v1 = rd(after, MSR_IA32_FIXED_CTR0 + i);
		may = avail && running && (ctrl & GLOBAL_CTRL_FIXED(i)) &&
		      (fctrl & (cpl ? FIXED_CTRL_USR(i) : FIXED_CTRL_OS(i))) &&
		      pmu_fixed_event(i) == ev;
		check(may || v1 == v0, "a fixed counter that may not count moved", 32 + i);
		check(v1 < v0 || v1 - v0 <= n, "a fixed counter advanced by more than n", 32 + i);
		if (v1 < v0) {
			check(status & GLOBAL_CTRL_FIXED(i), "fixed wrap without status", 32 + i);
			check(after->overflows & GLOBAL_CTRL_FIXED(i), "fixed wrap not reported",
			      32 + i);
		}
	}
}

/*
 * vpmu_events_to_overflow() promises the first wrap after exactly d
 * occurrences: d - 1 on a copy wraps nothing, one more wraps something.
 */
static void check_distance(const struct vpmu *pmu, enum pmu_arch_event ev, unsigned int cpl)
{
	static struct vpmu copy;
	uint64_t d = vpmu_events_to_overflow(pmu, ev, cpl);

	check_event(d > 0, "events_to_overflow is 0", ev);
	if (d == UINT64_MAX)
		return;
	copy = *pmu;
	vpmu_take_overflows(&copy);
	vpmu_count(&copy, ev, d - 1, cpl);
	check_event(vpmu_take_overflows(&copy) == 0, "wrap before events_to_overflow", ev);
	vpmu_count(&copy, ev, 1, cpl);
	check_event(vpmu_take_overflows(&copy) != 0, "no wrap at events_to_overflow", ev);
}

static void run_op(struct vpmu *pmu, const struct enumeration *e, struct cursor *c)
{
	static struct vpmu before;
	enum pmu_arch_event ev;
	uint64_t val, n;
	uint32_t msr;
	unsigned int cpl;
	int r;

	before = *pmu;
	switch (u8(c) % 7) {
	case 0:
		msr = pick_msr(c);
		r = vpmu_rdmsr(pmu, msr, &val);
		check(r == VPMU_OK || r == VPMU_GP, "RDMSR return value", msr);
		check_unchanged(&before, pmu, "RDMSR changed the model", msr);
		break;
	case 1:
		msr = pick_msr(c);
		val = pick_value(c, e, msr);
		r = vpmu_wrmsr(pmu, msr, val);
		check(r == VPMU_OK || r == VPMU_GP, "WRMSR return value", msr);
		if (r == VPMU_GP)
			check_unchanged(&before, pmu, "WRMSR that #GPs changed the model", msr);
		else
			check_write(pmu, e, msr, val);
		break;
	case 2:
		ev = pick_event(c);
		n = pick_count(c);
		cpl = u8(c) & 3;
		vpmu_count(pmu, ev, n, cpl);
		check_count(&before, pmu, e, ev, n, cpl);
		break;
	case 3:
		vpmu_take_pmi(pmu);
		check(!vpmu_take_pmi(pmu), "PMI pending after take", 0);
		vpmu_take_overflows(pmu);
		check(!vpmu_take_overflows(pmu), "overflows left after take", 0);
		break;
	case 4:
		msr = (uint32_t)u64(c, 4);
		r = vpmu_rdpmc(pmu, msr, &val);
		check(r == VPMU_OK || r == VPMU_GP, "RDPMC return value", msr);
		check_rdpmc(e, msr, r, val);
		check_unchanged(&before, pmu, "RDPMC changed the model", msr);
		break;
	case 5:
		ev = pick_event(c);
		cpl = u8(c) & 3;
		vpmu_counts_event(pmu, ev);
		check_distance(pmu, ev, cpl);
		check_unchanged(&before, pmu, "a query changed the model", 0);
		break;
	default:
		if (e->version >= 2)
			vpmu_request_pmi(pmu, GLOBAL_STATUS_BUFFER_OVF);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vpmu pmu;
	struct cursor c = { data, size };
	struct vpmu_config cfg;
	struct enumeration e;
	uint8_t flags;

	memset(&cfg, 0, sizeof(cfg));
	cfg.version = u8(&c) % 6;
	cfg.nr_gp = u8(&c) % (VPMU_MAX_GP + 1);
	cfg.gp_width = u8(&c) % 65;
	cfg.nr_fixed = u8(&c) % (VPMU_MAX_FIXED + 1);
	cfg.fixed_width = u8(&c) % 65;
	flags = u8(&c);
	cfg.full_width_write = flags & 1;
	cfg.pdcm = flags & 2;
	cfg.pebs = flags & 4;
	cfg.pebs_baseline = flags & 8;
	cfg.pebs_format = flags >> 4 & 7;
	cfg.available_events = u8(&c);
	cfg.event_vector_len = PMU_EV_VECTOR_LEN;
	if (vpmu_config_validate(&cfg))
		return 0;

	vpmu_init(&pmu, &cfg);
	enumerate(&pmu, &e);
	check(vpmu_rdmsr(&pmu, MSR_IA32_MISC_ENABLE, &e.misc_ro) == VPMU_OK,
	      "MISC_ENABLE unreadable", MSR_IA32_MISC_ENABLE);
	e.misc_ro &= MISC_ENABLE_EMON | MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL;
	/* docs/intel-pmu.md 1.1: EMON is 1 with a PMU; PEBS_UNAVAILABLE 0 with PEBS. */
	check(!!(e.misc_ro & MISC_ENABLE_EMON) == (e.version > 0), "MISC_ENABLE.EMON", 0);
	check(!(e.misc_ro & MISC_ENABLE_PEBS_UNAVAIL) == (e.ds && e.pebs_fmt),
	      "MISC_ENABLE.PEBS_UNAVAILABLE", 0);
	check_all(&pmu, &e);
	while (c.left) {
		run_op(&pmu, &e, &c);
		check_all(&pmu, &e);
	}
	return 0;
}
