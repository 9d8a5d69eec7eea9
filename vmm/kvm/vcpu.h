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

/*
 * The registers as of the last exit: the kvm_run sync area when KVM has
 * one, else fetched copies.  After changing *regs, call vcpu_state_changed()
 * so the next KVM_RUN uses them.
 */
int vcpu_state(struct vcpu *vcpu, struct kvm_regs **regs, struct kvm_sregs **sregs);
int vcpu_state_changed(struct vcpu *vcpu);

#endif
