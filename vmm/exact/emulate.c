/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The emulation engine (engine.h): counted code runs in an x86 emulator in
 * pmuvm's process (emu/emu.h) against guest memory, each instruction
 * counted as it retires there; what the emulator must not run goes to KVM
 * through the stepping engine (step.c), one instruction at a time, and the
 * emulator goes on after it. Design: docs/counting.md, "The emulation
 * engine".
 *
 * A stretch runs 64-bit code at CPL0 (or CPL3 where the host steps CPL3)
 * and hands over, before it runs:
 *   - an instruction that needs more than the general registers, RFLAGS,
 *     memory and the x87/MMX/SSE state (INSN_SYSTEM: I/O, MSRs, CRs, CPUID,
 *     RDTSC, RDPMC, HLT, far branches and CPL changes, segment loads, AVX,
 *     CLI/STI/POPF); the x87/SSE state comes from KVM for the first
 *     instruction that needs it (emulate_fpu_load) and goes back after;
 *     RDTSC and RDPMC are answered in place (answer.c) and the next
 *     stretch starts;
 *   - with other vCPUs, a LOCK-prefixed instruction (atomic in KVM only);
 *   - an access outside the mapped pages, or an exception: KVM runs it,
 *     and the guest takes its own #PF or fault, or MMIO exits as ever;
 *   - the instruction after one that made a PMI due: the PMI is
 *     delivered before it (zero skid, as stepping);
 *   - the end of a slice at which KVM holds an interrupt the vCPU could
 *     take, or soon will (slice.c): the step that follows delivers it.
 * Where stretches keep ending after a few instructions (code dense with
 * MSR accesses), stepping is cheaper: the engine steps for a while.
 * The emulator sees guest memory at linear addresses (mem/va_map.h): the
 * mapping is a TLB, built again where a CPU's would be flushed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "emu/emu.h"
#include "exact/engine.h"
#include "exact/internal.h"
#include "log.h"
#include "machine/vm.h"
#include "mem/va_map.h"
#include "pmu/listen.h"
#include "pmu/vcpu_pmu.h"

/*
 * Every EMULATE_SLICE_NS (the clock read every EMULATE_SLICE_CHECK
 * instructions) a stretch looks at what KVM holds for the vCPU (slice.c):
 * an interrupt it could deliver now, the LAPIC timer's deadline passed, or
 * pmuvm's kick end it, and the step after it delivers them; else it goes
 * on, for EMULATE_STRETCH_MAX_NS at most (anything KVM holds unseen waits
 * no longer). Interrupts are taken that late at most after they arrive.
 */
#define EMULATE_SLICE_NS	200000ULL
#define EMULATE_STRETCH_MAX_NS	10000000ULL
#define EMULATE_SLICE_CHECK	4096u
/*
 * A slice that ends inside a REP string instruction ends after it, within
 * this: KVM would step the rest an iteration at a time, an exit each, far
 * slower in guest time than the emulator's iterations.
 */
#define EMULATE_REP_GRACE_NS	1000000000ULL
/*
 * A stretch shorter than this costs more than stepping its instructions
 * (the state goes to the emulator and back): after one, the next
 * instructions are stepped, twice as many after each short one in a row,
 * up to EMULATE_BACKOFF_MAX.
 */
#define EMULATE_SHORT		16
#define EMULATE_BACKOFF_MAX	256u
/*
 * Regions the emulator maps per address space at once (Unicorn's cost of
 * mapping one grows with those it has), after scattered pages that follow
 * each other in linear address are mirrored into one (emulate_mirror).
 * Where a space has more (a kernel's, with its stacks between guard
 * pages), the emulator maps those its stretches reach, as they fault, and
 * unmaps the least recently mapped or entered (emulate_work_add()). A walk stops
 * at EMULATE_MAX_RUNS runs of contiguous RAM: such a space is not walked
 * whole, its pages are walked one by one as they fault (lazy).
 */
#define EMULATE_MAX_REGIONS	256
#define EMULATE_MAX_RUNS	8192
#define EMULATE_DECODES		4096	/* direct-mapped, a power of two */
#define EMULATE_SPACES		4	/* address spaces kept mapped, least recently used replaced */
/*
 * Code pages watched for changes, direct-mapped: a page that loses its slot
 * loses its translations, so the slots must hold the working set of a
 * kernel's code as well as a program's (docs/counting.md, "The emulation
 * engine", code that changes). Their copies are allocated untouched: only
 * slots used take memory.
 */
#define EMULATE_CODE_PAGES	4096
#define EMULATE_PAGE		4096ULL

/* A page the emulator ran code from; its bytes then are the slot's in page_bytes. */
struct emulate_code_page {
	uint64_t la;		/* ~0: empty */
	const uint8_t *host;
};

/* A decoded instruction at a linear address, and the bytes it was decoded from. */
struct emulate_decode {
	uint64_t rip;		/* ~0: empty */
	const uint8_t *host;	/* where its bytes are while the mapping stands */
	uint64_t word, mask;	/* its first 8 bytes, masked to its length, where 8 can be read */
	bool by_word;		/* ...else compared as bytes */
	uint8_t bytes[INSN_MAX_LEN];
	struct insn insn;
	uint32_t events[2];	/* retire_events() when it completes: not taken, taken */
};

/*
 * Pages of guest RAM that follow each other in a guest's linear address
 * space but not in RAM, mapped once more from the RAM's memfd, in linear
 * order: one region for the emulator where they would be one each.
 */
struct emulate_mirror {
	struct va_run region;		/* host: the mirror */
	struct va_run *pieces;		/* the runs of RAM it maps, in order */
	unsigned int nr_pieces;
};

/*
 * One guest address space (paging state and CPL) with its own emulator,
 * mapping (a TLB) and translations, so that switching between processes
 * (perf and its workload) maps nothing again.
 */
struct emulate_space {
	struct emu *emu;
	struct paging_state ps;
	bool user;
	bool valid;			/* the mapping stands (no walk needed) */
	bool lazy;			/* too many runs to walk whole: pages walked as they fault */
	bool code_stale;		/* code may have changed unseen: check the pages */
	uint64_t used;			/* exact_emulate.uses when last run */
	struct va_run *runs;		/* the walk's [EMULATE_MAX_RUNS] */
	struct va_run *regions;		/* the space as regions [EMULATE_MAX_RUNS] */
	int nr_regions;			/* or the build's error */
	struct va_run *prev_regions;	/* the last build's, to see what changed */
	/* More regions than EMULATE_MAX_REGIONS (or lazy): those the emulator maps now, sorted. */
	bool demand;
	struct va_run *work;		/* [EMULATE_MAX_REGIONS] */
	uint64_t *work_used;		/* when each was last touched (exact_emulate.uses) */
	unsigned int nr_work;
	struct emulate_mirror *mirrors;	/* [EMULATE_MAX_RUNS], those of the regions */
	unsigned int nr_mirrors;
	struct emulate_mirror *retired;	/* the last build's, freed after the emulator let go */
	unsigned int nr_retired;
	struct emulate_code_page *pages;	/* [EMULATE_CODE_PAGES] */
	uint8_t *page_bytes;			/* [EMULATE_CODE_PAGES][EMULATE_PAGE]: changed since, its translations go */
	struct emulate_decode decodes[EMULATE_DECODES];
};

struct exact_emulate {
	struct emu *emu;
	struct vcpu *vcpu;
	struct emulate_space *spaces[EMULATE_SPACES];	/* made as needed */
	struct emulate_space *sp;	/* the one the stretch runs in */
	uint64_t uses;			/* a clock for the least recently used space */
	unsigned int map_patches;	/* pmuvm's patches of guest code when last looked at */
	struct emulate_decode cross;	/* an instruction that crosses a run's end, not cached */

	/* The stretch in progress. */
	bool have_prev;
	uint64_t prev_rip;
	const struct emulate_decode *prev;
	uint32_t budget;		/* instructions to the next look at the clock */
	uint64_t start_ns, deadline_ns;	/* when it began; the slice's end */
	uint64_t timer_at_ns;		/* a one-shot LAPIC timer's expiry foreseen (slice.c) */
	bool irq_on;			/* RFLAGS.IF: interrupts can be taken (fixed in a stretch) */
	uint64_t cycles_done;		/* of stretch_insns, those whose cycles are counted */
	enum emulate_stop stop;
	const struct emulate_decode *stop_at;	/* EMULATE_STOP_SYSTEM: the instruction */
	uint64_t stretch_insns;
	bool batching;			/* instructions counted in batches */
	struct exact_batch batch;
	uint64_t limit[PMU_EV_NR];	/* a batch's count of an event at most (a counter wraps there) */
	unsigned int hold;		/* KVM steps this many instructions first (a PMI, IF set) */
	unsigned int backoff;		/* ...or after short stretches (EMULATE_SHORT) */
	bool immediate;			/* this KVM_RUN returns at once (kvm_run.immediate_exit) */
	uint64_t cr0, cr4;		/* the stretch's: whether x87/SSE instructions may run */
	bool fpu_loaded;		/* the emulator holds the vCPU's x87/SSE state, in xsave */
	struct kvm_xsave xsave;
};

static const char *const emulate_stop_names[EMULATE_STOP_NR] = {
	[EMULATE_STOP_SYSTEM] = "system",
	[EMULATE_STOP_LOCKED] = "locked",
	[EMULATE_STOP_FAULT] = "fault",
	[EMULATE_STOP_PMI] = "pmi",
	[EMULATE_STOP_SLICE] = "slice",
	[EMULATE_STOP_DECODE] = "decode",
};

const char *exact_emulate_stop_name(enum emulate_stop s)
{
	return s < EMULATE_STOP_NR ? emulate_stop_names[s] : "?";
}

/* The index of the run among `runs` (sorted by linear address) that holds `la`, or -1. */
static int emulate_run_at(const struct va_run *runs, int n, uint64_t la)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (la < runs[mid].la)
			hi = mid - 1;
		else if (la - runs[mid].la >= runs[mid].len)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

/* The host bytes at linear `la`, and how many follow in the same run. */
static const uint8_t *emulate_host(const struct exact_emulate *m, uint64_t la, uint64_t *avail)
{
	const struct emulate_space *sp = m->sp;
	const struct va_run *runs = sp->lazy ? sp->work : sp->regions;
	int i = emulate_run_at(runs, sp->lazy ? (int)sp->nr_work : sp->nr_regions, la);
	const struct va_run *r;

	if (i < 0)
		return NULL;
	r = &runs[i];
	*avail = r->len - (la - r->la);
	return r->host + (la - r->la);
}

/*
 * The page of `rip` runs in the emulator: its bytes now, to see later
 * whether it changed behind the emulator's back. A page that loses its
 * slot loses its translations, so none is ever left unwatched.
 */
static void emulate_watch_page(struct exact_emulate *m, uint64_t rip)
{
	uint64_t la = rip & ~(EMULATE_PAGE - 1), avail;
	unsigned int slot = (la >> 12) & (EMULATE_CODE_PAGES - 1);
	struct emulate_code_page *p = &m->sp->pages[slot];
	const uint8_t *host;

	if (p->la == la)
		return;
	host = emulate_host(m, la, &avail);
	if (!host || avail < EMULATE_PAGE)
		return;
	if (p->la != ~0ULL) {
		emu_flush_code(m->sp->emu, p->la, EMULATE_PAGE);
		m->vcpu->pmu->exact->emu_stats.code_evictions++;
	}
	p->la = la;
	p->host = host;
	memcpy(m->sp->page_bytes + slot * EMULATE_PAGE, host, EMULATE_PAGE);
}

/* Code the guest may have written unseen (in KVM, on another vCPU, pmuvm's patches): stale translations dropped. */
static void emulate_check_code(struct exact_emulate *m, struct exact_emulate_stats *st)
{
	for (unsigned int i = 0; i < EMULATE_CODE_PAGES; i++) {
		struct emulate_code_page *p = &m->sp->pages[i];
		uint8_t *bytes = m->sp->page_bytes + i * EMULATE_PAGE;

		if (p->la == ~0ULL || !memcmp(p->host, bytes, EMULATE_PAGE))
			continue;
		emu_flush_code(m->sp->emu, p->la, EMULATE_PAGE);
		memcpy(bytes, p->host, EMULATE_PAGE);
		st->code_flushes++;
	}
}

/* The mapping changed: every watched page's host may have. Their translations go too. */
static void emulate_forget_pages(struct exact_emulate *m)
{
	for (unsigned int i = 0; i < EMULATE_CODE_PAGES; i++) {
		if (m->sp->pages[i].la != ~0ULL)
			emu_flush_code(m->sp->emu, m->sp->pages[i].la, EMULATE_PAGE);
		m->sp->pages[i].la = ~0ULL;
	}
	memset(m->sp->decodes, 0xff, sizeof(m->sp->decodes));
}

/* Whether guest memory still holds the bytes `d` was decoded from. */
static inline bool emulate_decode_fresh(const struct emulate_decode *d)
{
	uint64_t w;

	if (!d->by_word)
		return !memcmp(d->host, d->bytes, d->insn.len);
	memcpy(&w, d->host, sizeof(w));
	return (w & d->mask) == d->word;
}

/*
 * The instruction at `rip` as the emulator is about to run it: from the
 * cache while guest memory holds the bytes it was decoded from. NULL if it
 * does not decode (or crosses into a page not mapped): KVM runs it.
 */
static const struct emulate_decode *emulate_decode(struct exact_emulate *m, uint64_t rip)
{
	struct emulate_decode *d = &m->sp->decodes[(rip ^ (rip >> 12)) & (EMULATE_DECODES - 1)];
	uint8_t bytes[INSN_MAX_LEN];
	struct insn in;
	const uint8_t *host;
	uint64_t avail, n;

	if (d->rip == rip && emulate_decode_fresh(d))
		return d;
	host = emulate_host(m, rip, &avail);
	if (!host)
		return NULL;
	n = avail < INSN_MAX_LEN ? avail : INSN_MAX_LEN;
	memcpy(bytes, host, n);
	if (n < INSN_MAX_LEN) {
		uint64_t more;
		const uint8_t *next = emulate_host(m, rip + n, &more);

		if (next) {
			more = INSN_MAX_LEN - n < more ? INSN_MAX_LEN - n : more;
			memcpy(bytes + n, next, more);
			n += more;
		}
	}
	d->rip = ~0ULL;
	if (insn_decode(bytes, n, INSN_MODE_64, &in))
		return NULL;
	if (in.len > avail)
		d = &m->cross;	/* it crosses into another page: decoded each time, never cached */
	d->insn = in;
	d->events[0] = retire_events(&in, RETIRE_YES);
	d->events[1] = retire_events(&in, RETIRE_TAKEN);
	if (d == &m->cross)
		return d;
	d->rip = rip;
	d->host = host;
	memcpy(d->bytes, host, d->insn.len);
	d->by_word = avail >= 8 && d->insn.len <= 8;
	if (d->by_word) {
		d->mask = d->insn.len == 8 ? ~0ULL : (1ULL << (8 * d->insn.len)) - 1;
		memcpy(&d->word, host, sizeof(d->word));
		d->word &= d->mask;
	}
	emulate_watch_page(m, rip);
	return d;
}

/* The batch counted (exact_retire_batch()), the limits anew: false if a PMI or PEBS assist is now due. */
static bool emulate_flush(struct exact_emulate *m)
{
	struct vcpu *vcpu = m->vcpu;
	const struct exact_state *x = vcpu->pmu->exact;
	const struct vpmu *pmu = &vcpu->pmu->model;

	if (m->batch.insns)
		exact_retire_batch(vcpu, &m->batch);
	for (uint32_t ev = m->batch.events; ev; ev &= ev - 1)
		m->batch.count[__builtin_ctz(ev)] = 0;
	m->batch.events = 0;
	m->batch.insns = 0;
	for (uint32_t ev = x->events & EXACT_EVENTS; ev; ev &= ev - 1)
		m->limit[__builtin_ctz(ev)] =
			vpmu_events_to_overflow(pmu, (enum pmu_arch_event)__builtin_ctz(ev), x->cpl);
	return !pmu->pmi_pending && !pmu->pebs_armed;
}

/*
 * The previous instruction retired, the next being at `rip`: counted.
 * False if a PMI or PEBS assist is now due. Counted in a batch, which ends
 * at the instruction that makes a counter wrap; one at a time while a
 * listener hears of each (pmu/listen.h) or with --cycles model.
 */
static bool emulate_retire_prev(struct exact_emulate *m, uint64_t rip)
{
	struct vcpu *vcpu = m->vcpu;
	struct exact_state *x = vcpu->pmu->exact;
	const struct vpmu *pmu = &vcpu->pmu->model;
	const struct emulate_decode *d = m->prev;
	enum retire how = (d->insn.flags & INSN_BRANCH) ?
			  retire_completed(&d->insn, m->prev_rip, rip) : RETIRE_YES;
	bool full = false;

	m->have_prev = false;
	m->stretch_insns++;
	if (m->batching) {
		uint32_t events = d->events[how == RETIRE_TAKEN] & x->events;

		m->batch.insns++;
		m->batch.last_rip = m->prev_rip;
		m->batch.events |= events;
		for (; events; events &= events - 1) {
			unsigned int ev = (unsigned int)__builtin_ctz(events);

			full |= ++m->batch.count[ev] >= m->limit[ev];
		}
		return !full || emulate_flush(m);
	}
	x->insn = d->insn;
	x->rip = m->prev_rip;
	if (vcpu->pmu->step.wanted) {
		x->rax_before = x->rdx_before = 0;
		exact_tell_step(vcpu, true, true);
	}
	exact_retire(vcpu, how);
	return !pmu->pmi_pending && !pmu->pebs_armed;
}

static uint64_t emulate_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool emulate_stop(struct exact_emulate *m, enum emulate_stop why)
{
	m->stop = why;
	return false;
}

/*
 * The vCPU's x87, MMX and SSE state into the emulator, for the first
 * instruction of a stretch that uses it (INSN_FPU); emulate_fpu_store()
 * gives it back as the stretch ends. Not where that instruction faults on
 * the state's controls (SDM vol. 3A 2.5: CR0.EM and CR0.TS; SSE needs
 * CR4.OSFXSR): KVM runs those.
 */
static bool emulate_fpu_load(struct exact_emulate *m)
{
	if ((m->cr0 & (X86_CR0_EM | X86_CR0_TS)) || !(m->cr4 & X86_CR4_OSFXSR) ||
	    ioctl(m->vcpu->fd, KVM_GET_XSAVE, &m->xsave) < 0 ||
	    emu_set_fpu(m->sp->emu, (const uint8_t *)m->xsave.region))
		return false;
	m->fpu_loaded = true;
	m->vcpu->pmu->exact->emu_stats.fpu_loads++;
	return true;
}

/*
 * Back to KVM: the legacy region of its XSAVE image, the x87 and SSE
 * components marked in use (XSTATE_BV), AVX's upper halves as they were
 * (legacy SSE instructions leave them, SDM vol. 1 14.8).
 */
static void emulate_fpu_store(struct vcpu *vcpu, struct exact_emulate *m)
{
	uint8_t *img = (uint8_t *)m->xsave.region;
	uint64_t bv;

	if (!m->fpu_loaded)
		return;
	m->fpu_loaded = false;
	if (emu_get_fpu(m->sp->emu, img) == 0) {
		memcpy(&bv, img + X86_XSAVE_XSTATE_BV, sizeof(bv));
		bv |= X86_XFEATURE_FP | X86_XFEATURE_SSE;
		memcpy(img + X86_XSAVE_XSTATE_BV, &bv, sizeof(bv));
		if (ioctl(vcpu->fd, KVM_SET_XSAVE, &m->xsave) == 0)
			return;
	}
	pr_err("vCPU %d: KVM_SET_XSAVE of the emulator's x87/SSE state: %s", vcpu->id,
	       strerror(errno));
	vm_stop(vcpu->vm, VM_STOP_KVM_ERROR);
}

/*
 * Emulated time is no guest time: the stretch's instructions take --cpi
 * cycles each, counted as it goes (at each slice's end), so that a cycles
 * counter wraps within a slice of where it would. False if a PMI is due.
 */
static bool emulate_count_cycles(struct exact_emulate *m)
{
	struct vcpu *vcpu = m->vcpu;

	if (vcpu->vm->cfg->cycles == CYCLES_CLOCK && m->stretch_insns > m->cycles_done)
		exact_count_model_cycles(vcpu, m->stretch_insns - m->cycles_done);
	m->cycles_done = m->stretch_insns;
	return !vcpu->pmu->model.pmi_pending;
}

/* The slice is over at `now`: true if the stretch goes on (exact_slice_due()). */
static bool emulate_slice_goes_on(struct exact_emulate *m, uint64_t now)
{
	uint64_t wait = EMULATE_SLICE_NS;

	if (now - m->start_ns >= EMULATE_STRETCH_MAX_NS || !emulate_count_cycles(m) ||
	    exact_slice_due(m->vcpu, m->irq_on, now, &wait, &m->timer_at_ns))
		return false;
	m->deadline_ns = now + wait;
	m->vcpu->pmu->exact->emu_stats.slices_extended++;
	return true;
}

/* emu_ops.insn: the previous instruction counted, this one let run or not. */
static bool emulate_insn(void *opaque, uint64_t rip)
{
	struct exact_emulate *m = opaque;
	const struct emulate_decode *in;
	/* A REP string instruction comes back for each iteration: it retires once, at its end. */
	bool rep_more = m->have_prev && (m->prev->insn.flags & INSN_REP) && rip == m->prev_rip;

	if (m->have_prev && !rep_more && !emulate_retire_prev(m, rip))
		return emulate_stop(m, EMULATE_STOP_PMI);
	in = emulate_decode(m, rip);
	if (!in)
		return emulate_stop(m, EMULATE_STOP_DECODE);
	m->stop_at = in;
	if ((in->insn.flags & INSN_SYSTEM) ||
	    ((in->insn.flags & INSN_FPU) && !m->fpu_loaded && !emulate_fpu_load(m)))
		return emulate_stop(m, EMULATE_STOP_SYSTEM);
	if ((in->insn.flags & INSN_LOCKED) && m->vcpu->vm->nr_vcpus > 1)
		return emulate_stop(m, EMULATE_STOP_LOCKED);
	if (!m->budget--) {
		uint64_t now = emulate_now_ns();

		/* Inside a REP string instruction: checked at each iteration. */
		m->budget = EMULATE_SLICE_CHECK;
		if (now >= m->deadline_ns && rep_more && now < m->deadline_ns + EMULATE_REP_GRACE_NS)
			m->budget = 0;
		else if (now >= m->deadline_ns && !emulate_slice_goes_on(m, now))
			return emulate_stop(m, m->vcpu->pmu->model.pmi_pending ? EMULATE_STOP_PMI :
							       EMULATE_STOP_SLICE);
	}
	if (!m->have_prev) {
		m->prev = in;
		m->prev_rip = rip;
		m->have_prev = true;
	}
	return true;
}

static const struct emu_ops emulate_ops = {
	.insn = emulate_insn,
};

/*
 * Whether the coming instructions may run in the emulator: 64-bit code at
 * CPL0, or CPL3 where the host steps CPL3 (what the emulator hands over
 * must be stepped), no instruction in flight in KVM, no event KVM is about
 * to deliver, no TF of the guest's own.
 */
static bool emulate_may_enter(struct vcpu *vcpu, struct exact_emulate *m,
			      const struct kvm_regs *r, const struct kvm_sregs *s)
{
	const struct exact_state *x = vcpu->pmu->exact;
	/* A REP string instruction stepped an iteration: the emulator runs the rest. */
	bool rep_more = x->pending && (x->insn.flags & INSN_REP) &&
			!(x->insn.flags & INSN_SYSTEM) && r->rip == x->rip;
	struct kvm_vcpu_events ev;
	unsigned int cpl = sregs_cpl(s);

	if (m->hold && !rep_more) {
		m->hold--;
		return false;
	}
	if ((x->pending && !rep_more) || vcpu_exit_is_access(vcpu) ||
	    insn_mode_of(s) != INSN_MODE_64 ||
	    (r->rflags & X86_RFLAGS_TF))
		return false;
	if (cpl == 1 || cpl == 2 || (cpl == 3 && !vcpu->vm->pmu->caps.user_step))
		return false;
	if (ioctl(vcpu->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		return false;
	return !ev.exception.injected && !ev.exception.pending && !ev.interrupt.injected &&
	       !ev.nmi.injected && !ev.nmi.pending;
}

static bool emulate_same_paging(const struct paging_state *a, const struct paging_state *b)
{
	return a->cr0 == b->cr0 && a->cr3 == b->cr3 && a->cr4 == b->cr4 && a->efer == b->efer;
}

/*
 * An access the emulator faulted on: if the guest's tables now map it to
 * RAM (a page mapped or its rights raised since the mapping was built),
 * the mapping is built again. MMIO (the LAPIC, devices) keeps it.
 */
static void emulate_fault_seen(struct exact_emulate *m, struct vcpu *vcpu,
			       const struct kvm_sregs *s)
{
	struct paging_state ps = sregs_paging(s);
	uint64_t la, gpa;

	if (!emu_fault_addr(m->sp->emu, &la))
		return;		/* an exception: KVM raises it */
	if (pagewalk(&vcpu->vm->mem, &ps, la, sregs_cpl(s) == 3 ? PW_USER : 0, &gpa) == 0 &&
	    guest_mem_ptr(&vcpu->vm->mem, gpa, 1))
		m->sp->valid = false;
}

static void emulate_mirror_free(struct emulate_mirror *mi)
{
	munmap(mi->region.host, mi->region.len);
	free(mi->pieces);
	mi->pieces = NULL;
}

/* `nr` runs from `runs`, contiguous in linear address, mapped once more in that order: 0 or -errno. */
static int emulate_mirror_make(const struct vm *vm, const struct va_run *runs,
			       unsigned int nr, struct emulate_mirror *mi)
{
	uint64_t len = runs[nr - 1].la + runs[nr - 1].len - runs[0].la;
	uint8_t *host;

	mi->pieces = malloc(nr * sizeof(*runs));
	if (!mi->pieces)
		return -ENOMEM;
	host = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (host == MAP_FAILED) {
		free(mi->pieces);
		mi->pieces = NULL;
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < nr; i++) {
		if (mmap(host + (runs[i].la - runs[0].la), runs[i].len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, vm->ram_fd, runs[i].host - vm->ram) == MAP_FAILED) {
			munmap(host, len);
			free(mi->pieces);
			mi->pieces = NULL;
			return -ENOMEM;
		}
	}
	memcpy(mi->pieces, runs, nr * sizeof(*runs));
	mi->nr_pieces = nr;
	mi->region = (struct va_run){ runs[0].la, len, host, runs[0].prot };
	return 0;
}

/* The mirror among `old` that maps exactly these runs, or -1. */
static int emulate_mirror_find(const struct emulate_mirror *old, unsigned int nr_old,
			       const struct va_run *runs, unsigned int nr)
{
	for (unsigned int i = 0; i < nr_old; i++)
		if (old[i].pieces && old[i].nr_pieces == nr &&
		    !memcmp(old[i].pieces, runs, nr * sizeof(*runs)))
			return (int)i;
	return -1;
}

/*
 * The walk's `n` runs (sp->runs) as the emulator's regions: runs that
 * follow each other in linear address with the same rights become one
 * mirror, kept from the last build where it maps the same runs. The last
 * build's other mirrors go to sp->retired, freed once the emulator has
 * unmapped them. The number of regions, or -ENOMEM.
 */
static int emulate_regions(struct emulate_space *sp, const struct vm *vm, unsigned int n)
{
	struct emulate_mirror *old = sp->mirrors, *mirrors;
	unsigned int nr_old = sp->nr_mirrors, nr_mirrors = 0, i, j;
	int nr = 0;

	mirrors = calloc(EMULATE_MAX_RUNS, sizeof(*mirrors));
	if (!mirrors)
		return -ENOMEM;
	for (i = 0; i < n && nr >= 0; i = j) {
		for (j = i + 1; vm->ram_fd >= 0 && j < n && sp->runs[j].prot == sp->runs[i].prot &&
				sp->runs[j].la == sp->runs[j - 1].la + sp->runs[j - 1].len; j++)
			;
		if (j == i + 1) {
			sp->regions[nr++] = sp->runs[i];
		} else {
			int k = emulate_mirror_find(old, nr_old, &sp->runs[i], j - i);

			if (k >= 0) {
				mirrors[nr_mirrors] = old[k];
				old[k].pieces = NULL;	/* moved, not freed */
			} else if (emulate_mirror_make(vm, &sp->runs[i], j - i, &mirrors[nr_mirrors])) {
				nr = -ENOMEM;
				break;
			}
			sp->regions[nr++] = mirrors[nr_mirrors++].region;
		}
	}
	sp->mirrors = mirrors;
	sp->nr_mirrors = nr_mirrors;
	sp->retired = old;
	sp->nr_retired = nr_old;
	return nr;
}

/* Whether `r` is one of the space's regions now, the same in every field. */
static bool emulate_region_now(const struct emulate_space *sp, const struct va_run *r)
{
	int i = emulate_run_at(sp->regions, sp->nr_regions, r->la);

	return i >= 0 && !memcmp(&sp->regions[i], r, sizeof(*r));
}

/* After a build: the regions the emulator mapped that still are regions stay mapped. */
static void emulate_work_keep(struct emulate_space *sp)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < sp->nr_work; i++) {
		if (!emulate_region_now(sp, &sp->work[i]))
			continue;
		sp->work[n] = sp->work[i];
		sp->work_used[n++] = sp->work_used[i];
	}
	sp->nr_work = n;
}

/*
 * A space of more regions than the emulator maps: the region at `la` was
 * touched now (a stretch starts there). True if the emulator maps it.
 */
static bool emulate_work_touch(struct exact_emulate *m, uint64_t la)
{
	struct emulate_space *sp = m->sp;
	int w = emulate_run_at(sp->work, (int)sp->nr_work, la);

	if (w >= 0)
		sp->work_used[w] = ++m->uses;
	return w >= 0;
}

/*
 * ...and the region at `la`, not mapped, faulted: it is mapped now, in
 * place of the least recently touched one where all are taken. False if
 * `la` is in no region or in a mapped one (a fault of its own), or the
 * emulator refused it.
 */
static bool emulate_work_add(struct exact_emulate *m, uint64_t la)
{
	struct emulate_space *sp = m->sp;
	int r = emulate_run_at(sp->regions, sp->nr_regions, la);
	unsigned int at = 0, old = 0;
	struct va_run run;

	if (emulate_work_touch(m, la))
		return false;
	if (sp->lazy) {
		if (va_map_page(&m->vcpu->vm->mem, &sp->ps, sp->user, la, &run))
			return false;
	} else if (r >= 0) {
		run = sp->regions[r];
	} else {
		return false;
	}
	if (sp->nr_work == EMULATE_MAX_REGIONS) {
		for (unsigned int i = 1; i < sp->nr_work; i++)
			if (sp->work_used[i] < sp->work_used[old])
				old = i;
		sp->nr_work--;
		memmove(&sp->work[old], &sp->work[old + 1], (sp->nr_work - old) * sizeof(*sp->work));
		memmove(&sp->work_used[old], &sp->work_used[old + 1],
			(sp->nr_work - old) * sizeof(*sp->work_used));
	}
	while (at < sp->nr_work && sp->work[at].la < la)
		at++;
	memmove(&sp->work[at + 1], &sp->work[at], (sp->nr_work - at) * sizeof(*sp->work));
	memmove(&sp->work_used[at + 1], &sp->work_used[at], (sp->nr_work - at) * sizeof(*sp->work_used));
	sp->work[at] = run;
	sp->work_used[at] = ++m->uses;
	sp->nr_work++;
	m->vcpu->pmu->exact->emu_stats.demand_maps++;
	return emu_map(sp->emu, sp->work, sp->nr_work) >= 0;
}

static void emulate_space_free(struct emulate_space *sp)
{
	if (!sp)
		return;
	emu_close(sp->emu);
	for (unsigned int i = 0; i < sp->nr_mirrors; i++)
		if (sp->mirrors[i].pieces)
			emulate_mirror_free(&sp->mirrors[i]);
	for (unsigned int i = 0; i < sp->nr_retired; i++)
		if (sp->retired[i].pieces)
			emulate_mirror_free(&sp->retired[i]);
	free(sp->mirrors);
	free(sp->retired);
	free(sp->runs);
	free(sp->regions);
	free(sp->prev_regions);
	free(sp->work);
	free(sp->work_used);
	free(sp->pages);
	free(sp->page_bytes);
	free(sp);
}

static struct emulate_space *emulate_space_new(void)
{
	struct emulate_space *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	sp->runs = calloc(EMULATE_MAX_RUNS, sizeof(*sp->runs));
	sp->regions = calloc(EMULATE_MAX_RUNS, sizeof(*sp->regions));
	sp->prev_regions = calloc(EMULATE_MAX_RUNS, sizeof(*sp->prev_regions));
	sp->work = calloc(EMULATE_MAX_REGIONS, sizeof(*sp->work));
	sp->work_used = calloc(EMULATE_MAX_REGIONS, sizeof(*sp->work_used));
	sp->mirrors = calloc(EMULATE_MAX_RUNS, sizeof(*sp->mirrors));
	sp->pages = malloc(EMULATE_CODE_PAGES * sizeof(*sp->pages));
	sp->page_bytes = calloc(EMULATE_CODE_PAGES, EMULATE_PAGE);
	if (!sp->runs || !sp->regions || !sp->prev_regions || !sp->work || !sp->work_used || !sp->mirrors ||
	    !sp->pages || !sp->page_bytes || emu_open(&sp->emu)) {
		emulate_space_free(sp);
		return NULL;
	}
	for (unsigned int i = 0; i < EMULATE_CODE_PAGES; i++)
		sp->pages[i].la = ~0ULL;
	memset(sp->decodes, 0xff, sizeof(sp->decodes));
	return sp;
}

/* The space for this paging state and CPL: kept, or the least recently used one reused. */
static struct emulate_space *emulate_space_for(struct exact_emulate *m,
					       const struct paging_state *ps, bool user)
{
	struct emulate_space *lru = NULL;
	unsigned int i;

	for (i = 0; i < EMULATE_SPACES && m->spaces[i]; i++) {
		struct emulate_space *sp = m->spaces[i];

		if (sp->user == user && emulate_same_paging(&sp->ps, ps))
			return sp;
		if (!lru || sp->used < lru->used)
			lru = sp;
	}
	if (i < EMULATE_SPACES && (m->spaces[i] = emulate_space_new()))
		lru = m->spaces[i];
	else if (lru)
		m->vcpu->pmu->exact->emu_stats.space_switches++;
	if (!lru)
		return NULL;
	/* Another address space: its walk makes the mapping anew (emulate_map()). */
	lru->ps = *ps;
	lru->user = user;
	lru->valid = false;
	lru->lazy = false;
	return lru;
}

/* Every space's mapping and code may be stale: the guest ran where pmuvm did not see it. */
static void emulate_stale_all(struct exact_emulate *m, bool code)
{
	for (unsigned int i = 0; i < EMULATE_SPACES && m->spaces[i]; i++) {
		m->spaces[i]->valid = false;
		m->spaces[i]->code_stale |= code;
	}
}

/*
 * A lazy space's mapping built again: each page the emulator maps is
 * walked anew and stays where it maps the same memory with the same
 * rights. Decodes and watched pages start again, since pages unmapped
 * before may now be other memory.
 */
static void emulate_lazy_rebuild(struct exact_emulate *m, const struct vcpu *vcpu)
{
	struct emulate_space *sp = m->sp;
	unsigned int n = 0;
	struct va_run run;

	for (unsigned int i = 0; i < sp->nr_work; i++) {
		if (va_map_page(&vcpu->vm->mem, &sp->ps, sp->user, sp->work[i].la, &run) ||
		    memcmp(&run, &sp->work[i], sizeof(run)))
			continue;
		sp->work[n] = sp->work[i];
		sp->work_used[n++] = sp->work_used[i];
	}
	sp->nr_work = n;
	emu_map(sp->emu, sp->work, sp->nr_work);
	emulate_forget_pages(m);
}

/*
 * The emulator's view of guest memory (m->sp), built again where a CPU's
 * TLB would be flushed: the walk is cheap, and only runs that changed are
 * mapped again.
 */
static bool emulate_map(struct exact_emulate *m, struct vcpu *vcpu, const struct kvm_sregs *s)
{
	struct exact_emulate_stats *st = &vcpu->pmu->exact->emu_stats;
	struct paging_state ps = sregs_paging(s);
	struct emulate_space *sp;
	struct va_run *prev;
	int changed, n, nr_prev;

	if (m->map_patches != vcpu->vm->mem.nr_patches) {
		m->map_patches = vcpu->vm->mem.nr_patches;
		emulate_stale_all(m, true);
	}
	sp = m->sp = emulate_space_for(m, &ps, sregs_cpl(s) == 3);
	if (!sp)
		return false;
	sp->used = ++m->uses;
	if (sp->code_stale) {
		emulate_check_code(m, st);
		sp->code_stale = false;
	}
	if (sp->valid)
		return sp->lazy || sp->nr_regions > 0;
	sp->valid = true;
	st->map_builds++;
	if (sp->lazy) {
		emulate_lazy_rebuild(m, vcpu);
		return true;
	}
	prev = sp->regions;
	nr_prev = sp->nr_regions;
	sp->regions = sp->prev_regions;
	sp->prev_regions = prev;
	n = va_map_build(&vcpu->vm->mem, &ps, sp->user, sp->runs, EMULATE_MAX_RUNS);
	/* Walking it whole again after every unseen run would cost more than it saves. */
	sp->lazy = n == -E2BIG;
	if (sp->lazy) {
		n = 0;
		sp->nr_work = 0;
	}
	sp->nr_regions = n > 0 || sp->lazy ? emulate_regions(sp, vcpu->vm, (unsigned int)n) : n;
	sp->demand = sp->lazy || sp->nr_regions > EMULATE_MAX_REGIONS;
	if (sp->demand)
		emulate_work_keep(sp);
	else
		sp->nr_work = 0;
	if (sp->nr_regions <= 0 && !sp->lazy)
		changed = 1;
	else if (sp->demand)
		changed = emu_map(sp->emu, sp->work, sp->nr_work) < 0 ? -ENOSPC :
			  nr_prev != sp->nr_regions ||
			  memcmp(prev, sp->regions, (size_t)nr_prev * sizeof(*prev));
	else
		changed = emu_map(sp->emu, sp->regions, (unsigned int)sp->nr_regions);
	if (changed < 0)
		sp->nr_regions = changed;
	/* The same linear page may now be other memory: decodes and watched pages start again. */
	if (changed)
		emulate_forget_pages(m);
	if (sp->nr_regions <= 0 && !sp->lazy) {
		st->map_failures++;
		emu_map(sp->emu, NULL, 0);
	}
	/* Unicorn has let go of the mirrors no region uses. */
	for (unsigned int i = 0; i < sp->nr_retired; i++)
		if (sp->retired[i].pieces)
			emulate_mirror_free(&sp->retired[i]);
	free(sp->retired);
	sp->retired = NULL;
	sp->nr_retired = 0;
	return sp->lazy || sp->nr_regions > 0;
}

/* The engine's state, made on first use: NULL (said once) where Unicorn cannot run. */
static struct exact_emulate *emulate_get(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct exact_emulate *m = x->emulate;

	if (m)
		return m;
	m = calloc(1, sizeof(*m));
	if (m)
		m->spaces[0] = emulate_space_new();
	if (!m || !m->spaces[0]) {
		free(m);
		pr_warn("vCPU %d: the emulation engine cannot start (Unicorn: out of memory, or no "
			"x86-64 CPU); counted code is single-stepped", vcpu->id);
		x->engine = &exact_step_engine;
		return NULL;
	}
	m->vcpu = vcpu;
	x->emulate = m;
	return m;
}

/*
 * The RDTSC or RDPMC the stretch stopped at, answered and retired here
 * (answer.c), not stepped: true if it was. Not while a listener hears of
 * each instruction stepped (pmu/listen.h): it would not hear of this one.
 */
static bool emulate_answer(struct vcpu *vcpu, struct exact_emulate *m, struct kvm_regs *r,
			   const struct kvm_sregs *s)
{
	struct exact_state *x = vcpu->pmu->exact;
	const struct emulate_decode *d = m->stop_at;
	uint64_t rip = r->rip;

	if (m->stop != EMULATE_STOP_SYSTEM || !d || vcpu->pmu->step.wanted ||
	    !(d->insn.flags & (INSN_RDTSC | INSN_RDPMC)) || !exact_answer(vcpu, &d->insn, r, s))
		return false;
	x->insn = d->insn;
	x->rip = rip;
	exact_retire(vcpu, RETIRE_YES);
	/* Its cycles, as an emulated instruction's (--cycles model: exact_retire()'s). */
	if (vcpu->vm->cfg->cycles == CYCLES_CLOCK)
		exact_count_model_cycles(vcpu, 1);
	if (d->insn.flags & INSN_RDPMC)
		x->emu_stats.rdpmc_answered++;
	else
		x->emu_stats.rdtsc_answered++;
	return true;
}

/*
 * Runs a stretch in the emulator from the vCPU's RIP, its instructions
 * counted, its registers written back. False if it could not start there.
 * *answered: it ended at an RDTSC or RDPMC answered here (emulate_answer()).
 */
static bool emulate_stretch(struct vcpu *vcpu, struct exact_emulate *m, bool *answered)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct exact_emulate_stats *st = &x->emu_stats;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	enum emu_end end;
	uint64_t la, last_la = ~0ULL;
	bool got;

	*answered = false;
	if (vcpu_state(vcpu, &r, &s) || !emulate_may_enter(vcpu, m, r, s) ||
	    !emulate_map(m, vcpu, s) || emu_set_state(m->sp->emu, r, s->fs.base, s->gs.base))
		return false;
	x->cpl = sregs_cpl(s);
	x->cs = s->cs.selector;
	m->cr0 = s->cr0;
	m->cr4 = s->cr4;
	m->have_prev = false;
	m->stop_at = NULL;
	m->batching = vcpu->vm->cfg->cycles != CYCLES_MODEL && !vcpu->pmu->step.wanted;
	emulate_flush(m);	/* the limits */
	m->budget = EMULATE_SLICE_CHECK;
	m->start_ns = emulate_now_ns();
	m->deadline_ns = m->start_ns + EMULATE_SLICE_NS;
	m->timer_at_ns = 0;
	m->irq_on = r->rflags & X86_RFLAGS_IF;
	m->stretch_insns = 0;
	m->cycles_done = 0;
	if (m->sp->demand)
		emulate_work_touch(m, r->rip);
	end = emu_run(m->sp->emu, &emulate_ops, m);
	while (end == EMU_END_FAULT && emu_fault_addr(m->sp->emu, &la)) {
		/*
		 * Fetching the next instruction faulted (RIP moved on): the
		 * previous one completed, and retires.
		 */
		if (m->have_prev && emu_rip(m->sp->emu) != m->prev_rip &&
		    !emulate_retire_prev(m, emu_rip(m->sp->emu))) {
			end = EMU_END_STOPPED;
			m->stop = EMULATE_STOP_PMI;
			break;
		}
		/* A region not mapped yet: mapped, and the faulting instruction runs again. */
		if (!m->sp->demand || la == last_la || !emulate_work_add(m, la))
			break;
		last_la = la;
		m->have_prev = false;
		end = emu_run(m->sp->emu, &emulate_ops, m);
	}
	emulate_flush(m);	/* short of every limit: nothing wraps */
	if (end == EMU_END_FAULT) {
		m->stop = EMULATE_STOP_FAULT;
		emulate_fault_seen(m, vcpu, s);
	}
	emulate_fpu_store(vcpu, m);
	got = emu_get_state(m->sp->emu, r) == 0;
	*answered = got && emulate_answer(vcpu, m, r, s);
	/* Set now, so that single-stepping (re-armed at the new RIP) steps the next instruction. */
	if (got)
		vcpu_state_changed_stepping(vcpu);
	if (m->stretch_insns < EMULATE_SHORT && m->stop == EMULATE_STOP_SYSTEM && !*answered) {
		m->backoff = m->backoff ? 2 * m->backoff : 4;
		if (m->backoff > EMULATE_BACKOFF_MAX)
			m->backoff = EMULATE_BACKOFF_MAX;
		m->hold = m->hold > m->backoff ? m->hold : m->backoff;
	} else {
		m->backoff = 0;
	}
	pr_debug("vCPU %d: emulated cpl%u %llu instructions -> %llx: %s", vcpu->id, x->cpl,
		 (unsigned long long)m->stretch_insns, (unsigned long long)r->rip,
		 exact_emulate_stop_name(m->stop));
	st->stretches++;
	st->stops[m->stop]++;
	st->insns += m->stretch_insns;
	x->emulated_last = x->emulated_last || m->stretch_insns;
	emulate_count_cycles(m);
	x->pending = false;
	return true;
}

/*
 * engine.h begin: a stretch in the emulator, then KVM steps what it handed
 * over. Steps that only a listener wants (RDPMC discovery windows, while no
 * counter counts what this source counts) are taken as they are: the
 * emulator would count nothing there.
 */
static void emulate_begin(struct vcpu *vcpu, bool want)
{
	bool counting = vpmu_counted_events(&vcpu->pmu->model) & vcpu->pmu->exact->events;
	struct exact_emulate *m = want && counting ? emulate_get(vcpu) : NULL;
	uint64_t start = 0, until = 0, now;
	bool answered;

	/*
	 * Stretch after stretch while each ends at an RDTSC or RDPMC answered
	 * here, with the slices of one stretch: then KVM steps, and interrupts
	 * come in.
	 */
	while (m && emulate_stretch(vcpu, m, &answered)) {
		if (m->stop == EMULATE_STOP_PMI ||
		    (answered && (vcpu->pmu->model.pmi_pending || vcpu->pmu->model.pebs_armed))) {
			/*
			 * KVM_RUN returns at once without running the guest:
			 * the after-run hooks see the state right after the
			 * instruction (the PEBS assist, --profile's sample), and
			 * the next before-run hooks deliver its PMI before the
			 * next one runs.
			 */
			m->immediate = true;
			vcpu->run->immediate_exit = 1;
			return;
		}
		if (!answered)
			break;
		now = emulate_now_ns();
		if (!start) {
			start = now;
			until = now + EMULATE_SLICE_NS;
		} else if (now >= until) {
			uint64_t wait = EMULATE_SLICE_NS;

			if (now - start >= EMULATE_STRETCH_MAX_NS ||
			    exact_slice_due(vcpu, m->irq_on, now, &wait, &m->timer_at_ns))
				break;
			until = now + wait;
		}
	}
	exact_step_engine.begin(vcpu, want);
}

/*
 * engine.h retire: the step of what was handed over, counted by stepping.
 * A KVM_RUN that was not stepped ran the guest unseen: its code and page
 * tables may have changed. A stepped INVLPG or INVPCID flushes the mapping
 * as it flushes a TLB; after an instruction that may set IF (STI, POPF,
 * IRET...), two more steps let an interrupt it unmasked in as hardware does.
 */
static bool emulate_retire(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct exact_emulate *m = x->emulate;
	uint32_t flags = x->stepping && x->pending ? x->insn.flags : 0;
	bool stepped = x->stepping, counted;

	if (m && m->immediate) {
		/* The guest did not run (emulate_begin()). */
		m->immediate = false;
		vcpu->run->immediate_exit = 0;
		return false;
	}
	counted = exact_step_engine.retire(vcpu);
	if (!m)
		return counted;
	if (!stepped) {
		emulate_stale_all(m, true);
		x->emulated_last = false;
		return counted;
	}
	x->emu_stats.stepped++;
	if (flags & INSN_TLB)
		emulate_stale_all(m, false);
	/*
	 * Code another vCPU wrote runs here once this one has executed a
	 * serializing instruction (SDM vol. 3A 9.1.3, cross-modifying code):
	 * all of those are system instructions, run in KVM.
	 */
	if ((flags & INSN_SYSTEM) && vcpu->vm->nr_vcpus > 1)
		for (unsigned int i = 0; i < EMULATE_SPACES && m->spaces[i]; i++)
			m->spaces[i]->code_stale = true;
	if (flags & (INSN_LOADS_RFLAGS | INSN_STI))
		m->hold = 2;
	return counted;
}

static bool emulate_debug_exit(struct vcpu *vcpu)
{
	return exact_step_engine.debug_exit(vcpu);
}

/* exact.c: a PMI was delivered; KVM takes it before the next instruction. */
void exact_emulate_pmi_delivered(struct vcpu *vcpu)
{
	if (vcpu->pmu->exact->emulate)
		vcpu->pmu->exact->emulate->hold = 1;
}

void exact_emulate_free(struct exact_state *x)
{
	if (!x->emulate)
		return;
	for (unsigned int i = 0; i < EMULATE_SPACES; i++)
		emulate_space_free(x->emulate->spaces[i]);
	free(x->emulate);
	x->emulate = NULL;
}

const struct exact_engine exact_emulate_engine = {
	.name = "emulate",
	.begin = emulate_begin,
	.retire = emulate_retire,
	.debug_exit = emulate_debug_exit,
};
