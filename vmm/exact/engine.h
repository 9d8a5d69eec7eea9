/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting engines: how the exact source sees each instruction retire
 * (docs/architecture.md, "Counting engines"). The source (exact.c) decides
 * whether retirement is counted on the coming KVM_RUN and does the rest
 * (the counting sources' hooks, PEBS's eventing IP, the kernel runs of
 * krun.c); an engine makes the instructions seen. Stepping (step.c): KVM
 * single-steps one instruction per KVM_RUN. Emulation (emulate.c, --exact
 * emulate): a stretch runs in an x86 emulator in pmuvm, and the
 * instruction it cannot run (I/O, MMIO, an MSR, an event) goes back to KVM
 * through stepping's begin, whose retire then sees it. Whatever the engine, the instruction in
 * flight is exact_state's insn/rip/cpl/pending, what it counts comes from
 * retire_events() (retire.c) and is counted by exact_retire() (count.c).
 */
#ifndef PMUVM_EXACT_ENGINE_H
#define PMUVM_EXACT_ENGINE_H

#include <stdbool.h>

struct vcpu;

struct exact_engine {
	const char *name;
	/*
	 * Before a KVM_RUN the source cares about: `want`, retirement is
	 * counted on it. Begins the stretch: on or off, and the instructions
	 * about to run armed to be seen (stepping: decoded, TF and the handler
	 * breakpoints set), or run here and handed back to KVM.
	 */
	void (*begin)(struct vcpu *vcpu, bool want);
	/*
	 * After the KVM_RUN: what the stretch ran, each instruction retired or
	 * not and counted; true if the engine was counting (PEBS's view is
	 * then brought up to date).
	 */
	bool (*retire)(struct vcpu *vcpu);
	/* A KVM_EXIT_DEBUG: true if the engine caused it (a step's trap). */
	bool (*debug_exit)(struct vcpu *vcpu);
};

/* Single-stepping under KVM (step.c). */
extern const struct exact_engine exact_step_engine;
/* Counted code run in an emulator, what it cannot run stepped (emulate.c). */
extern const struct exact_engine exact_emulate_engine;

#endif
