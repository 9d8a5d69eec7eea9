/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PEBS in software (docs/intel-pmu.md 4): the DS buffer-management area and the
 * record formats 3, 4 and 5, written into guest memory by an "assist".
 *
 * Pure C with no KVM dependency: guest memory is a struct guest_mem and the
 * DS addresses are translated with the guest's paging state (mem/pagewalk),
 * so unit tests drive it in-process; assist.c gathers the vCPU state.
 */
#ifndef PMUVM_PEBS_H
#define PMUVM_PEBS_H

#include <stddef.h>
#include <stdint.h>

#include "mem/pagewalk.h"
#include "model/vpmu.h"

/* General-purpose registers in the architectural encoding order. */
enum pebs_gpr {
	PEBS_RAX, PEBS_RCX, PEBS_RDX, PEBS_RBX, PEBS_RSP, PEBS_RBP, PEBS_RSI, PEBS_RDI,
	PEBS_R8, PEBS_R9, PEBS_R10, PEBS_R11, PEBS_R12, PEBS_R13, PEBS_R14, PEBS_R15,
	PEBS_NR_GPRS,
};

#define PEBS_NR_XMMS	16

/* The vCPU's state at the assist (docs/intel-pmu.md 4.5: trap-like, after the instruction). */
struct pebs_state {
	uint64_t rflags;
	uint64_t rip;			/* the next instruction */
	uint64_t eventing_ip;		/* the instruction that caused the event */
	uint64_t gpr[PEBS_NR_GPRS];
	uint64_t tsc;			/* guest-visible TSC */
	uint8_t xmm[PEBS_NR_XMMS][16];	/* only read when the XMM group is written */
};

/* DS buffer-management area offsets (docs/intel-pmu.md 4.1, 64-bit layout). */
#define DS_PEBS_BASE		0x20
#define DS_PEBS_INDEX		0x28
#define DS_PEBS_ABS_MAX		0x30
#define DS_PEBS_THRESHOLD	0x38
#define DS_PEBS_RESET_GP	0x40
#define DS_PEBS_RESET_FIXED_FMT4 0x80	/* formats <= 4: slot 8 + i */
#define DS_PEBS_RESET_FIXED_FMT5 0x140	/* format 5: slot 32 + i */

/* Record sizes (docs/intel-pmu.md 4.4). */
#define PEBS_FMT3_SIZE		0xc8
#define PEBS_BASIC_SIZE		0x20
#define PEBS_MEMINFO_SIZE	0x20
#define PEBS_GPR_SIZE		0x90
#define PEBS_XMM_SIZE		0x100
#define PEBS_LBR_ENTRY_SIZE	0x18	/* from, to, info */
#define PEBS_LBR_MAX		256	/* PEBS_DATA_CFG[31:24] + 1 */
#define PEBS_RECORD_MAX		(PEBS_BASIC_SIZE + PEBS_MEMINFO_SIZE + PEBS_GPR_SIZE + \
				 PEBS_XMM_SIZE + PEBS_LBR_ENTRY_SIZE * PEBS_LBR_MAX)

/* LBR entries in a record whose group field is `groups` (docs/intel-pmu.md 2.12). */
static inline unsigned int pebs_lbr_entries(uint64_t groups)
{
	return (unsigned int)((groups >> PEBS_DATACFG_LBR_SHIFT) & 0xff) + 1;
}

/*
 * The PEBS_DATA_CFG value a record for the `applicable` counters uses:
 * 0 (basic only) for format 3 or when no applicable counter has its
 * Adaptive_Record bit (docs/intel-pmu.md 4.3), else the register's value.
 */
uint64_t pebs_record_groups(const struct vpmu *pmu, uint64_t applicable);

/*
 * Builds the record for `applicable` into buf (PEBS_RECORD_MAX bytes):
 * format 3 when fmt is 3, else adaptive with `groups`.  Returns its size.
 */
size_t pebs_record_build(unsigned int fmt, uint64_t groups, const struct pebs_state *st,
			 uint64_t applicable, uint8_t *buf);

/* Per-vCPU counts for the report. */
struct pebs_stats {
	uint64_t assists;		/* armed counters taken */
	uint64_t records;		/* records written */
	uint64_t skipped_full;		/* index at or past the absolute maximum */
	uint64_t threshold_pmis;	/* GLOBAL_STATUS bit 62 set, PMI requested */
	uint64_t drop_noncanonical;	/* DS or buffer address non-canonical or wrapping */
	uint64_t drop_unmapped;		/* not mapped (or not writable) in the guest's tables */
	uint64_t drop_not_ram;		/* mapped to MMIO or beyond RAM */
};

enum pebs_result {
	PEBS_NONE,		/* nothing armed */
	PEBS_WRITTEN,
	PEBS_FULL,
	PEBS_DROPPED,
};

/*
 * Performs the assist for every armed counter (docs/intel-pmu.md 4.2): reads the DS
 * management area at IA32_DS_AREA, writes one record at the PEBS index
 * unless it is at or past the absolute maximum, advances the index,
 * reloads the counters from their DS reset slots and, once the index
 * reaches the threshold, sets GLOBAL_STATUS bit 62 and requests a PMI.
 *
 * A DS area or buffer that is not canonical, wraps, is not mapped writable,
 * or maps to anything but guest RAM drops the record (counted in stats):
 * nothing is written, the counters keep their overflow status.  Nothing is
 * ever written unless the whole record and the index fit in guest RAM.
 */
enum pebs_result pebs_assist(struct vpmu *pmu, const struct guest_mem *mem,
			     const struct paging_state *ps, const struct pebs_state *st,
			     struct pebs_stats *stats);

/* True if an assist for the armed counters would write the XMM group. */
bool pebs_wants_xmm(const struct vpmu *pmu);

struct vcpu_feature;
/* The assist after every exit (assist.c). */
extern const struct vcpu_feature pebs_feature;

#endif
