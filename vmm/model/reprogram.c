/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reprogramming: which counters count which event at which level,
 * derived from the controls once per change instead of once per event.
 * Called after every write that can change it (an event select, the
 * fixed-counter control, GLOBAL_CTRL, a freeze or unfreeze, the filter, a
 * consumed edge) and at reset. Counting (counters.c) then only walks the
 * counters of its event.
 *
 * A counter counts an event at a level when (docs/intel-pmu.md 3.1): it is enabled (EN,
 * or the fixed counter's OS/USR field), GLOBAL_CTRL enables it (where it
 * exists), the counters are not frozen (CTR_Frz), it is programmed with that event
 * and the event is available, its CMASK/INV condition holds for one
 * occurrence, the operator's filter allows it, its OS (CPL 0) or USR
 * (CPL 1-3) bit is set, and, with EVTSEL.E, its edge has not yet come.
 */
#include <string.h>

#include "internal.h"

static bool frozen(const struct vpmu *pmu)
{
	/* Streamlined freeze (Intel v4+): CTR_Frz stops every counter (SDM 18.2.4.1). */
	return pmu->caps.ctr_frz && (pmu->global_status & GLOBAL_STATUS_CTR_FRZ);
}

static bool event_available(const struct vpmu *pmu, enum pmu_arch_event ev)
{
	return ev >= 0 && ev < PMU_EV_NR && (pmu->cfg.available_events & BIT_ULL(ev));
}

/*
 * An enabled counter programmed with a known event that this configuration
 * does not offer: it counts nothing, and the glue may say so.
 */
static void unavailable(struct vpmu *pmu, enum pmu_arch_event ev)
{
	if (ev >= 0 && ev < PMU_EV_NR)
		pmu->unavailable_enabled |= 1u << ev;
}

/* The per-cycle condition of docs/intel-pmu.md 3.2 for c = 1 (counters.c). */
static bool cmask_cond(uint64_t ctl)
{
	unsigned int cmask = (ctl & EVTSEL_CMASK) >> EVTSEL_CMASK_SHIFT;

	if (!cmask)
		return true;
	return ctl & EVTSEL_INV ? 1 < cmask : 1 >= cmask;
}

static void program(struct vpmu *pmu, unsigned int idx, enum pmu_arch_event ev, bool os,
		    bool usr)
{
	if (os)
		pmu->counting[0][ev] |= BIT_ULL(idx);
	if (usr)
		pmu->counting[1][ev] |= BIT_ULL(idx);
}

static void reprogram_gp(struct vpmu *pmu, unsigned int i, bool off)
{
	uint64_t ctl = pmu->gp[i].ctl;
	enum pmu_arch_event ev;

	if (ctl & EVTSEL_INT)
		pmu->pmi_counters |= BIT_ULL(i);
	if (off || !(ctl & EVTSEL_EN))
		return;
	/* Without GLOBAL_CTRL (Intel v1, AMD v1) EN alone enables (docs/intel-pmu.md 3.1). */
	if (pmu->caps.global_ctrl && !(pmu->global_ctrl & BIT_ULL(i)))
		return;
	ev = pmu->vendor->decode_event(pmu, ctl);
	if (!event_available(pmu, ev)) {
		unavailable(pmu, ev);
		return;
	}
	if (!cmask_cond(ctl))
		return;
	/* A denied event counts nothing; the guest still programs and reads it. */
	if (!vpmu_filter_gp_allowed(pmu->filter, ctl))
		return;
	if (ctl & EVTSEL_EDGE) {
		if (pmu->gp[i].edge_prev)
			return;
		pmu->edge_counters |= BIT_ULL(i);
	}
	program(pmu, i, ev, ctl & EVTSEL_OS, ctl & EVTSEL_USR);
}

static void reprogram_fixed(struct vpmu *pmu, unsigned int i, bool off)
{
	uint64_t ctrl = pmu->fixed_ctr_ctrl;
	enum pmu_arch_event ev = pmu->vendor->fixed_event(i);

	if (ctrl & FIXED_CTRL_PMI(i))
		pmu->pmi_counters |= GLOBAL_CTRL_FIXED(i);
	if (off || !(pmu->global_ctrl & GLOBAL_CTRL_FIXED(i)))
		return;
	if (!event_available(pmu, ev)) {
		unavailable(pmu, ev);
		return;
	}
	if (!vpmu_filter_fixed_allowed(pmu->filter, i))
		return;
	program(pmu, PMC_IDX_FIXED + i, ev, ctrl & FIXED_CTRL_OS(i), ctrl & FIXED_CTRL_USR(i));
}

void vpmu_reprogram(struct vpmu *pmu)
{
	bool off = frozen(pmu);
	unsigned int i, lvl;
	int ev;

	memset(pmu->counting, 0, sizeof(pmu->counting));
	pmu->pmi_counters = 0;
	pmu->edge_counters = 0;
	pmu->unavailable_enabled = 0;
	for (i = 0; i < pmu->cfg.nr_gp; i++)
		reprogram_gp(pmu, i, off);
	for (i = 0; i < vpmu_fixed_span(&pmu->cfg); i++)
		if (vpmu_fixed_exists(&pmu->cfg, i))
			reprogram_fixed(pmu, i, off);
	for (lvl = 0; lvl < 2; lvl++) {
		pmu->events_at[lvl] = 0;
		for (ev = 0; ev < PMU_EV_NR; ev++)
			if (pmu->counting[lvl][ev])
				pmu->events_at[lvl] |= 1u << ev;
	}
}
