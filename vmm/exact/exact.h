/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exact counting source: while an enabled counter counts a
 * retirement event, each instruction is seen to retire (engine.h: the vCPU
 * is single-stepped), classified (x86/decode.h, retire.h) and counted at
 * the CPL it ran at.
 */
#ifndef PMUVM_EXACT_H
#define PMUVM_EXACT_H

#include <stdbool.h>
#include <stdint.h>

#include "exact/follow.h"
#include "exact/krun.h"
#include "x86/decode.h"

struct exact_engine;
struct icache;
struct pmu_source_ops;
struct vcpu_feature;

/* Why a stretch of the emulation engine ended (emulate.c), for the report. */
enum emulate_stop {
	EMULATE_STOP_SYSTEM,		/* an instruction only KVM runs (INSN_SYSTEM) */
	EMULATE_STOP_LOCKED,		/* a locked instruction, with other vCPUs */
	EMULATE_STOP_FAULT,		/* memory not mapped, or an exception */
	EMULATE_STOP_PMI,		/* a PMI became due */
	EMULATE_STOP_SLICE,		/* the slice ran out (pending interrupts) */
	EMULATE_STOP_DECODE,		/* bytes that do not decode */
	EMULATE_STOP_NR,
};

const char *exact_emulate_stop_name(enum emulate_stop s);

/* The emulation engine's figures (emulate.c), for the report. */
struct exact_emulate_stats {
	uint64_t insns;			/* instructions retired in the emulator */
	uint64_t stretches;
	uint64_t stops[EMULATE_STOP_NR];
	uint64_t stepped;		/* KVM_RUNs stepped while it was the engine */
	uint64_t map_builds, map_failures;	/* the linear mapping built; not buildable */
	uint64_t demand_maps;		/* regions mapped as stretches touched them (a space of many) */
	uint64_t code_flushes;		/* translations dropped: the guest ran unseen */
	uint64_t code_evictions;	/* ...and those of a watched page whose slot another took */
	uint64_t space_switches;	/* an address space's emulator taken for another one */
	uint64_t fpu_loads;		/* stretches given the x87/SSE state (KVM_GET_XSAVE and back) */
	uint64_t rdtsc_answered;	/* RDTSCs answered where stretches stopped (answer.c) */
	uint64_t rdpmc_answered;	/* ...and RDPMCs */
	uint64_t slice_polls;		/* slice ends that looked for interrupts (slice.c) */
	uint64_t slices_extended;	/* ...after which the stretch went on */
	uint64_t timer_due;		/* stretches ended for the LAPIC timer's deadline */
	uint64_t timer_late_ns, timer_late_ns_max;	/* ...that long after it, in all and at most */
};

struct exact_emulate;

/* CPUID features hidden from a guest the emulation engine counts (cpuid.c). */
#define EXACT_CPUID_HIDDEN_NR	28

/* Per-vCPU state of the exact source (vcpu->pmu->exact). */
struct exact_state {
	/* The source (exact.c, count.c). */
	uint32_t events;		/* what this source counts (bits of enum pmu_arch_event) */
	const struct exact_engine *engine;	/* how it sees instructions retire (engine.h) */
	uint64_t cpuid_hidden;		/* bit i: exact_cpuid_hidden_name(i), the host's, hidden */
	uint64_t cycle_rem;		/* --cycles=model: cycles x 1000 not yet counted */
	uint64_t ref_rem;		/* ...and reference cycles x core kHz */
	uint64_t core_khz, ref_khz;	/* --cpu-mhz and the TSC rate, for those */
	uint64_t last_rip;		/* the last instruction counted retired (eventing IP) */
	struct krun_state krun;		/* the kernel run unstepped for USR-only counts (krun.c) */

	/* The instruction in flight, whatever the engine. */
	bool pending;			/* `insn` is the instruction at `rip` about to run */
	bool counted;			/* ...and was counted early (its WRMSR exit) */
	struct insn insn;
	uint64_t rip;
	uint16_t cs;
	unsigned int cpl;
	uint64_t rax_before, rdx_before;	/* RAX and RDX before it (pmu/listen.h: a listener may undo it) */
	uint64_t rsp_before;		/* RSP before it (retire.h: did it run?) */
	struct icache *icache;		/* decodes (icache.c) */

	/* The stepping engine (step.c, tf.c, catchup.c, hlt.c, follow.c). */
	bool stepping;			/* KVM_GUESTDBG_SINGLESTEP is on */
	/* INSN_IRET: the RIP and CS it returns to (0: unknown); INSN_SYSRET: RCX, RPL 3 */
	uint64_t iret_frame[2];
	bool sysret_tf;			/* TF set in R11 for the SYSRET stepped (tf.c) */
	bool rearm;			/* TF may be lost (RFLAGS reloaded, a handler entered): set it again */
	uint8_t *idt_copy;		/* scratch for exact_catch_up_event() */
	struct follow_state follow;	/* breakpoints on handler entries (follow.c) */

	/* The emulation engine (emulate.c): NULL until it first runs. */
	struct exact_emulate *emulate;
	struct exact_emulate_stats emu_stats;
	bool emulated_last;		/* last_rip is the emulator's, and current */

	/* Report. */
	uint64_t steps, retired, not_retired, decode_errors;
	uint64_t caught_up, hlts;	/* instructions a step ran past, counted */
	uint64_t steps_not_caught_up;	/* steps that ran where no walk leads: uncounted */
	uint64_t ran_past;		/* steps that ran past a non-branch (catchup.c exact_ran_past()) */
	uint64_t user_runs_uncounted;	/* KVM_RUNs at CPL3 this host cannot step */
	uint64_t rearms;		/* single-step re-armed after RFLAGS was reloaded */
	uint64_t stepping_lost;		/* exits that found stepping lost (tf.c) */
	uint64_t kvm_traps;		/* step traps KVM raised itself (guest_debug.h) */
	uint64_t tf_untraced;		/* pmuvm's TF cleared from a saved RFLAGS (tf.c) */
	uint64_t sysret_tf_set;		/* SYSRETs stepped with TF set in R11 (tf.c) */
	uint64_t handler_runs_uncounted;	/* handlers that ran unstepped while counting */
};

extern const struct pmu_source_ops exact_source;
extern const struct vcpu_feature exact_feature;

struct kvm_cpuid2;
/* vcpu_feature.cpuid: hides what the emulation engine cannot run (cpuid.c). */
void exact_cpuid(struct vcpu *vcpu, struct kvm_cpuid2 *c);
/* The /proc/cpuinfo name of bit i of exact_state.cpuid_hidden. */
const char *exact_cpuid_hidden_name(unsigned int i);

#endif
