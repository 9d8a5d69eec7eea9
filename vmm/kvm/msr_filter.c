/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm/kvm.h"
#include "kvm/msr_filter.h"
#include "log.h"

/* KVM caps one range's bitmap (KVM_MSR_FILTER_MAX_BITMAP_SIZE, 0x600 bytes). */
#define MSR_FILTER_MAX_MSRS	(0x600 * 8)

int kvm_msr_filter_install(int vm_fd, const struct kvm_msr_span *spans, unsigned int nr,
			   bool (*mine)(const void *ctx, uint32_t msr), const void *ctx)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	struct kvm_msr_filter filter = { .flags = KVM_MSR_FILTER_DEFAULT_ALLOW };
	uint8_t *bitmaps[KVM_MSR_FILTER_MAX_RANGES] = { NULL };
	unsigned int i;
	int r = 0;

	if (nr > KVM_MSR_FILTER_MAX_RANGES) {
		pr_err("MSR filter: %u ranges, KVM takes at most %d", nr, KVM_MSR_FILTER_MAX_RANGES);
		return -EINVAL;
	}
	if (ioctl(vm_fd, KVM_ENABLE_CAP, &cap) < 0) {
		pr_err("KVM_ENABLE_CAP(KVM_CAP_X86_USER_SPACE_MSR): %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < nr && !r; i++) {
		uint32_t n = spans[i].last - spans[i].first + 1, m;

		if (spans[i].last < spans[i].first || n > MSR_FILTER_MAX_MSRS) {
			pr_err("MSR filter range %#x..%#x too large", spans[i].first, spans[i].last);
			r = -EINVAL;
			break;
		}
		bitmaps[i] = malloc((n + 7) / 8);
		if (!bitmaps[i]) {
			r = -ENOMEM;
			break;
		}
		/* A set bit lets KVM handle the MSR; a clear bit sends it to userspace. */
		memset(bitmaps[i], 0xff, (n + 7) / 8);
		for (m = 0; m < n; m++)
			if (spans[i].reads_only || mine(ctx, spans[i].first + m))
				bitmaps[i][m / 8] &= (uint8_t)~(1u << (m % 8));
		filter.ranges[i] = (struct kvm_msr_filter_range){
			.flags = KVM_MSR_FILTER_READ |
				 (spans[i].reads_only ? 0 : KVM_MSR_FILTER_WRITE),
			.nmsrs = n,
			.base = spans[i].first,
			.bitmap = bitmaps[i],
		};
	}
	if (!r && ioctl(vm_fd, KVM_X86_SET_MSR_FILTER, &filter) < 0) {
		r = -errno;
		pr_err("KVM_X86_SET_MSR_FILTER: %s", strerror(errno));
	}
	for (i = 0; i < nr; i++)
		free(bitmaps[i]);	/* KVM copies the bitmaps */
	return r;
}
