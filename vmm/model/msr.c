/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MSR dispatch over the vendor model's table (intel.c, amd.c): reads, and
 * writes as a check step and a commit step. The VMM checks a guest's
 * WRMSR, lets its counting sources count the instruction with the counters
 * as they were (hardware counts a WRMSR with the state before its write),
 * and only then commits it: nothing is ever undone.
 */
#include "internal.h"

static inline __attribute__((always_inline)) const struct vpmu_msr_range *
find_range(const struct vpmu_vendor *v, uint32_t msr)
{
	unsigned int i;

	for (i = 0; i < v->nr_msr_ranges; i++)
		if (msr - v->msr_ranges[i].first < v->msr_ranges[i].count)
			return &v->msr_ranges[i];
	return NULL;
}

/* The range row if `msr` exists for this configuration, else NULL. */
static inline __attribute__((always_inline)) const struct vpmu_msr_range *
lookup(const struct vpmu *pmu, uint32_t msr)
{
	const struct vpmu_msr_range *r = find_range(pmu->vendor, msr);

	if (!r || !r->exists || !r->exists(pmu, msr - r->first))
		return NULL;
	return r;
}

bool vpmu_msr_is_pmu(const struct vpmu_config *cfg, uint32_t msr)
{
	const struct vpmu_vendor *v = vpmu_vendor_of(cfg);

	return v && find_range(v, msr) != NULL;
}

unsigned int vpmu_msr_spans(const struct vpmu_config *cfg, const struct vpmu_msr_span **spans)
{
	const struct vpmu_vendor *v = vpmu_vendor_of(cfg);

	*spans = v ? v->msr_spans : NULL;
	return v ? v->nr_msr_spans : 0;
}

/* Row helpers of both vendors' tables. */
bool vpmu_has_gp(const struct vpmu *pmu, unsigned int idx)
{
	return idx < pmu->cfg.nr_gp;
}

/* A status-changing MSR that reads 0 (Intel 0x390/0x391, AMD's clear and set). */
int vpmu_rd_zero(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = 0;
	return VPMU_OK;
}

int vpmu_rd_gp_ctr(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->gp[idx].value & pmu->gp_mask;
	return VPMU_OK;
}

int vpmu_rd_gp_ctl(struct vpmu *pmu, unsigned int idx, uint64_t *data)
{
	*data = pmu->gp[idx].ctl;
	return VPMU_OK;
}

/*
 * RDPMC #GPs for an ECX that names no counter (SDM vol. 2B RDPMC; AMD64
 * APM vol. 3 RDPMC): a CPU without a PMU (version 0) has none, whatever
 * the vendor, so every ECX #GPs there.
 */
int vpmu_rdpmc(struct vpmu *pmu, uint32_t ecx, uint64_t *data)
{
	if (!pmu->cfg.version)
		return VPMU_GP;
	return pmu->vendor->rdpmc(pmu, ecx, data);
}

enum pmu_arch_event vpmu_gp_event(const struct vpmu *pmu, unsigned int idx)
{
	if (idx >= pmu->cfg.nr_gp)
		return PMU_EV_NONE;
	return pmu->vendor->decode_event(pmu, pmu->gp[idx].ctl);
}

bool vpmu_counters_set_from(const struct vpmu *pmu, unsigned int first_gp,
			    unsigned int first_fixed)
{
	unsigned int i;

	for (i = first_gp; i < pmu->cfg.nr_gp; i++)
		if (pmu->gp[i].value || pmu->gp[i].ctl)
			return true;
	for (i = first_fixed; i < vpmu_fixed_span(&pmu->cfg); i++)
		if (pmu->fixed[i].value || (pmu->fixed_ctr_ctrl >> (4 * i) & 0xf))
			return true;
	return false;
}

static uint64_t *reg_ptr(struct vpmu *pmu, size_t off)
{
	return (uint64_t *)((char *)pmu + off);
}

static uint64_t reg_val(const struct vpmu *pmu, size_t off)
{
	return *(const uint64_t *)((const char *)pmu + off);
}

int vpmu_rdmsr(struct vpmu *pmu, uint32_t msr, uint64_t *data)
{
	const struct vpmu_msr_range *r = lookup(pmu, msr);

	/* Every MSR that exists is readable; write-only ones read as 0. */
	if (!r)
		return VPMU_GP;
	if (!r->rd) {
		*data = *reg_ptr(pmu, r->reg);
		return VPMU_OK;
	}
	return r->rd(pmu, msr - r->first, data);
}

int vpmu_wrmsr_check(const struct vpmu *pmu, uint32_t msr, uint64_t data,
		     struct vpmu_checked_write *w)
{
	const struct vpmu_msr_range *r = lookup(pmu, msr);
	uint64_t rsvd;

	w->row = NULL;
	if (!r || (!r->wr && !r->writable))
		return VPMU_GP;
	w->idx = msr - r->first;
	if (r->chk) {
		if (r->chk(pmu, w->idx, data))
			return VPMU_GP;
	} else {
		rsvd = r->rsvd ? reg_val(pmu, r->rsvd) : r->rsvd_bits;
		if (data & rsvd)
			return VPMU_GP;
	}
	w->row = r;
	return VPMU_OK;
}

void vpmu_wrmsr_commit(struct vpmu *pmu, const struct vpmu_checked_write *w, uint64_t data)
{
	const struct vpmu_msr_range *r = w->row;

	if (!r)
		return;
	if (r->wr)
		r->wr(pmu, w->idx, data);
	else
		*reg_ptr(pmu, r->reg) = data;
	if (r->controls)
		vpmu_reprogram(pmu);
}

int vpmu_wrmsr(struct vpmu *pmu, uint32_t msr, uint64_t data)
{
	struct vpmu_checked_write w;
	int gp = vpmu_wrmsr_check(pmu, msr, data, &w);

	if (gp == VPMU_OK)
		vpmu_wrmsr_commit(pmu, &w, data);
	return gp;
}
