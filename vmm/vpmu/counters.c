/*
 * Counting, overflow and PMI requests (spec 3.1-3.3, 3.6).
 *
 * Sources report event occurrences in batches. Each occurrence is treated
 * as one core cycle with c = 1 (spec 3.2 notes), which gives CMASK, INV and
 * E a fixed meaning per counter programming:
 *   - CMASK = 0: every occurrence counts (INV is ignored);
 *   - CMASK = 1, INV = 0 or CMASK >= 2, INV = 1: the condition holds, every
 *     occurrence counts; CMASK >= 2, INV = 0 or CMASK = 1, INV = 1: nothing
 *     counts;
 *   - E: only the rising edge counts. The condition cannot change while the
 *     counter stays programmed, so that is one increment, at the first
 *     occurrence after the EVTSEL write (edge_prev remembers it).
 */
#include "internal.h"

enum advance {
	ADV_NONE,	/* the counter does not move */
	ADV_EACH,	/* +1 per occurrence */
	ADV_ONCE,	/* +1 for the first occurrence only (pending edge) */
};

static bool frozen(const struct vpmu *pmu)
{
	/* Streamlined freeze (v4+): CTR_Frz stops every counter (SDM 18.2.4.1). */
	return pmu->cfg.version >= 4 && (pmu->global_status & GLOBAL_STATUS_CTR_FRZ);
}

static bool event_available(const struct vpmu *pmu, enum pmu_arch_event ev)
{
	return ev >= 0 && ev < PMU_EV_NR && (pmu->cfg.available_events & BIT_ULL(ev));
}

/* The per-cycle condition of spec 3.2 for c = 1. */
static bool cmask_cond(uint64_t ctl)
{
	unsigned int cmask = (ctl & EVTSEL_CMASK) >> EVTSEL_CMASK_SHIFT;

	if (!cmask)
		return true;
	return ctl & EVTSEL_INV ? 1 < cmask : 1 >= cmask;
}

static enum advance gp_advance(const struct vpmu *pmu, unsigned int i,
			       enum pmu_arch_event ev, unsigned int cpl)
{
	const struct vpmu_pmc *pmc = &pmu->gp[i];
	uint64_t ctl = pmc->ctl;

	if (!(ctl & EVTSEL_EN) || frozen(pmu))
		return ADV_NONE;
	/* Version 1 has no GLOBAL_CTRL: EN alone enables (spec 3.1). */
	if (pmu->cfg.version >= 2 && !(pmu->global_ctrl & BIT_ULL(i)))
		return ADV_NONE;
	if (!cpl_allowed(ctl & EVTSEL_OS, ctl & EVTSEL_USR, cpl))
		return ADV_NONE;
	if (vpmu_decode_event(ctl) != ev || !cmask_cond(ctl))
		return ADV_NONE;
	/* A denied event counts nothing; the guest still programs and reads it. */
	if (!vpmu_filter_gp_allowed(pmu->filter, ctl))
		return ADV_NONE;
	if (ctl & EVTSEL_EDGE)
		return pmc->edge_prev ? ADV_NONE : ADV_ONCE;
	return ADV_EACH;
}

static enum advance fixed_advance(const struct vpmu *pmu, unsigned int i,
				  enum pmu_arch_event ev, unsigned int cpl)
{
	uint64_t ctrl = pmu->fixed_ctr_ctrl;

	if (!(pmu->global_ctrl & GLOBAL_CTRL_FIXED(i)) || frozen(pmu))
		return ADV_NONE;
	if (!cpl_allowed(ctrl & FIXED_CTRL_OS(i), ctrl & FIXED_CTRL_USR(i), cpl))
		return ADV_NONE;
	if (vpmu_fixed_event(i) != ev || !vpmu_filter_fixed_allowed(pmu->filter, i))
		return ADV_NONE;
	return ADV_EACH;
}

/* Occurrences until this counter wraps, UINT64_MAX if it never will. */
static uint64_t distance(const struct vpmu_pmc *pmc, uint64_t mask, enum advance adv)
{
	/* mask < 2^63 (config.c caps widths at 63), so this cannot overflow. */
	uint64_t d = mask - pmc->value + 1;

	if (adv == ADV_EACH || (adv == ADV_ONCE && d == 1))
		return d;
	return UINT64_MAX;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * Occurrences until the first overflow that requests a PMI, the point where
 * freeze-on-PMI stops every counter.
 */
static uint64_t events_to_pmi(const struct vpmu *pmu, enum pmu_arch_event ev,
			      unsigned int cpl)
{
	uint64_t d = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < pmu->cfg.nr_gp; i++)
		if (pmu->gp[i].ctl & EVTSEL_INT)
			d = min_u64(d, distance(&pmu->gp[i], pmu->gp_mask,
						gp_advance(pmu, i, ev, cpl)));
	for (i = 0; i < pmu->cfg.nr_fixed; i++)
		if (pmu->fixed_ctr_ctrl & FIXED_CTRL_PMI(i))
			d = min_u64(d, distance(&pmu->fixed[i], pmu->fixed_mask,
						fixed_advance(pmu, i, ev, cpl)));
	return d;
}

/*
 * Adds `n` occurrences to one counter. A wrap sets the counter's status and
 * overflow bits whatever INT/PMI says (spec 3.3); the counter continues
 * from the wrap. Returns true if it wrapped.
 */
static bool advance(struct vpmu *pmu, struct vpmu_pmc *pmc, uint64_t mask,
		    unsigned int width, enum advance adv, uint64_t n,
		    unsigned int idx)
{
	uint64_t d = mask - pmc->value + 1;
	uint64_t inc;

	if (adv == ADV_NONE)
		return false;
	inc = n;
	if (adv == ADV_ONCE) {
		pmc->edge_prev = true;
		inc = 1;
	}
	if (inc < d) {
		pmc->value += inc;
		return false;
	}
	pmc->value = (inc - d) & mask;
	pmu->nr_overflows += 1 + ((inc - d) >> width);
	pmu->global_status |= BIT_ULL(idx);
	pmu->overflows |= BIT_ULL(idx);
	/* Spec 4.2 step 1: the wrap arms PEBS; the assist comes from vmm/pebs. */
	pmu->pebs_armed |= pmu->pebs_enable & BIT_ULL(idx);
	return true;
}

void vpmu_count(struct vpmu *pmu, enum pmu_arch_event ev, uint64_t n, unsigned int cpl)
{
	enum advance gp_adv[VPMU_MAX_GP], fixed_adv[VPMU_MAX_FIXED];
	const struct vpmu_config *cfg = &pmu->cfg;
	bool pmi = false;
	unsigned int i;

	if (!n || !event_available(pmu, ev))
		return;

	/*
	 * With freeze-on-PMI the counters stop when the PMI is requested, not
	 * when it is delivered (spec 3.6), so occurrences after that one are
	 * not counted anywhere.
	 */
	if (pmu->debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI)
		n = min_u64(n, events_to_pmi(pmu, ev, cpl));

	/* Decide every counter before any state changes (one point in time). */
	for (i = 0; i < cfg->nr_gp; i++)
		gp_adv[i] = gp_advance(pmu, i, ev, cpl);
	for (i = 0; i < cfg->nr_fixed; i++)
		fixed_adv[i] = fixed_advance(pmu, i, ev, cpl);

	for (i = 0; i < cfg->nr_gp; i++)
		if (advance(pmu, &pmu->gp[i], pmu->gp_mask, cfg->gp_width,
			    gp_adv[i], n, i))
			pmi |= pmu->gp[i].ctl & EVTSEL_INT;
	for (i = 0; i < cfg->nr_fixed; i++)
		if (advance(pmu, &pmu->fixed[i], pmu->fixed_mask, cfg->fixed_width,
			    fixed_adv[i], n, PMC_IDX_FIXED + i))
			pmi |= pmu->fixed_ctr_ctrl & FIXED_CTRL_PMI(i);

	/* Simultaneous overflows raise a single PMI (SDM 18-39). */
	if (pmi)
		vpmu_request_pmi(pmu, 0);
}

void vpmu_request_pmi(struct vpmu *pmu, uint64_t status)
{
	pmu->global_status |= status;
	pmu->pmi_pending = true;
	pmu->nr_pmis_requested++;

	/*
	 * Freeze on PMI (spec 3.6). v4+ sets CTR_Frz/LBR_Frz and leaves
	 * GLOBAL_CTRL alone; v2/v3 clear GLOBAL_CTRL. The v2/v3 LBR freeze
	 * would clear DEBUGCTL.LBR, which this model never stores.
	 */
	if (pmu->cfg.version >= 4) {
		if (pmu->debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI)
			pmu->global_status |= GLOBAL_STATUS_CTR_FRZ;
		if (pmu->debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI)
			pmu->global_status |= GLOBAL_STATUS_LBR_FRZ;
	} else if (pmu->debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) {
		pmu->global_ctrl = 0;
	}
}

uint64_t vpmu_events_to_overflow(const struct vpmu *pmu, enum pmu_arch_event ev,
				 unsigned int cpl)
{
	uint64_t d = UINT64_MAX;
	unsigned int i;

	if (!event_available(pmu, ev))
		return UINT64_MAX;
	for (i = 0; i < pmu->cfg.nr_gp; i++)
		d = min_u64(d, distance(&pmu->gp[i], pmu->gp_mask,
					gp_advance(pmu, i, ev, cpl)));
	for (i = 0; i < pmu->cfg.nr_fixed; i++)
		d = min_u64(d, distance(&pmu->fixed[i], pmu->fixed_mask,
					fixed_advance(pmu, i, ev, cpl)));
	return d;
}

uint32_t vpmu_counted_events_at(const struct vpmu *pmu, unsigned int cpl)
{
	uint32_t mask = 0;
	enum pmu_arch_event ev;
	unsigned int i;

	for (i = 0; i < pmu->cfg.nr_gp; i++) {
		if (!(pmu->gp[i].ctl & EVTSEL_EN))
			continue;	/* the common case, before decoding */
		ev = vpmu_gp_event(pmu, i);
		if (event_available(pmu, ev) && gp_advance(pmu, i, ev, cpl) != ADV_NONE)
			mask |= 1u << ev;
	}
	for (i = 0; i < pmu->cfg.nr_fixed; i++) {
		ev = vpmu_fixed_event(i);
		if (event_available(pmu, ev) && fixed_advance(pmu, i, ev, cpl) != ADV_NONE)
			mask |= 1u << ev;
	}
	return mask;
}

uint32_t vpmu_counted_events(const struct vpmu *pmu)
{
	/* CPL 1..3 all take the USR path, so 0 and 3 cover every filter. */
	return vpmu_counted_events_at(pmu, 0) | vpmu_counted_events_at(pmu, 3);
}

bool vpmu_counts_event(const struct vpmu *pmu, enum pmu_arch_event ev)
{
	return event_available(pmu, ev) && (vpmu_counted_events(pmu) & (1u << ev));
}

bool vpmu_take_pmi(struct vpmu *pmu)
{
	bool pmi = pmu->pmi_pending;

	pmu->pmi_pending = false;
	return pmi;
}

uint64_t vpmu_take_overflows(struct vpmu *pmu)
{
	uint64_t ovf = pmu->overflows;

	pmu->overflows = 0;
	return ovf;
}
