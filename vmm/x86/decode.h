/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86 instructions decoded with Zydis and classified: only what pmuvm's
 * decoders need. The exact source (exact/) asks "did it retire, and which
 * retirement events does it raise", where its handler is (follow.c) and
 * where the kernel returns (krun.c); RDPMC (rdpmc/sites.c) looks for the
 * image's RDPMC instructions.
 */
#ifndef PMUVM_X86_DECODE_H
#define PMUVM_X86_DECODE_H

#include <linux/kvm.h>
#include <stddef.h>
#include <stdint.h>

#include "x86/x86.h"

#define INSN_MAX_LEN	15	/* SDM vol. 2 2.3.11 */

enum insn_mode {
	INSN_MODE_16,
	INSN_MODE_32,
	INSN_MODE_64,
};

/* The mode the code segment runs in: its L and D/B flags (SDM vol. 3A 3.4.5). */
static inline enum insn_mode insn_mode_of(const struct kvm_sregs *s)
{
	if ((s->efer & X86_EFER_LMA) && s->cs.l)
		return INSN_MODE_64;
	if ((s->cr0 & X86_CR0_PE) && s->cs.db)
		return INSN_MODE_32;
	return INSN_MODE_16;
}

/* enum insn_flags: what BR_INST_RETIRED and the retirement rules care about */
#define INSN_BRANCH	(1u << 0)	/* any branch: BR_INST_RETIRED.ALL_BRANCHES */
#define INSN_COND	(1u << 1)	/* Jcc, JrCXZ, LOOPcc */
#define INSN_NEAR_CALL	(1u << 2)
#define INSN_NEAR_RET	(1u << 3)
#define INSN_FAR	(1u << 4)	/* far JMP/CALL/RET, INT n, IRET, SYSCALL... */
#define INSN_RELATIVE	(1u << 5)	/* direct near branch: target = next + rel */
#define INSN_REP	(1u << 6)	/* REP/REPE/REPNE string: retires once */
#define INSN_HLT	(1u << 7)
#define INSN_WRMSR	(1u << 8)
#define INSN_RDPMC	(1u << 9)
#define INSN_NEAR_UNCOND (1u << 10)	/* near JMP/CALL/RET: always taken */
#define INSN_IRET	(1u << 11)
/* Loads RFLAGS, so may clear the TF a single step runs with: IRET, POPF,
 * SYSRET, SYSEXIT, and SYSCALL/SYSENTER (IA32_FMASK). */
#define INSN_LOADS_RFLAGS (1u << 12)
/* Invalidates TLB entries: INVLPG, INVLPGA, INVPCID (SDM vol. 3A 4.10.4.1). */
#define INSN_TLB	(1u << 13)
/* Saves RFLAGS where the guest keeps it: PUSHF at [RSP], SYSCALL in R11. */
#define INSN_SAVES_RFLAGS (1u << 14)
#define INSN_SYSRET	(1u << 15)	/* SYSRET: from CPL0 to CPL3, always */
/*
 * Reads or changes more than the general registers, the status flags, the
 * stack and memory: privileged, I/O and system instructions, far branches,
 * segment registers, x87/MMX/SSE/AVX state, IF and AC (CLI, STI, POPF,
 * STAC, CLAC), CPUID and the time-stamp, counter and random-number reads.
 * An emulator given only that state (exact/emulate.c) leaves these to KVM.
 */
#define INSN_SYSTEM	(1u << 16)
/* Atomic against other processors: a LOCK prefix, or XCHG with memory (SDM vol. 3A 9.1.2.2). */
#define INSN_LOCKED	(1u << 17)
#define INSN_STI	(1u << 18)	/* STI: interrupts enabled after the next instruction */
/* A branch that pushes or pops whenever it runs: near and far CALL and RET, IRET, INT n. */
#define INSN_STACK_BRANCH (1u << 19)

/*
 * With INSN_SYSTEM clear: reads or writes x87, MMX or SSE state (legacy
 * encodings up to SSE4.2), beside only what a plain instruction touches.
 * An emulator given that state too runs it (emu_set_fpu()). Not VEX or EVEX
 * (AVX), nor what saves or loads the x87 environment (FNSAVE, FNSTENV,
 * FXSAVE...: its last-instruction pointers, which emulators do not keep).
 */
#define INSN_FPU	(1u << 20)
#define INSN_RDTSC	(1u << 21)	/* RDTSC (not RDTSCP, which reads IA32_TSC_AUX too) */

/*
 * An exception the instruction raises by what it is (SDM vol. 3A 6.15, per
 * vector): #DE from DIV/IDIV, #BP from INT3, #OF from INTO, #UD from
 * UD0/UD1/UD2, INT n's vector, #GP from instructions that check privilege
 * or an MSR/counter index.  INSN_NO_FAULT_VEC: none beyond the #PF or #GP
 * any memory access may raise.
 */
#define INSN_NO_FAULT_VEC	(-1)

struct insn {
	uint8_t len;
	uint32_t flags;
	int16_t fault_vec;
	int64_t rel;		/* INSN_RELATIVE: displacement from the next RIP */
	uint8_t addr_bits;	/* operand size of a relative target (16/32/64) */
};

/* Decodes the instruction at `bytes`: 0, or -EINVAL if it is not valid. */
int insn_decode(const uint8_t *bytes, size_t avail, enum insn_mode mode, struct insn *out);

/* The target of an INSN_RELATIVE branch at `rip`, wrapped to its operand size. */
uint64_t insn_rel_target(const struct insn *in, uint64_t rip);

#endif
