/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MSR routing: KVM_X86_SET_MSR_FILTER denies chosen MSRs to KVM so that a
 * guest's RDMSR/WRMSR of them exits to userspace (KVM_MSR_EXIT_REASON_FILTER).
 */
#ifndef PMUVM_MSR_FILTER_H
#define PMUVM_MSR_FILTER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * One range of MSR numbers, first to last inclusive; `reads_only`: every
 * MSR of it, for reads only (writes stay with KVM).
 */
struct kvm_msr_span {
	uint32_t first, last;
	bool reads_only;
};

/*
 * Sends every MSR of the spans (at most KVM_MSR_FILTER_MAX_RANGES) for which
 * mine(ctx, msr) is true, and every read of a `reads_only` span, to
 * userspace; KVM keeps all others. Again later replaces the filter. 0, or
 * -errno after one line.
 */
int kvm_msr_filter_install(int vm_fd, const struct kvm_msr_span *spans, unsigned int nr,
			   bool (*mine)(const void *ctx, uint32_t msr), const void *ctx);

#endif
