/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An x86-64 emulator in pmuvm's process: Unicorn (QEMU's TCG), given the
 * vCPU's general registers and RFLAGS, and guest memory as runs of host
 * memory at their linear addresses (mem/va_map.h), since Unicorn has no
 * MMU of its own. The exact source's emulation engine (exact/emulate.c)
 * runs counted stretches here; which instructions it lets run is its
 * choice (ops.insn), everything else is this wrapper's. Why Unicorn and not
 * a hand-written interpreter: docs/counting.md, "The emulation engine".
 */
#ifndef PMUVM_EMU_EMU_H
#define PMUVM_EMU_EMU_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "mem/va_map.h"

struct emu;

struct emu_ops {
	/*
	 * Before the instruction at `rip` runs: false stops the run there,
	 * before it. A REP string instruction comes here once per iteration
	 * and once more as it ends.
	 */
	bool (*insn)(void *opaque, uint64_t rip);
};

enum emu_end {
	EMU_END_STOPPED,	/* ops.insn said stop: RIP is that instruction */
	EMU_END_FAULT,		/* the instruction at RIP faulted here (memory outside the runs, an exception): not run */
};

/* 0, -ENOMEM, or -ENODEV where Unicorn cannot open an x86-64 CPU. */
int emu_open(struct emu **out);
void emu_close(struct emu *e);

/*
 * Replaces the memory the emulator sees with `runs` (sorted by linear
 * address, as va_map_build() gives them): how many runs changed, or
 * -ENOSPC where Unicorn refused one (the others are mapped).
 */
int emu_map(struct emu *e, const struct va_run *runs, unsigned int n);

/*
 * Forgets the translations of [la, la + len): its code changed behind the
 * emulator's back (its own writes it sees). A run unmapped by emu_map()
 * loses its translations too.
 */
void emu_flush_code(struct emu *e, uint64_t la, uint64_t len);

/* The general registers, RIP and RFLAGS (TF cleared), FS and GS bases: in and out. */
int emu_set_state(struct emu *e, const struct kvm_regs *r, uint64_t fs_base, uint64_t gs_base);
int emu_get_state(struct emu *e, struct kvm_regs *r);

/*
 * The x87, MMX and SSE state, in the legacy region of an FXSAVE/XSAVE image
 * (SDM vol. 1 10.5.1, Table 10-2): FCW, FSW, the abridged FTW, MXCSR,
 * ST0-7 and XMM0-15, in and out. FOP, FIP, FDP and MXCSR_MASK are left as
 * they are: the emulator does not keep the last x87 instruction's pointers.
 */
#define EMU_FXSAVE_SIZE	512
int emu_set_fpu(struct emu *e, const uint8_t *fx);
int emu_get_fpu(struct emu *e, uint8_t *fx);

/* Runs from the RIP of emu_set_state() until ops->insn stops it or an instruction faults. */
enum emu_end emu_run(struct emu *e, const struct emu_ops *ops, void *opaque);

/* After EMU_END_FAULT: true if an access faulted, at linear *la (else an exception). */
bool emu_fault_addr(const struct emu *e, uint64_t *la);
/* Where the last run ended: the instruction it stopped before or that faulted, or one whose fetch faulted. */
uint64_t emu_rip(const struct emu *e);

#endif
