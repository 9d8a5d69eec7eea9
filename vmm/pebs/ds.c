/*
 * The PEBS assist (docs/intel-pmu.md 4.2) against the guest's DS save area.
 *
 * The DS management area and the PEBS buffer are guest linear addresses
 * (docs/intel-pmu.md 4.1), translated by walking the guest's page tables at the assist.
 * Every range is translated and checked page by page before anything is
 * written, so a bad pointer drops the whole record instead of leaving half
 * of one; the copies themselves go through guest_linear_read/write, which
 * can only reach guest RAM.  What hardware does on a DS fault is
 * UNCONFIRMED (docs/intel-pmu.md 8 item 7); dropping and counting is the choice here.
 */
#include <errno.h>

#include "pebs/pebs.h"

enum drop {
	DROP_NONE,
	DROP_NONCANONICAL,
	DROP_UNMAPPED,
	DROP_NOT_RAM,
};

/* Whether [la, la+len) is guest RAM reachable for `access`, and if not, why. */
static enum drop ds_check(const struct guest_mem *mem, const struct paging_state *ps,
			  uint64_t la, uint64_t len, unsigned int access)
{
	if (la + (len - 1) < la)
		return DROP_NONCANONICAL;	/* wraps the linear address space */
	while (len) {
		uint64_t chunk = 0x1000 - (la & 0xfff), gpa;
		int r;

		if (chunk > len)
			chunk = len;
		r = pagewalk(mem, ps, la, access, &gpa);
		if (r == -EINVAL)
			return DROP_NONCANONICAL;
		if (r)
			return DROP_UNMAPPED;
		if (!guest_mem_ptr(mem, gpa, chunk))
			return DROP_NOT_RAM;
		la += chunk;
		len -= chunk;
	}
	return DROP_NONE;
}

static enum drop ds_read(const struct guest_mem *mem, const struct paging_state *ps,
			 uint64_t la, uint64_t *v)
{
	enum drop d = ds_check(mem, ps, la, sizeof(*v), 0);

	if (d == DROP_NONE && guest_linear_read(mem, ps, la, v, sizeof(*v)))
		d = DROP_UNMAPPED;
	return d;
}

static void count_drop(struct pebs_stats *stats, enum drop d)
{
	if (d == DROP_NONCANONICAL)
		stats->drop_noncanonical++;
	else if (d == DROP_UNMAPPED)
		stats->drop_unmapped++;
	else
		stats->drop_not_ram++;
}

/* Offset of a counter's reset value in the DS area (docs/intel-pmu.md 4.1). */
static uint64_t reset_slot(unsigned int fmt, unsigned int idx)
{
	if (idx < PMC_IDX_FIXED)
		return DS_PEBS_RESET_GP + 8ULL * idx;
	return (fmt >= 5 ? DS_PEBS_RESET_FIXED_FMT5 : DS_PEBS_RESET_FIXED_FMT4) +
	       8ULL * (idx - PMC_IDX_FIXED);
}

struct ds_pebs {
	uint64_t base, index, abs_max, threshold;
	uint64_t reset[64];		/* by global counter index, armed ones only */
};

static enum drop ds_load(const struct vpmu *pmu, const struct guest_mem *mem,
			 const struct paging_state *ps, uint64_t armed, struct ds_pebs *ds)
{
	uint64_t area = pmu->ds_area;
	enum drop d;
	unsigned int idx;

	if ((d = ds_read(mem, ps, area + DS_PEBS_BASE, &ds->base)) ||
	    (d = ds_read(mem, ps, area + DS_PEBS_INDEX, &ds->index)) ||
	    (d = ds_read(mem, ps, area + DS_PEBS_ABS_MAX, &ds->abs_max)) ||
	    (d = ds_read(mem, ps, area + DS_PEBS_THRESHOLD, &ds->threshold)))
		return d;
	for (idx = 0; idx < 64; idx++)
		if ((armed & BIT_ULL(idx)) &&
		    (d = ds_read(mem, ps, area + reset_slot(pmu->cfg.pebs_format, idx),
				 &ds->reset[idx])))
			return d;
	return DROP_NONE;
}

enum pebs_result pebs_assist(struct vpmu *pmu, const struct guest_mem *mem,
			     const struct paging_state *ps, const struct pebs_state *st,
			     struct pebs_stats *stats)
{
	uint8_t rec[PEBS_RECORD_MAX];
	struct ds_pebs ds;
	uint64_t armed = vpmu_take_pebs_armed(pmu), groups, index;
	unsigned int idx;
	enum drop d;
	size_t size;

	if (!armed)
		return PEBS_NONE;
	stats->assists++;
	d = ds_load(pmu, mem, ps, armed, &ds);
	if (d) {
		count_drop(stats, d);
		return PEBS_DROPPED;
	}
	/* docs/intel-pmu.md 4.2 step 3: "the PEBS will be skipped entirely", no signal. */
	if (ds.index >= ds.abs_max) {
		stats->skipped_full++;
		return PEBS_FULL;
	}
	groups = pebs_record_groups(pmu, armed);
	size = pebs_record_build(pmu->cfg.pebs_format, groups, st, armed, rec);
	if ((d = ds_check(mem, ps, pmu->ds_area + DS_PEBS_INDEX, 8, PW_WRITE)) ||
	    (d = ds_check(mem, ps, ds.index, size, PW_WRITE)) ||
	    guest_linear_write(mem, ps, ds.index, rec, size)) {
		count_drop(stats, d ? d : DROP_UNMAPPED);
		return PEBS_DROPPED;
	}
	index = ds.index + size;
	if (guest_linear_write(mem, ps, pmu->ds_area + DS_PEBS_INDEX, &index, sizeof(index))) {
		count_drop(stats, DROP_UNMAPPED);
		return PEBS_DROPPED;
	}
	stats->records++;

	/* Step 5: only the counters this record is for are reloaded. */
	for (idx = 0; idx < 64; idx++)
		if (armed & BIT_ULL(idx))
			vpmu_pebs_reload(pmu, idx, ds.reset[idx]);

	/* Step 6: "reaches the threshold". */
	if (index >= ds.threshold) {
		stats->threshold_pmis++;
		vpmu_request_pmi(pmu, GLOBAL_STATUS_BUFFER_OVF);
	}
	return PEBS_WRITTEN;
}

bool pebs_wants_xmm(const struct vpmu *pmu)
{
	return pmu->pebs_armed && pmu->cfg.pebs_format >= 4 &&
	       (pebs_record_groups(pmu, pmu->pebs_armed) & PEBS_DATACFG_XMMS);
}
