/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Intel model: the architectural PMU, versions 0 to 5, with PEBS
 * (docs/intel-pmu.md; Linux KVM's arch/x86/kvm/vmx/pmu_intel.c, whose ops
 * struct vpmu_vendor mirrors). Its configuration, its capabilities and
 * reserved-bit masks, its RESET state, its CPUID leaves, its event
 * encodings, its MSRs and its RDPMC; counting, overflow and reprogramming
 * are the core's (counters.c, reprogram.c, msr.c).
 *
 * Version 0 is a CPU without a PMU, so every PMU MSR #GPs there, including
 * 0xC1/0xC2/0x186/0x187 that KVM's legacy P6 path would accept
 * (docs/kvm-vpmu.md 0). Only MISC_ENABLE and DEBUGCTL exist on every CPU.
 * The version number is read here (the configuration, intel_caps(), the
 * CPUID leaves) and nowhere else: the rest of the model asks pmu->caps.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "x86-pmu/cpuid.h"

/* ---- configuration ------------------------------------------------------ */

#define INTEL_DEFAULT_WIDTH	48	/* what every Intel core since Nehalem reports */
#define INTEL_MIN_WIDTH		32	/* legacy PMCx writes sign-extend bit 31 (docs/intel-pmu.md 2.1) */
#define INTEL_MAX_WIDTH		63	/* keeps "distance to wrap" (2^W - value) in a u64 */
#define INTEL_MAX_VERSION	5
#define INTEL_DEFAULT_FIXED	3
#define INTEL_DEFAULT_PEBS_FMT	4

void vpmu_config_default(struct vpmu_config *cfg, unsigned int version)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->vendor = VPMU_VENDOR_INTEL;
	cfg->version = version;
	if (!version)
		return;
	cfg->nr_gp = VPMU_MAX_GP;
	cfg->gp_width = INTEL_DEFAULT_WIDTH;
	cfg->nr_fixed = version > 1 ? INTEL_DEFAULT_FIXED : 0;
	cfg->fixed_width = INTEL_DEFAULT_WIDTH;
	/* PERF_CAPABILITIES appears with PDCM; KVM always offers FW_WRITE with it. */
	cfg->pdcm = version > 1;
	cfg->full_width_write = cfg->pdcm;
	cfg->available_events = low_bits(PMU_EV_NR);
	cfg->event_vector_len = PMU_EV_VECTOR_LEN;
}

static int check_width(unsigned int *width)
{
	if (!*width)
		*width = INTEL_DEFAULT_WIDTH;
	if (*width < INTEL_MIN_WIDTH || *width > INTEL_MAX_WIDTH)
		return -EINVAL;
	return 0;
}

static int check_pebs(struct vpmu_config *cfg)
{
	if (!cfg->pebs) {
		if (cfg->pebs_format || cfg->pebs_baseline)
			return -EINVAL;
		return 0;
	}
	/*
	 * The PEBS format lives in PERF_CAPABILITIES (so PDCM is required) and
	 * PEBS counters are enabled through GLOBAL_CTRL (so version >= 2).
	 */
	if (!cfg->pdcm || cfg->version < 2)
		return -EINVAL;
	if (!cfg->pebs_format)
		cfg->pebs_format = INTEL_DEFAULT_PEBS_FMT;
	if (cfg->pebs_format < 3 || cfg->pebs_format > 5)
		return -EINVAL;
	/* Linux ignores PEBS_BASELINE below format 4 (docs/intel-pmu.md 1.4). */
	if (cfg->pebs_baseline && cfg->pebs_format < 4)
		return -EINVAL;
	return 0;
}

static int intel_validate(struct vpmu_config *cfg)
{
	if (cfg->version > INTEL_MAX_VERSION)
		return -EINVAL;
	if (!cfg->version) {
		/* No PMU: nothing PMU-shaped may leak into CPUID or the MSRs. */
		if (cfg->pebs)
			return -EINVAL;
		cfg->nr_gp = 0;
		cfg->nr_fixed = 0;
		cfg->fixed_bitmap = 0;
		cfg->gp_width = 0;
		cfg->fixed_width = 0;
		cfg->full_width_write = false;
		cfg->pdcm = false;
		cfg->pebs_format = 0;
		cfg->pebs_baseline = false;
		cfg->event_vector_len = 0;
		cfg->events_unavailable = 0;
		return 0;
	}

	/*
	 * 0 GP counters is a CPUID.0AH the architecture can express (KVM's
	 * selftests use it): only the fixed counters then exist.
	 */
	if (cfg->nr_gp > VPMU_MAX_GP)
		return -EINVAL;
	if (check_width(&cfg->gp_width) || check_width(&cfg->fixed_width))
		return -EINVAL;
	if (cfg->event_vector_len > VPMU_MAX_EVENT_VECTOR_LEN)
		return -EINVAL;

	/* Version 1 has no fixed counters and no global MSRs (docs/intel-pmu.md 1.2). */
	if (cfg->version == 1)
		cfg->nr_fixed = 0;
	if (cfg->nr_fixed > VPMU_MAX_FIXED)
		return -EINVAL;
	/* The ECX fixed-counter bitmap is a version 5 field (docs/intel-pmu.md 1.2). */
	if (cfg->fixed_bitmap && (cfg->version < 5 || cfg->fixed_bitmap & ~low_bits(VPMU_MAX_FIXED)))
		return -EINVAL;

	/*
	 * FW_WRITE is a PERF_CAPABILITIES bit: without PDCM the guest cannot
	 * see it, and KVM treats PERF_CAPABILITIES as 0 (docs/kvm-vpmu.md 1.2).
	 */
	if (!cfg->pdcm)
		cfg->full_width_write = false;

	return check_pebs(cfg);
}

/* ---- capabilities, reserved bits and RESET ------------------------------ */

/* Per fixed counter: EN_OS, EN_USR and PMI; ANY (4i+2) stays reserved (docs/intel-pmu.md 2.3). */
#define FIXED_CTRL_VALID(i)	(0xbULL << (4 * (i)))

/* KVM's baseline EVTSEL reserved mask: bits 63:32 and AnyThread (docs/intel-pmu.md 2.2). */
#define EVTSEL_RSVD_BASE	0xffffffff00200000ULL

/* 0x390 (docs/intel-pmu.md 2.6): counter bits plus these, v4+ adding LBR_Frz/CTR_Frz/ASCI. */
#define OVF_CTRL_V2_BITS	(GLOBAL_STATUS_TRACE_TOPA_PMI | GLOBAL_STATUS_OVF_UNCORE | \
				 GLOBAL_STATUS_BUFFER_OVF | GLOBAL_STATUS_COND_CHGD)
#define STATUS_V4_BITS		(GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | \
				 GLOBAL_STATUS_ASCI)
/* 0x391 (docs/intel-pmu.md 2.7): like 0x390 of v4 but CondChgd (63) is reserved. */
#define STATUS_SET_BITS		(GLOBAL_STATUS_TRACE_TOPA_PMI | STATUS_V4_BITS | \
				 GLOBAL_STATUS_OVF_UNCORE | GLOBAL_STATUS_BUFFER_OVF)

/*
 * What each version adds (docs/intel-pmu.md 1.2): v2 the global control,
 * status and overflow-control MSRs and the freeze-on-PMI bits of DEBUGCTL
 * (with PDCM, docs/intel-pmu.md 2.9); v4 STATUS_SET, INUSE and the
 * streamlined freeze (docs/intel-pmu.md 3.6).  Each version shows a part
 * (PMU_INTEL_PARTS), whose core's model-specific encodings it decodes.
 */
static void intel_caps(struct vpmu *pmu)
{
	const struct vpmu_config *cfg = &pmu->cfg;

	pmu->caps.global_ctrl = cfg->version >= 2;
	pmu->caps.global_status_set = cfg->version >= 4;
	pmu->caps.ctr_frz = cfg->version >= 4;
	pmu->caps.freeze_on_pmi = cfg->pdcm && cfg->version >= 2;
	pmu->caps.core = pmu_intel_part_core(cfg->version);
}

/*
 * Every mask starts as "all reserved" and only bits the configuration
 * enumerates are opened (KVM kvm_pmu_refresh()), so an MSR this config does
 * not have can never accept a stray bit.
 */
static void intel_masks(struct vpmu *pmu)
{
	const struct vpmu_config *cfg = &pmu->cfg;
	uint64_t counters = vpmu_counter_bits(cfg);
	uint64_t fixed_valid = 0;
	uint64_t debugctl_valid = DEBUGCTL_LBR | DEBUGCTL_BTF;
	unsigned int i;

	pmu->evtsel_rsvd = ~0ULL;
	pmu->fixed_ctr_ctrl_rsvd = ~0ULL;
	pmu->global_ctrl_rsvd = ~0ULL;
	pmu->global_ovf_ctrl_rsvd = ~0ULL;
	pmu->global_status_set_rsvd = ~0ULL;
	pmu->pebs_enable_rsvd = ~0ULL;

	/* LBR and BTF are accepted and dropped, not #GP (KVM, docs/intel-pmu.md 2.9). */
	if (pmu->caps.freeze_on_pmi)
		debugctl_valid |= DEBUGCTL_FREEZE_LBRS_ON_PMI |
				  DEBUGCTL_FREEZE_PERFMON_ON_PMI;
	pmu->debugctl_rsvd = ~debugctl_valid;

	if (!cfg->version)
		return;
	pmu->evtsel_rsvd = EVTSEL_RSVD_BASE;
	if (cfg->pebs_baseline)
		pmu->evtsel_rsvd &= ~EVTSEL_ADAPTIVE;

	if (!pmu->caps.global_ctrl)
		return;
	for (i = 0; i < vpmu_fixed_span(cfg); i++) {
		if (!vpmu_fixed_exists(cfg, i))
			continue;
		fixed_valid |= FIXED_CTRL_VALID(i);
		if (cfg->pebs_baseline)
			fixed_valid |= FIXED_CTRL_ADAPTIVE(i);
	}
	pmu->fixed_ctr_ctrl_rsvd = ~fixed_valid;
	pmu->global_ctrl_rsvd = ~counters;
	pmu->global_ovf_ctrl_rsvd = ~(counters | OVF_CTRL_V2_BITS);
	if (pmu->caps.global_status_set) {
		pmu->global_ovf_ctrl_rsvd &= ~STATUS_V4_BITS;
		pmu->global_status_set_rsvd = ~(counters | STATUS_SET_BITS);
	}

	/* KVM: with baseline any counter can do PEBS, else the GP ones only. */
	if (cfg->pebs)
		pmu->pebs_enable_rsvd = cfg->pebs_baseline ? pmu->global_ctrl_rsvd :
							     ~low_bits(cfg->nr_gp);
}

static void intel_refresh(struct vpmu *pmu)
{
	intel_caps(pmu);
	intel_masks(pmu);
}

static uint64_t perf_capabilities(const struct vpmu_config *cfg)
{
	uint64_t caps = 0;

	if (cfg->full_width_write)
		caps |= PERF_CAP_FW_WRITE;
	if (cfg->pebs) {
		/* Trap-like records with architectural registers (docs/intel-pmu.md 4.5). */
		caps |= PERF_CAP_PEBS_TRAP | PERF_CAP_PEBS_ARCH_REG |
			(uint64_t)cfg->pebs_format << PERF_CAP_PEBS_FORMAT_SHIFT;
		if (cfg->pebs_baseline)
			caps |= PERF_CAP_PEBS_BASELINE;
	}
	return caps;
}

static void intel_reset(struct vpmu *pmu)
{
	const struct vpmu_config *cfg = &pmu->cfg;

	/*
	 * Architectural RESET value of GLOBAL_CTRL: every GP enable set, fixed
	 * enables clear (docs/intel-pmu.md 2, KVM commit de120e1d), so a v1-style guest that
	 * never touches GLOBAL_CTRL still counts.
	 */
	if (pmu->caps.global_ctrl)
		pmu->global_ctrl = low_bits(cfg->nr_gp);

	pmu->misc_enable = MISC_ENABLE_FAST_STRING | MISC_ENABLE_BTS_UNAVAIL;
	if (cfg->version)
		pmu->misc_enable |= MISC_ENABLE_EMON;
	if (!cfg->pebs)
		pmu->misc_enable |= MISC_ENABLE_PEBS_UNAVAIL;

	if (cfg->pdcm)
		pmu->perf_capabilities = perf_capabilities(cfg);
}

/* ---- CPUID --------------------------------------------------------------- */

/*
 * CPUID leaf 0xA and the PMU bits of leaf 1: the one place that turns a
 * vpmu_config into what the guest enumerates (docs/intel-pmu.md 1.1, 1.2).
 */
void vpmu_cpuid_0a(const struct vpmu_config *cfg, uint32_t *eax, uint32_t *ebx,
		   uint32_t *ecx, uint32_t *edx)
{
	*eax = *ebx = *ecx = *edx = 0;
	if (!cfg->version || cfg->vendor != VPMU_VENDOR_INTEL)
		return;		/* EAX[7:0] = 0: no architectural PMU */

	*eax = cfg->version | cfg->nr_gp << 8 | cfg->gp_width << 16 |
	       cfg->event_vector_len << 24;
	/*
	 * EBX bit i set means event i is NOT available: the events no source
	 * produces, and those the operator hides (they still count).
	 */
	*ebx = (uint32_t)(~cfg->available_events & low_bits(PMU_EV_VECTOR_LEN)) |
	       cfg->events_unavailable;

	/*
	 * ECX is the fixed-counter bitmap from v5, reserved (0) before. It
	 * names every fixed counter, the contiguous ones of EDX[4:0] too, as
	 * a part's "supported fixed counters bit mask" does (SDM vol. 2A).
	 */
	if (cfg->version >= 5)
		*ecx = vpmu_fixed_counters(cfg);

	/*
	 * EDX is meaningful from v2. AnyThread is always #GP in this model, so
	 * bit 15 says so at every version > 1, as KVM does (docs/kvm-vpmu.md 1.5).
	 */
	if (cfg->version > 1)
		*edx = cfg->nr_fixed | cfg->fixed_width << 5 |
		       CPUID_0A_EDX_ANYTHREAD_DEPRECATED;
}

void vpmu_cpuid_01(const struct vpmu_config *cfg, uint32_t *ecx, uint32_t *edx)
{
	*ecx &= ~(CPUID_1_ECX_PDCM | CPUID_1_ECX_DTES64 | CPUID_1_ECX_DS_CPL);
	*edx &= ~CPUID_1_EDX_DS;
	if (cfg->pdcm)
		*ecx |= CPUID_1_ECX_PDCM;
	/* DS-CPL qualifies BTS, which we never offer; DTES64 is needed by Linux. */
	if (cfg->pebs) {
		*ecx |= CPUID_1_ECX_DTES64;
		*edx |= CPUID_1_EDX_DS;
	}
}

/* ---- events -------------------------------------------------------------- */

/*
 * Event decoding (docs/intel-pmu.md 5, 3.7): the EventSelect/UMask
 * encoding of each CPUID.0AH:EBX event, the same on every core, and per
 * core those of the model-specific branch events the exact source can
 * count; the fixed event of each fixed counter.  All from the event table
 * (include/x86-pmu/events.h).
 */
#define ARCH_CODE(name, sel, umask, str, fixed)	[PMU_EV_##name] = PMU_RAW_EVENT(sel, umask),
static const uint64_t arch_code[PMU_EV_NR] = {
	PMU_ARCH_EVENTS(ARCH_CODE)
};
#undef ARCH_CODE

#define CORE_CODE(core, name, sel, umask)	\
	[PMU_CORE_##core][PMU_EV_##name] = PMU_RAW_EVENT(sel, umask),
static const uint64_t core_code[PMU_CORE_NR][PMU_EV_NR] = {
	PMU_CORE_EVENTS(CORE_CODE)
};
#undef CORE_CODE

/* Every fixed counter of the table is one the model has. */
#define FIXED_IN_RANGE(name, sel, umask, str, fixed)	\
	_Static_assert((fixed) < VPMU_MAX_FIXED, #name ": fixed counter out of range");
PMU_ARCH_EVENTS(FIXED_IN_RANGE)
#undef FIXED_IN_RANGE

/* The counter-select bits matched against the event table. */
#define EVTSEL_EVENT_UMASK	(EVTSEL_EVENT | EVTSEL_UMASK)

/*
 * Like KVM, match on event select + umask only (docs/intel-pmu.md 5); an
 * encoding @core has no row for counts nothing (docs/counting.md, "CPU
 * models").
 */
enum pmu_arch_event vpmu_intel_decode_event(enum pmu_core core, uint64_t evtsel)
{
	uint64_t code = evtsel & EVTSEL_EVENT_UMASK;
	int ev;

	if ((unsigned int)core >= PMU_CORE_NR)
		return PMU_EV_NONE;
	for (ev = 0; ev < PMU_EV_NR; ev++)
		if ((arch_code[ev] && arch_code[ev] == code) ||
		    (core_code[core][ev] && core_code[core][ev] == code))
			return ev;
	return PMU_EV_NONE;
}

static enum pmu_arch_event intel_decode_event(const struct vpmu *pmu, uint64_t ctl)
{
	return vpmu_intel_decode_event(pmu->caps.core, ctl);
}

enum pmu_arch_event vpmu_fixed_event(unsigned int idx)
{
	if (idx >= VPMU_MAX_FIXED)
		return PMU_EV_NONE;
	return pmu_fixed_event(idx);
}

/* ---- MSRs: counters and event selects ------------------------------------ */

/*
 * IA32_PMCx (0xC1+), IA32_A_PMCx (0x4C1+), IA32_PERFEVTSELx (0x186+) and
 * IA32_FIXED_CTRi (0x309+), docs/intel-pmu.md 2.1 and 2.2. No write here
 * creates an overflow or touches GLOBAL_STATUS: only a real increment does
 * (docs/intel-pmu.md 2.1, 3.3).
 */

/* Legacy alias: EAX only, bit 31 copied up to the width (SDM 18.2.5, KVM). */
static void wr_pmc(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->gp[idx].value = (uint64_t)(int64_t)(int32_t)(uint32_t)data & pmu->gp_mask;
}

/* Full-width alias: bits at or above the width are reserved (KVM). */
static int chk_a_pmc(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & ~pmu->gp_mask ? VPMU_GP : VPMU_OK;
}

/* Full-width alias: bits at or above the width are reserved (KVM, checked first). */
static void wr_pmc_full(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->gp[idx].value = data;
}

static int chk_evtsel(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & pmu->evtsel_rsvd ? VPMU_GP : VPMU_OK;
}

static void wr_evtsel(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->gp[idx].ctl = data;
	/* A reprogrammed counter starts with no edge history (docs/intel-pmu.md 3.2). */
	pmu->gp[idx].edge_prev = false;
}

static int rd_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->fixed[idx].value & pmu->fixed_mask;
	return VPMU_OK;
}

/*
 * The SDM calls bits above the width reserved, but whether hardware #GPs is
 * unconfirmed (docs/intel-pmu.md 8 item 2); KVM truncates, and so do we.
 */
static void wr_fixed_ctr(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->fixed[idx].value = data & pmu->fixed_mask;
}

/* ---- MSRs: global control (v2+) ------------------------------------------ */

/*
 * 0x390 (OVF_CTRL / STATUS_RESET) and the v4 STATUS_SET and INUSE
 * (docs/intel-pmu.md 2.3-2.8); FIXED_CTR_CTRL, GLOBAL_CTRL and
 * GLOBAL_STATUS are plain registers of the table. 0x390 and 0x391 read 0,
 * as in KVM; the hardware value is unconfirmed.
 */

/*
 * Write 1 to clear. In v4 clearing CTR_Frz is what unfreezes the counters:
 * the enable expression (docs/intel-pmu.md 3.1) reads the status bit directly.
 */
static int chk_global_ovf_ctrl(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & pmu->global_ovf_ctrl_rsvd ? VPMU_GP : VPMU_OK;
}

static void wr_global_ovf_ctrl(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->global_status &= ~data;
}

/*
 * Write 1 to set (docs/intel-pmu.md 2.7). It is a VMM aid for restoring GLOBAL_STATUS,
 * so setting an overflow bit does not request a PMI; setting CTR_Frz does
 * freeze the counters.
 */
static int chk_global_status_set(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return data & pmu->global_status_set_rsvd ? VPMU_GP : VPMU_OK;
}

static void wr_global_status_set(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->global_status |= data;
}

/* Derived, read-only (docs/intel-pmu.md 2.8). */
static int rd_global_inuse(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	uint64_t inuse = 0;
	bool pmi = false;
	unsigned int i;

	for (i = 0; i < pmu->cfg.nr_gp; i++) {
		if (pmu->gp[i].ctl & EVTSEL_EVENT)
			inuse |= BIT_ULL(i);
		pmi |= pmu->gp[i].ctl & EVTSEL_INT;
	}
	for (i = 0; i < vpmu_fixed_span(&pmu->cfg); i++) {
		if (pmu->fixed_ctr_ctrl & (FIXED_CTRL_OS(i) | FIXED_CTRL_USR(i)))
			inuse |= GLOBAL_CTRL_FIXED(i);
		pmi |= pmu->fixed_ctr_ctrl & FIXED_CTRL_PMI(i);
	}
	if (pmi || pmu->pebs_enable & vpmu_counter_bits(&pmu->cfg))
		inuse |= GLOBAL_INUSE_PMI;
	*data = inuse;
	return VPMU_OK;
}

/* ---- MSRs: capabilities, DEBUGCTL, MISC_ENABLE, DS ----------------------- */

/* docs/intel-pmu.md 1.1, 1.4, 2.9-2.13. */

/* Read-only: a guest write always #GPs (docs/intel-pmu.md 1.4, KVM), so no wr handler. */
static int rd_perf_capabilities(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->perf_capabilities;
	return VPMU_OK;
}

/*
 * Only the freeze-on-PMI bits are modelled. LBR and BTF are dropped without
 * #GP as KVM does when it does not virtualize them; FREEZE_WHILE_SMM needs
 * PERF_CAPABILITIES[12], which we never set, so it #GPs with the rest.
 */
static void wr_debugctl(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->debugctl = data & ~(DEBUGCTL_LBR | DEBUGCTL_BTF);
}

/*
 * BTS/PEBS_UNAVAILABLE are read-only: changing them #GPs; EMON is read-only
 * too but KVM silently keeps it (docs/kvm-vpmu.md 1.2). Other bits are stored.
 */
static int chk_misc_enable(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	uint64_t ro = MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL;

	return (data ^ pmu->misc_enable) & ro ? VPMU_GP : VPMU_OK;
}

static void wr_misc_enable(struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	pmu->misc_enable = (data & ~MISC_ENABLE_EMON) |
			   (pmu->misc_enable & MISC_ENABLE_EMON);
}

/* A linear address: non-canonical (48-bit, no LA57) #GPs (docs/intel-pmu.md 2.10, KVM). */
static int chk_ds_area(const struct vpmu *pmu, unsigned int idx, uint64_t data)
{
	return (uint64_t)((int64_t)(data << 16) >> 16) != data ? VPMU_GP : VPMU_OK;
}

/* ---- the MSR table ------------------------------------------------------- */

/*
 * One row per MSR range; a row says whether a given MSR exists for the
 * configuration and who reads, checks and writes it (dispatch: msr.c).
 * Anything that does not exist, or has no handler for the access (a
 * read-only MSR written), is #GP.
 */
#define RANGE(msr, n, exists_fn) .first = (msr), .count = (n), .exists = (exists_fn)
#define RW_REG(field, mask)	REG(field), .rsvd = offsetof(struct vpmu, mask), .writable = true
#define RW_REG_VALID(field, valid) REG(field), .rsvd_bits = ~(uint64_t)(valid), .writable = true

static bool always(const struct vpmu *pmu, unsigned int idx)
{
	return true;
}

/* 0x4C1+ needs FW_WRITE, which validate already tied to PDCM (docs/kvm-vpmu.md 1.2). */
static bool has_a_pmc(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.full_width_write && vpmu_has_gp(pmu, idx);
}

/*
 * nr_fixed and the bitmap are 0 below v2, so this also hides the fixed
 * counters of v0/v1; from v5 the bitmap may leave holes (SDM vol. 2A).
 */
static bool has_fixed(const struct vpmu *pmu, unsigned int idx)
{
	return vpmu_fixed_exists(&pmu->cfg, idx);
}

static bool has_global_ctrl(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->caps.global_ctrl;
}

static bool has_global_status_set(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->caps.global_status_set;
}

static bool has_pdcm(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.pdcm;
}

/* DS_AREA, PEBS_ENABLE and LD_LAT come with CPUID DS and a PEBS format. */
static bool has_pebs(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.pebs;
}

static bool has_pebs_baseline(const struct vpmu *pmu, unsigned int idx)
{
	return pmu->cfg.pebs_baseline;
}

static const struct vpmu_msr_range intel_msr_ranges[] = {
	{ RANGE(MSR_IA32_PMC0, VPMU_MAX_GP, vpmu_has_gp), .rd = vpmu_rd_gp_ctr, .wr = wr_pmc },
	{ RANGE(MSR_IA32_PERFEVTSEL0, VPMU_MAX_GP, vpmu_has_gp), .rd = vpmu_rd_gp_ctl,
	  .chk = chk_evtsel, .wr = wr_evtsel, .controls = true },
	{ RANGE(MSR_IA32_MISC_ENABLE, 1, always), REG(misc_enable), .chk = chk_misc_enable,
	  .wr = wr_misc_enable },
	{ RANGE(MSR_IA32_DEBUGCTL, 1, always), RW_REG(debugctl, debugctl_rsvd),
	  .wr = wr_debugctl },
	{ RANGE(MSR_IA32_FIXED_CTR0, VPMU_MAX_FIXED, has_fixed), .rd = rd_fixed_ctr,
	  .wr = wr_fixed_ctr },
	/* PERF_CAPABILITIES[15] (PERF_METRICS) is never advertised. */
	{ RANGE(MSR_PERF_METRICS, 1, NULL) },
	{ RANGE(MSR_IA32_PERF_CAPABILITIES, 1, has_pdcm), .rd = rd_perf_capabilities },
	{ RANGE(MSR_IA32_FIXED_CTR_CTRL, 1, has_global_ctrl),
	  RW_REG(fixed_ctr_ctrl, fixed_ctr_ctrl_rsvd), .controls = true },
	/* Read-only to the guest (docs/intel-pmu.md 2.4); 0x390/0x391 change it. */
	{ RANGE(MSR_IA32_PERF_GLOBAL_STATUS, 1, has_global_ctrl), REG(global_status) },
	{ RANGE(MSR_IA32_PERF_GLOBAL_CTRL, 1, has_global_ctrl),
	  RW_REG(global_ctrl, global_ctrl_rsvd), .controls = true },
	/* Clearing or setting CTR_Frz (v4) unfreezes or freezes the counters. */
	{ RANGE(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1, has_global_ctrl), .rd = vpmu_rd_zero,
	  .chk = chk_global_ovf_ctrl, .wr = wr_global_ovf_ctrl, .controls = true },
	{ RANGE(MSR_IA32_PERF_GLOBAL_STATUS_SET, 1, has_global_status_set), .rd = vpmu_rd_zero,
	  .chk = chk_global_status_set, .wr = wr_global_status_set, .controls = true },
	{ RANGE(MSR_IA32_PERF_GLOBAL_INUSE, 1, has_global_status_set), .rd = rd_global_inuse },
	{ RANGE(MSR_IA32_PEBS_ENABLE, 1, has_pebs), RW_REG(pebs_enable, pebs_enable_rsvd) },
	{ RANGE(MSR_PEBS_DATA_CFG, 1, has_pebs_baseline), RW_REG_VALID(pebs_data_cfg, PEBS_DATACFG_VALID) },
	/* Bits 63:16 are reserved (docs/intel-pmu.md 2.13). */
	{ RANGE(MSR_PEBS_LD_LAT_THRESHOLD, 1, has_pebs), RW_REG_VALID(pebs_ld_lat, PEBS_LD_LAT_VALID) },
	/* MSR_PEBS_FRONTEND is model-specific; a software PMU omits it (docs/intel-pmu.md 2.14). */
	{ RANGE(MSR_PEBS_FRONTEND, 1, NULL) },
	{ RANGE(MSR_IA32_A_PMC0, VPMU_MAX_GP, has_a_pmc), .rd = vpmu_rd_gp_ctr,
	  .chk = chk_a_pmc, .wr = wr_pmc_full },
	{ RANGE(MSR_IA32_DS_AREA, 1, has_pebs), REG(ds_area), .chk = chk_ds_area,
	  .writable = true },
	VPMU_AMD_PMU_ROWS,
};

/* 0xC1 (IA32_PMC0) .. 0x600 (IA32_DS_AREA) */
static const struct vpmu_msr_span intel_msr_spans[] = {
	VPMU_INTEL_PMU_SPAN,
	VPMU_AMD_PMU_SPANS,
};

/* ---- RDPMC --------------------------------------------------------------- */

/*
 * Intel RDPMC (docs/intel-pmu.md 2.1, docs/kvm-vpmu.md 1.2): ECX[31:16] is
 * the counter type, 0 for GP and 0x4000 for fixed; every other type,
 * including the legacy fast-read bit 31, is #GP, as is an index past the
 * last counter.
 */
#define RDPMC_TYPE_SHIFT	16
#define RDPMC_TYPE_GP		0
#define RDPMC_TYPE_FIXED	(RDPMC_FIXED >> RDPMC_TYPE_SHIFT)
#define RDPMC_INDEX		0xffffu

static int intel_rdpmc(const struct vpmu *pmu, uint32_t ecx, uint64_t *data)
{
	unsigned int idx = ecx & RDPMC_INDEX;

	switch (ecx >> RDPMC_TYPE_SHIFT) {
	case RDPMC_TYPE_GP:
		if (idx >= pmu->cfg.nr_gp)
			return VPMU_GP;
		*data = pmu->gp[idx].value & pmu->gp_mask;
		return VPMU_OK;
	case RDPMC_TYPE_FIXED:
		if (!vpmu_fixed_exists(&pmu->cfg, idx))
			return VPMU_GP;
		*data = pmu->fixed[idx].value & pmu->fixed_mask;
		return VPMU_OK;
	default:
		return VPMU_GP;
	}
}

/* ---- freeze on PMI ------------------------------------------------------- */

/*
 * Freeze on PMI (docs/intel-pmu.md 3.6), at the PMI request. The
 * streamlined freeze (v4+) sets CTR_Frz/LBR_Frz and leaves GLOBAL_CTRL
 * alone; v2/v3 clear GLOBAL_CTRL. The v2/v3 LBR freeze would clear
 * DEBUGCTL.LBR, which this model never stores. True if the counters stop.
 */
static bool intel_freeze_on_pmi(struct vpmu *pmu)
{
	bool perfmon = pmu->debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI;

	if (pmu->caps.ctr_frz) {
		if (perfmon)
			pmu->global_status |= GLOBAL_STATUS_CTR_FRZ;
		if (pmu->debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI)
			pmu->global_status |= GLOBAL_STATUS_LBR_FRZ;
	} else if (perfmon) {
		pmu->global_ctrl = 0;
	}
	return perfmon;
}

const struct vpmu_vendor vpmu_intel = {
	.name = "intel",
	.validate = intel_validate,
	.refresh = intel_refresh,
	.reset = intel_reset,
	.msr_ranges = intel_msr_ranges,
	.nr_msr_ranges = sizeof(intel_msr_ranges) / sizeof(intel_msr_ranges[0]),
	.msr_spans = intel_msr_spans,
	.nr_msr_spans = sizeof(intel_msr_spans) / sizeof(intel_msr_spans[0]),
	.decode_event = intel_decode_event,
	.fixed_event = vpmu_fixed_event,
	.rdpmc = intel_rdpmc,
	.freeze_on_pmi = intel_freeze_on_pmi,
};
