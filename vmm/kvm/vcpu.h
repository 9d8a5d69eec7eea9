#ifndef PMUVM_VCPU_H
#define PMUVM_VCPU_H

#include <signal.h>

#include "kvm/vm.h"

/* Interrupts KVM_RUN: stop requests and the per-vCPU PMU timer. */
#define VCPU_KICK_SIGNAL	SIGUSR1

int vcpu_create(struct vm *vm, struct vcpu *vcpu, int id);
void vcpu_destroy(struct vcpu *vcpu);
void *vcpu_thread(void *arg);
void vcpu_kick(struct vcpu *vcpu);

/* Prints the vCPU's registers to stderr (triple fault, internal error). */
void vcpu_dump_regs(struct vcpu *vcpu);

/* Current privilege level (CS.DPL, or 0 outside protected mode). */
unsigned int vcpu_cpl(struct vcpu *vcpu);

#endif
