/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a 64-bit kernel's SYSCALL entry returns to user mode, found by
 * following its code from IA32_LSTAR: Linux's entry_SYSCALL_64 ends in
 * its SYSRETQ, and the system calls it may not return from that way
 * (execve, a signal's frame, a saved TF) jump to the IRETQ every return
 * through the stack frame shares (swapgs_restore_regs_and_return_to_usermode
 * to native_irq_return_iret, arch/x86/entry/entry_64.S). Calls are stepped
 * over: what they call returns. Design: docs/counting.md, "Kernel runs".
 */
#include <stdbool.h>

#include "exact/krun_scan.h"
#include "x86/decode.h"
#include "x86/x86.h"

/* Paths waiting to be followed, and block starts already followed. */
#define KRUN_SCAN_PENDING	64
#define KRUN_SCAN_SEEN		512

struct krun_walk {
	uint64_t entry;
	uint64_t pending[KRUN_SCAN_PENDING];
	unsigned int nr_pending;
	uint64_t seen[KRUN_SCAN_SEEN];
	unsigned int nr_seen;
};

static bool krun_in_range(const struct krun_walk *w, uint64_t addr)
{
	return addr - (w->entry - KRUN_SCAN_RANGE) < 2 * KRUN_SCAN_RANGE;
}

/* Queues a path from `addr` unless it was followed or queued already. */
static void krun_queue(struct krun_walk *w, uint64_t addr)
{
	if (!krun_in_range(w, addr) || w->nr_pending == KRUN_SCAN_PENDING)
		return;
	for (unsigned int i = 0; i < w->nr_seen; i++)
		if (w->seen[i] == addr)
			return;
	for (unsigned int i = 0; i < w->nr_pending; i++)
		if (w->pending[i] == addr)
			return;
	w->pending[w->nr_pending++] = addr;
}

/* Whether the instruction ends the path it is on. */
static bool krun_ends_path(const struct insn *in)
{
	if (in->flags & (INSN_FAR | INSN_NEAR_RET | INSN_HLT))
		return true;
	if (in->fault_vec == X86_VEC_BP || in->fault_vec == X86_VEC_UD)	/* INT3 padding, BUG() */
		return true;
	/* An indirect JMP: nowhere known to go on. */
	return (in->flags & INSN_NEAR_UNCOND) && !(in->flags & (INSN_NEAR_CALL | INSN_RELATIVE));
}

void krun_scan_returns(krun_scan_read_fn read, void *ctx, uint64_t entry, struct krun_scan *out)
{
	struct krun_walk w = { .entry = entry };
	uint8_t code[INSN_MAX_LEN];
	struct insn in;

	*out = (struct krun_scan){ 0 };
	krun_queue(&w, entry);
	while (w.nr_pending && out->insns < KRUN_SCAN_INSNS) {
		uint64_t rip = w.pending[--w.nr_pending];

		if (w.nr_seen == KRUN_SCAN_SEEN)
			break;
		w.seen[w.nr_seen++] = rip;
		while (out->insns < KRUN_SCAN_INSNS && krun_in_range(&w, rip)) {
			size_t n = read(ctx, rip, code, sizeof(code));

			if (!n || insn_decode(code, n, INSN_MODE_64, &in))
				break;
			out->insns++;
			if ((in.flags & INSN_SYSRET) && !out->sysret)
				out->sysret = rip;
			if ((in.flags & INSN_IRET) && !out->iret)
				out->iret = rip;
			if (krun_ends_path(&in))
				break;
			if (in.flags & INSN_RELATIVE && !(in.flags & INSN_NEAR_CALL)) {
				uint64_t target = insn_rel_target(&in, rip);

				if (in.flags & INSN_COND) {
					krun_queue(&w, target);
				} else {
					/* A JMP: the path goes on there, once. */
					krun_queue(&w, target);
					break;
				}
			}
			rip += in.len;
		}
	}
}
