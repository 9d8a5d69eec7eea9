/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The emulation engine, counting by block (emulate.h). With instructions
 * counted in batches, the emulator reports each block it enters, not each
 * instruction (EMU_BY_BLOCK): a block's instructions but its last retire
 * together when the next block starts (they are no branches: a block ends
 * at one), its last as one instruction would, taken or not by where the
 * next block starts. What must not run in the emulator ends a block there:
 * an exit at it. A block in which a counter would wrap before its last
 * instruction is cut (an exit for the stretch) to end at the instruction
 * that makes it wrap, so that its PMI comes before the next one, as
 * stepping gives it. Design: docs/counting.md, "The emulation engine".
 */
#include <string.h>

#include "exact/emulate.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"

/* Whether guest memory at `host` still holds `len` bytes as `copy` does (len > 0). */
static inline bool emulate_same_bytes(const uint8_t *host, const uint8_t *copy, uint32_t len)
{
	uint64_t a, b;
	uint32_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&a, host + i, 8);
		memcpy(&b, copy + i, 8);
		if (a != b)
			return false;
	}
	for (; i < len; i++)
		if (host[i] != copy[i])
			return false;
	return true;
}

/* emulate_watch_page(), where the page is not watched yet. */
static inline void emulate_watched(struct exact_emulate *m, uint64_t la)
{
	uint64_t page = la & ~(EMULATE_PAGE - 1);

	if (m->sp->pages[(page >> 12) & (EMULATE_CODE_PAGES - 1)].la != page)
		emulate_watch_page(m, la);
}

void emulate_blocks_forget(struct emulate_space *sp)
{
	for (unsigned int i = 0; i < EMULATE_BLOCKS; i++)
		sp->blocks[i].la = ~0ULL;
}

static struct emulate_block *emulate_block_slot(struct emulate_space *sp, uint64_t la)
{
	return &sp->blocks[(la ^ (la >> 12)) & (EMULATE_BLOCKS - 1)];
}

/*
 * The block of `len` bytes at `la`: from the cache while guest memory holds
 * its bytes, else decoded (a block that crosses a run's end is decoded
 * each time).
 */
static struct emulate_block *emulate_block_get(struct exact_emulate *m, uint64_t la, uint32_t len)
{
	struct emulate_block *b = emulate_block_slot(m->sp, la);
	uint64_t avail = 0, rip = la;
	const uint8_t *host;

	if (b->la == la && b->len == len && emulate_same_bytes(b->host, b->bytes, len)) {
		emulate_watched(m, la);
		emulate_watched(m, la + len - 1);
		return b;
	}
	host = emulate_host(m, la, &avail);
	if (!host || avail < len || len > EMULATE_BLOCK_BYTES)
		b = &m->cross_block;
	b->la = ~0ULL;
	b->n = 0;
	b->stop = ~0u;
	b->fpu = ~0u;
	b->odd = false;
	b->events = 0;
	memset(b->count, 0, sizeof(b->count));
	while (rip < la + len) {
		const struct emulate_decode *d = emulate_decode(m, rip);
		bool last = d && rip + d->insn.len >= la + len;

		if (!d || (d->insn.flags & INSN_SYSTEM) ||
		    ((d->insn.flags & INSN_LOCKED) && m->vcpu->vm->nr_vcpus > 1)) {
			b->stop = b->n;		/* not run here */
			b->stop_rip = rip;
			return b;
		}
		/* A branch inside a block: the emulator's blocks end at branches, so never seen. */
		b->odd |= !last && (d->insn.flags & (INSN_BRANCH | INSN_REP));
		if ((d->insn.flags & INSN_FPU) && b->fpu == ~0u)
			b->fpu = b->n;
		if (last) {
			b->last = *d;
			b->last_rip = rip;
		} else {
			b->events |= d->events[0];
			for (uint32_t ev = d->events[0]; ev; ev &= ev - 1)
				b->count[__builtin_ctz(ev)]++;
		}
		b->n++;
		rip += d->insn.len;
	}
	b->odd |= !b->n;
	if (b != &m->cross_block) {
		b->la = la;
		b->len = len;
		b->host = host;
		memcpy(b->bytes, host, len);
	}
	return b;
}

/*
 * The block run is over, the next instruction at `next`: counted, in the
 * batch (its instructions before the last reach no limit: emulate_block()).
 * False if a PMI is now due.
 */
static bool emulate_block_retire(struct exact_emulate *m, uint64_t next)
{
	const struct emulate_block *b = m->pend;
	const struct emulate_decode *d = &b->last;
	const struct exact_state *x = m->vcpu->pmu->exact;
	enum retire how = RETIRE_YES;
	uint32_t last, events;
	bool full = false;

	m->pend = NULL;
	m->rep_more = false;
	/* A REP string instruction going on: it retires once, at its end. */
	if ((d->insn.flags & INSN_REP) && next == b->last_rip) {
		m->rep_more = true;
		m->batch.insns += b->n - 1;
		m->stretch_insns += b->n - 1;
		m->batch.events |= b->events & x->events;
		for (uint32_t ev = b->events & x->events; ev; ev &= ev - 1)
			m->batch.count[__builtin_ctz(ev)] += b->count[__builtin_ctz(ev)];
		return true;
	}
	if (d->insn.flags & INSN_BRANCH)
		how = retire_completed(&d->insn, b->last_rip, next);
	last = d->events[how == RETIRE_TAKEN] & x->events;
	events = (b->events & x->events) | last;
	m->batch.insns += b->n;
	m->stretch_insns += b->n;
	m->batch.last_rip = b->last_rip;
	m->batch.events |= events;
	for (; events; events &= events - 1) {
		unsigned int ev = (unsigned int)__builtin_ctz(events);

		m->batch.count[ev] += b->count[ev] + ((last >> ev) & 1);
		full |= m->batch.count[ev] >= m->limit[ev];
	}
	return !full || emulate_flush(m);
}

/*
 * The block run stopped at `rip` inside it (a fault): the instructions
 * before it retired, or the whole block where `rip` is past it.
 */
static bool emulate_block_cut(struct exact_emulate *m, uint64_t rip)
{
	const struct emulate_block *b = m->pend;
	const struct exact_state *x = m->vcpu->pmu->exact;
	uint64_t at = b->la;

	if (rip < b->la || rip >= b->la + b->len)
		return emulate_block_retire(m, rip);
	m->pend = NULL;
	m->rep_more = false;
	while (at < rip) {
		const struct emulate_decode *d = emulate_decode(m, at);
		uint32_t events;

		if (!d)
			break;
		events = d->events[0] & x->events;
		m->batch.insns++;
		m->stretch_insns++;
		m->batch.events |= events;
		for (; events; events &= events - 1)
			m->batch.count[__builtin_ctz(events)]++;
		at += d->insn.len;
	}
	return true;
}

/*
 * The block would make a counter wrap before its last instruction: the
 * instruction after the one that makes it wrap, where the block is cut.
 */
static uint64_t emulate_block_wrap(struct exact_emulate *m, const struct emulate_block *b)
{
	const struct exact_state *x = m->vcpu->pmu->exact;
	uint64_t count[PMU_EV_NR], rip = b->la;

	memcpy(count, m->batch.count, sizeof(count));
	for (uint32_t i = 0; i + 1 < b->n; i++) {
		const struct emulate_decode *d = emulate_decode(m, rip);
		bool wraps = false;

		if (!d)
			break;
		for (uint32_t ev = d->events[0] & x->events; ev; ev &= ev - 1)
			wraps |= ++count[__builtin_ctz(ev)] >= m->limit[__builtin_ctz(ev)];
		rip += d->insn.len;
		if (wraps)
			return rip;
	}
	return b->last_rip;
}

/* The linear address of the block's instruction `k`. */
static uint64_t emulate_block_nth(struct exact_emulate *m, const struct emulate_block *b, uint32_t k)
{
	uint64_t rip = b->la;

	for (uint32_t i = 0; i < k; i++) {
		const struct emulate_decode *d = emulate_decode(m, rip);

		if (!d)
			break;
		rip += d->insn.len;
	}
	return rip;
}

/* An exit for the while (emulate_block_wrap()); gone when the stretch ends. */
static bool emulate_cut_at(struct exact_emulate *m, uint64_t la, uint64_t from)
{
	if (m->nr_cuts == EMULATE_CUTS || emu_exit_add(m->sp->emu, la, from))
		return false;
	m->cuts[m->nr_cuts].la = la;
	m->cuts[m->nr_cuts++].from = from;
	return true;
}

/* emulate.h; `la` was such an exit. */
bool emulate_cut_drop(struct exact_emulate *m, uint64_t la)
{
	for (unsigned int i = 0; i < m->nr_cuts; i++) {
		if (m->cuts[i].la != la)
			continue;
		emu_exit_del(m->sp->emu, la, m->cuts[i].from);
		m->cuts[i] = m->cuts[--m->nr_cuts];
		return true;
	}
	return false;
}

void emulate_cuts_drop(struct exact_emulate *m)
{
	while (m->nr_cuts)
		emulate_cut_drop(m, m->cuts[0].la);
}

/* emu_ops.block (emulate.h): the block before it counted, this one let run, cut, or not. */
bool emulate_block(void *opaque, uint64_t la, uint32_t len)
{
	struct exact_emulate *m = opaque;
	struct exact_state *x = m->vcpu->pmu->exact;
	struct exact_emulate_stats *st = &x->emu_stats;
	struct emulate_block *b;
	bool rep_more;

	if (m->pend && !emulate_block_retire(m, la))
		return emulate_stop(m, EMULATE_STOP_PMI);
	rep_more = m->rep_more;
	b = emulate_block_get(m, la, len);
	/* Never true where emulate_may_run() lets it run: if it were, KVM would step it. */
	if (b->odd || (b->stop == 0 && emulate_may_run(m, la)))
		return emulate_stop(m, EMULATE_STOP_DECODE);
	if (b->stop == 0)
		return false;
	if (b->stop != ~0u) {
		/* It ends there from now on (or the stretch ends there, for one not decoded). */
		if (emu_exit_add(m->sp->emu, b->stop_rip, la))
			return emulate_stop(m, EMULATE_STOP_DECODE);
		st->exits++;
		m->restart = true;
		return false;
	}
	if (b->fpu != ~0u && !m->fpu_loaded && !emulate_fpu_load(m)) {
		if (b->fpu == 0)
			return emulate_stop(m, EMULATE_STOP_SYSTEM);
		/* The x87/SSE state cannot come in for now (CR0.TS...): KVM runs that instruction. */
		if (!emulate_cut_at(m, emulate_block_nth(m, b, b->fpu), la))
			return emulate_stop(m, EMULATE_STOP_SYSTEM);
		st->exits++;
		m->restart = true;
		return false;
	}
	for (uint32_t ev = b->events & x->events; ev; ev &= ev - 1) {
		unsigned int e = (unsigned int)__builtin_ctz(ev);

		if (m->batch.count[e] + b->count[e] < m->limit[e])
			continue;
		if (!emulate_cut_at(m, emulate_block_wrap(m, b), la))
			return emulate_stop(m, EMULATE_STOP_DECODE);
		st->cuts++;
		m->restart = true;
		return false;
	}
	if (!emulate_in_slice(m, b->n, rep_more))
		return false;
	st->blocks++;
	m->pend = b;
	return true;
}

/* emulate.h: an instruction in EMU_BY_INSN, a block or its part before `rip` in EMU_BY_BLOCK. */
bool emulate_run_ended(struct exact_emulate *m, uint64_t rip)
{
	bool rep_more = m->have_prev && (m->prev->insn.flags & INSN_REP) && rip == m->prev_rip;
	bool ok = true;

	if (m->pend)
		return emulate_block_cut(m, rip);
	if (m->have_prev && rip != m->prev_rip && !rep_more)
		ok = emulate_retire_prev(m, rip);
	m->have_prev = false;
	return ok;
}
