/*
 * PMU MSR routing: KVM_X86_SET_MSR_FILTER denies the PMU MSRs to KVM so
 * that guest RDMSR/WRMSR of them exit to userspace (reason FILTER), where a
 * handler table answers them.
 */
#ifndef PMUVM_MSR_H
#define PMUVM_MSR_H

#include <stdbool.h>
#include <stdint.h>

struct vm;
struct vcpu;

/* Return value of an MSR handler: 0 done, 1 inject #GP (as KVM's handlers). */
struct msr_handler {
	uint32_t first, last;
	int (*rdmsr)(struct vcpu *vcpu, uint32_t msr, uint64_t *data);
	int (*wrmsr)(struct vcpu *vcpu, uint32_t msr, uint64_t data);
};

int msr_filter_install(struct vm *vm);

/* Handles KVM_EXIT_X86_RDMSR / KVM_EXIT_X86_WRMSR. */
int msr_exit(struct vcpu *vcpu, bool is_write);

#endif
