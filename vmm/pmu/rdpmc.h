/* RDPMC emulation through a breakpoint on the guest's #GP handler (rdpmc.c). */
#ifndef PMUVM_PMU_RDPMC_H
#define PMUVM_PMU_RDPMC_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

struct rdpmc_state {
	uint64_t idt_base;		/* IDTR the breakpoint was placed for */
	uint16_t idt_limit;
	uint64_t emulated;		/* RDPMCs completed by pmuvm */
	uint64_t passed_on;		/* other #GPs that went to the guest's handler */
};

/* Keeps the breakpoint on the current #GP handler. */
void rdpmc_before_run(struct vcpu *vcpu);

/* KVM_EXIT_DEBUG at that breakpoint: true if it was (and is now handled). */
bool rdpmc_debug_exit(struct vcpu *vcpu);

#endif
