/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the emulation engine's files share, and nobody else: its state
 * (emulate.c: stretches, mapping, decoding, counting one instruction) and
 * counting by block (emulate_block.c). Design: docs/counting.md, "The
 * emulation engine".
 */
#ifndef PMUVM_EXACT_EMULATE_H
#define PMUVM_EXACT_EMULATE_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/emu.h"
#include "exact/internal.h"
#include "mem/va_map.h"
#include "x86/decode.h"

struct vcpu;

/*
 * A stretch's length in time: interrupts that KVM's LAPIC holds pending
 * meanwhile are taken at most this late (the step after it delivers them).
 * With IF clear none can be taken: the stretch ends only so that pmuvm
 * sees signals and NMIs. The clock is read every EMULATE_SLICE_CHECK
 * instructions.
 */
#define EMULATE_SLICE_NS	200000ULL
#define EMULATE_SLICE_IF_OFF_NS	10000000ULL
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
#define EMULATE_CODE_PAGES	256	/* code pages watched for changes, direct-mapped */
#define EMULATE_PAGE		4096ULL
#define EMULATE_BLOCKS		2048	/* direct-mapped, a power of two */
#define EMULATE_BLOCK_BYTES	256	/* longer blocks are decoded at each entry */
#define EMULATE_CUTS		4
#define EMULATE_RESTARTS	64	/* runs a stretch starts again for exits added */

/* A page the emulator ran code from, and its bytes then: changed since, its translations go. */
struct emulate_code_page {
	uint64_t la;		/* ~0: empty */
	const uint8_t *host;
	uint8_t bytes[EMULATE_PAGE];
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

/* A block as the emulator translated it (emulate_block_get()). */
struct emulate_block {
	uint64_t la;		/* ~0: empty */
	uint32_t len;
	uint32_t n;		/* its instructions */
	uint32_t stop;		/* the first that must not run here, ~0u if none */
	uint32_t fpu;		/* the first that needs the x87/SSE state, ~0u if none */
	bool odd;		/* a branch before its end: not run as a block */
	uint64_t stop_rip;
	const uint8_t *host;	/* where its bytes are while the mapping stands */
	uint32_t events;	/* what the instructions before the last count */
	uint16_t count[PMU_EV_NR];	/* ...how many of them each */
	uint64_t last_rip;
	struct emulate_decode last;
	uint8_t bytes[EMULATE_BLOCK_BYTES];
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
	struct emulate_decode decodes[EMULATE_DECODES];
	struct emulate_block *blocks;		/* [EMULATE_BLOCKS] */
};

struct exact_emulate {
	struct emu *emu;
	struct vcpu *vcpu;
	struct emulate_space *spaces[EMULATE_SPACES];	/* made as needed */
	struct emulate_space *sp;	/* the one the stretch runs in */
	uint64_t uses;			/* a clock for the least recently used space */
	unsigned int map_patches;	/* pmuvm's patches of guest code when last looked at */
	struct emulate_decode cross;	/* an instruction that crosses a run's end, not cached */
	struct emulate_block cross_block;	/* a block that does, or too long to keep */

	/* The stretch in progress. */
	bool have_prev;
	uint64_t prev_rip;
	const struct emulate_decode *prev;
	const struct emulate_block *pend;	/* EMU_BY_BLOCK: the block running */
	bool rep_more;			/* ...whose REP string instruction goes on */
	bool restart;			/* the run stopped for an exit added: it goes on */
	struct { uint64_t la, from; } cuts[EMULATE_CUTS];	/* exits for the stretch */
	unsigned int nr_cuts;
	uint32_t budget;		/* instructions to the next look at the clock */
	uint64_t deadline_ns;
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

/* emulate.c */
const uint8_t *emulate_host(const struct exact_emulate *m, uint64_t la, uint64_t *avail);
void emulate_watch_page(struct exact_emulate *m, uint64_t rip);
const struct emulate_decode *emulate_decode(struct exact_emulate *m, uint64_t rip);
bool emulate_flush(struct exact_emulate *m);
bool emulate_retire_prev(struct exact_emulate *m, uint64_t rip);
bool emulate_stop(struct exact_emulate *m, enum emulate_stop why);
bool emulate_fpu_load(struct exact_emulate *m);
bool emulate_may_run(struct exact_emulate *m, uint64_t rip);
bool emulate_in_slice(struct exact_emulate *m, uint32_t insns, bool rep_more);

/* emulate_block.c: emu_ops.block. */
bool emulate_block(void *opaque, uint64_t la, uint32_t len);
/* The space's blocks forgotten (its mapping changed). */
void emulate_blocks_forget(struct emulate_space *sp);
/*
 * A run ended with the next instruction at `rip`, not run: what ran before
 * it retired. False if a PMI is now due.
 */
bool emulate_run_ended(struct exact_emulate *m, uint64_t rip);
/* Whether `la` was an exit for the stretch (a cut), now gone. */
bool emulate_cut_drop(struct exact_emulate *m, uint64_t la);
/* The stretch's cuts, gone as it ends. */
void emulate_cuts_drop(struct exact_emulate *m);

#endif
