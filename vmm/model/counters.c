/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting, overflow and PMI requests (docs/intel-pmu.md 3.1-3.3, 3.6).
 *
 * Sources report event occurrences in batches. Each occurrence is treated
 * as one core cycle with c = 1 (docs/intel-pmu.md 3.2 notes), which gives CMASK, INV and
 * E a fixed meaning per counter programming:
 *   - CMASK = 0: every occurrence counts (INV is ignored);
 *   - CMASK = 1, INV = 0 or CMASK >= 2, INV = 1: the condition holds, every
 *     occurrence counts; CMASK >= 2, INV = 0 or CMASK = 1, INV = 1: nothing
 *     counts;
 *   - E: only the rising edge counts. The condition cannot change while the
 *     counter stays programmed, so that is one increment, at the first
 *     occurrence after the EVTSEL write (edge_prev remembers it).
 *
 * Which counters count what, at which level, is decided once per control
 * change (reprogram.c): counting walks only the counters of its event.
 */
#include "internal.h"

/* The counters counting `ev` at `cpl` (their global-index bits). */
static uint64_t level_counters(const struct vpmu *pmu, enum pmu_arch_event ev,
			       unsigned int cpl)
{
	return ev >= 0 && ev < PMU_EV_NR ? pmu->counting[vpmu_level(cpl)][ev] : 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static struct vpmu_pmc *pmc_at(struct vpmu *pmu, unsigned int idx, uint64_t *mask,
			       unsigned int *width)
{
	if (idx < PMC_IDX_FIXED) {
		*mask = pmu->gp_mask;
		*width = pmu->cfg.gp_width;
		return &pmu->gp[idx];
	}
	*mask = pmu->fixed_mask;
	*width = pmu->cfg.fixed_width;
	return &pmu->fixed[idx - PMC_IDX_FIXED];
}

/*
 * Occurrences until counter `idx` (which counts the event here) wraps. An
 * edge counter (EVTSEL.E) that has not yet seen its edge advances once.
 */
static uint64_t distance(const struct vpmu *pmu, unsigned int idx)
{
	const struct vpmu_pmc *pmc = idx < PMC_IDX_FIXED ? &pmu->gp[idx] :
				     &pmu->fixed[idx - PMC_IDX_FIXED];
	uint64_t mask = idx < PMC_IDX_FIXED ? pmu->gp_mask : pmu->fixed_mask;
	/* mask < 2^63 (the vendors cap widths at 63), so this cannot overflow. */
	uint64_t d = mask - pmc->value + 1;

	if ((pmu->edge_counters & BIT_ULL(idx)) && d != 1)
		return UINT64_MAX;
	return d;
}

/* Occurrences until the first counter in `ctrs` wraps, UINT64_MAX if none will. */
static uint64_t ctrs_distance(const struct vpmu *pmu, uint64_t ctrs)
{
	uint64_t d = UINT64_MAX;

	for (; ctrs; ctrs &= ctrs - 1)
		d = min_u64(d, distance(pmu, (unsigned int)__builtin_ctzll(ctrs)));
	return d;
}

/*
 * Adds `n` occurrences to counter `idx`. A wrap sets the counter's status
 * and overflow bits whatever INT/PMI says (docs/intel-pmu.md 3.3); the counter continues
 * from the wrap. Returns true if it wrapped.
 */
static bool advance(struct vpmu *pmu, unsigned int idx, uint64_t n)
{
	uint64_t mask;
	unsigned int width;
	struct vpmu_pmc *pmc = pmc_at(pmu, idx, &mask, &width);
	uint64_t d = mask - pmc->value + 1;

	if (pmu->edge_counters & BIT_ULL(idx)) {
		/* The rising edge counts once; the counter then stops (reprogram). */
		pmc->edge_prev = true;
		n = 1;
	}
	if (n < d) {
		pmc->value += n;
		return false;
	}
	pmc->value = (n - d) & mask;
	pmu->nr_overflows += 1 + ((n - d) >> width);
	pmu->global_status |= BIT_ULL(idx);
	pmu->overflows |= BIT_ULL(idx);
	/* docs/intel-pmu.md 4.2 step 1: the wrap arms PEBS; the assist comes from vmm/pebs. */
	pmu->pebs_armed |= pmu->pebs_enable & BIT_ULL(idx);
	return true;
}

/* Advances every counter in `ctrs` by `n` at one point in time; one PMI for all. */
static void advance_all(struct vpmu *pmu, uint64_t ctrs, uint64_t n)
{
	bool pmi = false, edges = (ctrs & pmu->edge_counters) != 0;
	uint64_t c;

	for (c = ctrs; c; c &= c - 1) {
		unsigned int idx = (unsigned int)__builtin_ctzll(c);

		if (advance(pmu, idx, n))
			pmi |= (pmu->pmi_counters & BIT_ULL(idx)) != 0;
	}
	if (edges)
		vpmu_reprogram(pmu);
	/* Simultaneous overflows raise a single PMI (SDM 18-39). */
	if (pmi)
		vpmu_request_pmi(pmu, 0);
}

void vpmu_count(struct vpmu *pmu, enum pmu_arch_event ev, uint64_t n, unsigned int cpl)
{
	uint64_t ctrs = level_counters(pmu, ev, cpl);

	if (!n || !ctrs)
		return;
	/*
	 * With freeze-on-PMI the counters stop when the PMI is requested, not
	 * when it is delivered (docs/intel-pmu.md 3.6), so occurrences after that one are
	 * not counted anywhere.
	 */
	if (pmu->debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI)
		n = min_u64(n, ctrs_distance(pmu, ctrs & pmu->pmi_counters));
	advance_all(pmu, ctrs, n);
}

void vpmu_count_each(struct vpmu *pmu, uint32_t events, unsigned int cpl)
{
	const uint64_t *by_event = pmu->counting[vpmu_level(cpl)];
	uint64_t ctrs = 0;

	events &= pmu->events_at[vpmu_level(cpl)];
	for (; events; events &= events - 1)
		ctrs |= by_event[__builtin_ctz(events)];
	/* Each counter counts one event, so each moves by one. */
	if (ctrs)
		advance_all(pmu, ctrs, 1);
}

void vpmu_request_pmi(struct vpmu *pmu, uint64_t status)
{
	pmu->global_status |= status;
	pmu->pmi_pending = true;
	pmu->nr_pmis_requested++;
	/* Freeze on PMI (docs/intel-pmu.md 3.6) is the vendor's. */
	if (pmu->vendor->freeze_on_pmi && pmu->vendor->freeze_on_pmi(pmu))
		vpmu_reprogram(pmu);
}

/* Every bit that the clear MSR (Intel 0x390) can clear is a bit that can be set. */
int vpmu_set_global_status_host(struct vpmu *pmu, uint64_t data)
{
	if (!pmu->caps.global_ctrl || (data & pmu->global_ovf_ctrl_rsvd))
		return VPMU_GP;
	pmu->global_status = data;
	vpmu_reprogram(pmu);
	return VPMU_OK;
}

uint64_t vpmu_events_to_overflow(const struct vpmu *pmu, enum pmu_arch_event ev,
				 unsigned int cpl)
{
	return ctrs_distance(pmu, level_counters(pmu, ev, cpl));
}

bool vpmu_counts_event(const struct vpmu *pmu, enum pmu_arch_event ev)
{
	return ev >= 0 && ev < PMU_EV_NR && (vpmu_counted_events(pmu) & (1u << ev));
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
