/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PEBS assist (docs/intel-pmu.md 4.2) against the guest's DS save area.
 *
 * The DS management area and the PEBS buffer are guest linear addresses
 * (docs/intel-pmu.md 4.1), translated by walking the guest's page tables at the assist.
 * Each range is walked once, page by page, into host pointers that
 * guest_mem_ptr() has checked lie in guest RAM; only when every page of
 * the record and of the index field is reachable is anything written, so
 * a bad pointer drops the whole record instead of leaving half of one.
 * What hardware does on a DS fault is UNCONFIRMED (docs/intel-pmu.md 8
 * item 7); dropping and counting is the choice here.
 */
#include <errno.h>
#include <string.h>

#include "pebs/pebs.h"

enum drop {
	DROP_NONE,
	DROP_NONCANONICAL,
	DROP_UNMAPPED,
	DROP_NOT_RAM,
};

/* A linear range as the host pointers of its pieces, one per page it touches. */
#define DS_MAX_PIECES	(PEBS_RECORD_MAX / 0x1000 + 2)
struct ds_range {
	uint8_t *host[DS_MAX_PIECES];
	size_t len[DS_MAX_PIECES];
	unsigned int n;
};

/*
 * Translates [la, la+len), len <= PEBS_RECORD_MAX, for `access`: DROP_NONE
 * with every piece in *r, or why the range is not guest RAM reachable so.
 */
static enum drop ds_map(const struct guest_mem *mem, const struct paging_state *ps,
			uint64_t la, uint64_t len, unsigned int access, struct ds_range *r)
{
	r->n = 0;
	if (len > PEBS_RECORD_MAX)	/* more pieces than *r holds: never a DS field or record */
		return DROP_UNMAPPED;
	if (la + (len - 1) < la)
		return DROP_NONCANONICAL;	/* wraps the linear address space */
	while (len) {
		uint64_t chunk = 0x1000 - (la & 0xfff), gpa;
		int e;

		if (chunk > len)
			chunk = len;
		e = pagewalk(mem, ps, la, access, &gpa);
		if (e == -EINVAL)
			return DROP_NONCANONICAL;
		if (e)
			return DROP_UNMAPPED;
		r->host[r->n] = guest_mem_ptr(mem, gpa, chunk);
		if (!r->host[r->n])
			return DROP_NOT_RAM;
		r->len[r->n++] = chunk;
		la += chunk;
		len -= chunk;
	}
	return DROP_NONE;
}

static void ds_store(const struct ds_range *r, const void *buf)
{
	const uint8_t *b = buf;
	unsigned int i;

	for (i = 0; i < r->n; b += r->len[i], i++)
		memcpy(r->host[i], b, r->len[i]);
}

static enum drop ds_read(const struct guest_mem *mem, const struct paging_state *ps,
			 uint64_t la, uint64_t *v)
{
	struct ds_range r;
	uint8_t *b = (uint8_t *)v;
	enum drop d = ds_map(mem, ps, la, sizeof(*v), 0, &r);
	unsigned int i;

	for (i = 0; d == DROP_NONE && i < r.n; b += r.len[i], i++)
		memcpy(b, r.host[i], r.len[i]);
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
	struct ds_range record_at, index_at;
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
	/* Both ranges reachable, or nothing written. */
	if ((d = ds_map(mem, ps, pmu->ds_area + DS_PEBS_INDEX, sizeof(index), PW_WRITE,
			&index_at)) ||
	    (d = ds_map(mem, ps, ds.index, size, PW_WRITE, &record_at))) {
		count_drop(stats, d);
		return PEBS_DROPPED;
	}
	index = ds.index + size;
	ds_store(&record_at, rec);
	ds_store(&index_at, &index);
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
