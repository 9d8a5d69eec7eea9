/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a kick found the vCPU (kick.c): whether the RIP a run ended at is a
 * fair sample of where the guest spends its time.
 */
#ifndef PMUVM_CLOCK_KICK_H
#define PMUVM_CLOCK_KICK_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* A kick (pmuvm's timer or another thread's) ended the run, not the guest. */
bool clock_run_kicked(const struct vcpu *vcpu);
/* The kick that ended this run of `ns` guest time did not find the guest running. */
bool clock_kick_unfair(struct vcpu *vcpu, uint64_t ns);
/* After each timed run: notes a register access that ended it. */
void clock_kick_note_run(struct vcpu *vcpu);

#endif
