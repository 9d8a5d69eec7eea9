/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PEBS records, byte for byte (docs/intel-pmu.md 4.4): the format-3 record and the
 * adaptive (format 4/5) groups Basic, MemInfo, GPR, XMM and LBR.
 *
 * MemInfo is written as zeros: this model does not see data addresses,
 * cache sources or latencies, and 0 is the "unknown" data source Linux
 * decodes (ds.c pebs_data_source[0]) - nothing is invented. The LBR group
 * is written too, as zeros: the model keeps no branch records (it drops
 * IA32_DEBUGCTL.LBR), and a CPU whose LBRs were never enabled records
 * empty entries, but the group's size and the record's group field are
 * what the guest walks the buffer by (kvm-unit-tests' pmu_pebs checks both).
 */
#include <string.h>

#include "pebs/pebs.h"

uint64_t pebs_record_groups(const struct vpmu *pmu, uint64_t applicable)
{
	bool adaptive = false;
	unsigned int idx;

	if (pmu->cfg.pebs_format < 4 || !pmu->cfg.pebs_baseline)
		return 0;
	/* One record covers every applicable counter; any Adaptive_Record asks for the groups. */
	for (idx = 0; idx < 64; idx++)
		if ((applicable & BIT_ULL(idx)) && vpmu_pebs_adaptive(pmu, idx))
			adaptive = true;
	return adaptive ? pmu->pebs_data_cfg & PEBS_DATACFG_VALID : 0;
}

static uint8_t *put(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));	/* x86 is little-endian, as is the guest */
	return p + sizeof(v);
}

/* Legacy records keep the pre-x86-64 order: RAX RBX RCX RDX RSI RDI RBP RSP. */
static const enum pebs_gpr legacy_order[] = {
	PEBS_RAX, PEBS_RBX, PEBS_RCX, PEBS_RDX, PEBS_RSI, PEBS_RDI, PEBS_RBP, PEBS_RSP,
	PEBS_R8, PEBS_R9, PEBS_R10, PEBS_R11, PEBS_R12, PEBS_R13, PEBS_R14, PEBS_R15,
};

static size_t build_fmt3(const struct pebs_state *st, uint64_t applicable, uint8_t *buf)
{
	uint8_t *p = buf;
	unsigned int i;

	p = put(p, st->rflags);
	p = put(p, st->rip);
	for (i = 0; i < PEBS_NR_GPRS; i++)
		p = put(p, st->gpr[legacy_order[i]]);
	p = put(p, applicable);		/* 0x90 */
	p = put(p, 0);			/* 0x98 data linear address: not seen */
	p = put(p, 0);			/* 0xa0 data source: unknown */
	p = put(p, 0);			/* 0xa8 load latency */
	p = put(p, st->eventing_ip);	/* 0xb0 */
	p = put(p, 0);			/* 0xb8 TSX tuning: no TSX */
	p = put(p, st->tsc);		/* 0xc0 */
	return (size_t)(p - buf);
}

static size_t adaptive_size(uint64_t groups)
{
	size_t size = PEBS_BASIC_SIZE;

	if (groups & PEBS_DATACFG_MEMINFO)
		size += PEBS_MEMINFO_SIZE;
	if (groups & PEBS_DATACFG_GPRS)
		size += PEBS_GPR_SIZE;
	if (groups & PEBS_DATACFG_XMMS)
		size += PEBS_XMM_SIZE;
	if (groups & PEBS_DATACFG_LBRS)
		size += PEBS_LBR_ENTRY_SIZE * pebs_lbr_entries(groups);
	return size;
}

/* Groups back to back in the order Basic, MemInfo, GPR, XMM, LBR (docs/intel-pmu.md 4.4). */
static size_t build_adaptive(uint64_t groups, const struct pebs_state *st,
			     uint64_t applicable, uint8_t *buf)
{
	size_t size = adaptive_size(groups);
	uint8_t *p = buf;
	unsigned int i;

	/* [31:0] the groups used, [47:32] retire latency (not enumerated): 0, [63:48] size. */
	p = put(p, (groups & 0xffffffffULL) | (uint64_t)size << 48);
	p = put(p, st->eventing_ip);
	p = put(p, applicable);
	p = put(p, st->tsc);
	if (groups & PEBS_DATACFG_MEMINFO) {
		memset(p, 0, PEBS_MEMINFO_SIZE);
		p += PEBS_MEMINFO_SIZE;
	}
	if (groups & PEBS_DATACFG_GPRS) {
		p = put(p, st->rflags);
		p = put(p, st->rip);
		for (i = 0; i < PEBS_NR_GPRS; i++)
			p = put(p, st->gpr[i]);
	}
	if (groups & PEBS_DATACFG_XMMS) {
		memcpy(p, st->xmm, PEBS_XMM_SIZE);
		p += PEBS_XMM_SIZE;
	}
	if (groups & PEBS_DATACFG_LBRS) {
		memset(p, 0, PEBS_LBR_ENTRY_SIZE * pebs_lbr_entries(groups));
		p += PEBS_LBR_ENTRY_SIZE * pebs_lbr_entries(groups);
	}
	return (size_t)(p - buf);
}

size_t pebs_record_build(unsigned int fmt, uint64_t groups, const struct pebs_state *st,
			 uint64_t applicable, uint8_t *buf)
{
	if (fmt < 4)
		return build_fmt3(st, applicable, buf);
	return build_adaptive(groups, st, applicable, buf);
}
