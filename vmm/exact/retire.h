/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Retirement, pure, so every rule is unit-tested: what a retired
 * instruction counts, whatever engine ran it (retire_events()), and, for
 * the stepping engine, whether a single-stepped instruction retired
 * (retire_decide()).  After one KVM single step from `rip`, the vCPU is at
 * `new_rip`; these cases are told apart:
 *   - it completed: new_rip is the next instruction or a branch target;
 *   - a REP string instruction did one iteration: new_rip == rip, not yet;
 *   - a CALL, RET, IRET or INT n with new_rip == rip and RSP unchanged did
 *     not run (it pushes or pops when it does);
 *   - an exception or interrupt was delivered instead of completing it: the
 *     handler runs and the frame the CPU pushed holds RIP == rip (faults
 *     push the faulting RIP; an interrupt taken before the instruction
 *     pushes its RIP too).  64-bit frames: [err,] RIP, CS, RFLAGS, RSP, SS.
 * A trap after the instruction (INT n, INT3, an interrupt after it) pushes
 * the next RIP, and the instruction did retire.
 */
#ifndef PMUVM_EXACT_RETIRE_H
#define PMUVM_EXACT_RETIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "x86/decode.h"

struct step_result {
	uint64_t new_rip;
	/*
	 * The four qwords at the new RSP, if they could be read (64-bit mode):
	 * [err,] RIP, CS, ..., or on kvm_pvm, where the handler's first
	 * instruction runs in the delivery's step, one PUSH below that.
	 */
	uint64_t frame[4];
	bool frame_valid;
	/* RSP is where it was before the step. */
	bool rsp_kept;
	/* Output: an event was delivered during the step (a frame named it). */
	bool event;
};

enum retire {
	RETIRE_NO,		/* faulted, interrupted before it, or mid-REP */
	RETIRE_YES,
	RETIRE_TAKEN,		/* retired, and it was a taken branch */
};

/* Whether the outcome needs the frame at the new RSP to be decided. */
bool retire_needs_frame(const struct insn *in, uint64_t rip, uint64_t new_rip);

/*
 * An instruction at `rip` that completed, the next at `new_rip`: RETIRE_YES,
 * or RETIRE_TAKEN for a taken branch (unconditional and far ones always; a
 * conditional one unless it fell through).
 */
enum retire retire_completed(const struct insn *in, uint64_t rip, uint64_t new_rip);

enum retire retire_decide(const struct insn *in, uint64_t rip, uint16_t cs,
			  struct step_result *res);

/*
 * The events (bits of enum pmu_arch_event) one retired instruction raises:
 * instructions, and for a branch (`how` RETIRE_TAKEN if taken) Intel's
 * BR_INST_RETIRED umasks and AMD's taken branches (near and far).
 */
uint32_t retire_events(const struct insn *in, enum retire how);

#endif
