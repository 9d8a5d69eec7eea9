/*
 * Profiling from outside: every counter overflow pmuvm delivers is recorded
 * with the vCPU, the counter and the guest's RIP and call stack, and written
 * at exit as a profile resolved against the guest image's ELF symbols.
 */
#ifndef PMUVM_PROFILE_H
#define PMUVM_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct vcpu;
struct vm;

void profile_record(struct vcpu *vcpu, uint64_t overflow_bits);
void profile_free(struct vcpu *vcpu);

/* Writes --profile FILE; 0 or a PMUVM_EXIT_* code. */
int profile_write(struct vm *vm, const uint8_t *image, size_t image_size);

#endif
