#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm/kvm.h"
#include "kvm/msr-filter.h"
#include "log.h"

/* KVM caps one range's bitmap (KVM_MSR_FILTER_MAX_BITMAP_SIZE, 0x600 bytes). */
#define MSR_FILTER_MAX_MSRS	(0x600 * 8)

int kvm_msr_filter_install(int vm_fd, uint32_t first, uint32_t last,
			   bool (*mine)(const void *ctx, uint32_t msr), const void *ctx)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	struct kvm_msr_filter filter = { .flags = KVM_MSR_FILTER_DEFAULT_ALLOW };
	uint32_t n = last - first + 1, m;
	uint8_t *bitmap;
	int r = 0;

	if (last < first || n > MSR_FILTER_MAX_MSRS) {
		pr_err("MSR filter range %#x..%#x too large", first, last);
		return -EINVAL;
	}
	if (ioctl(vm_fd, KVM_ENABLE_CAP, &cap) < 0) {
		pr_err("KVM_ENABLE_CAP(KVM_CAP_X86_USER_SPACE_MSR): %s", strerror(errno));
		return -errno;
	}
	bitmap = malloc((n + 7) / 8);
	if (!bitmap)
		return -ENOMEM;
	/* A set bit lets KVM handle the MSR; a clear bit sends it to userspace. */
	memset(bitmap, 0xff, (n + 7) / 8);
	for (m = 0; m < n; m++)
		if (mine(ctx, first + m))
			bitmap[m / 8] &= (uint8_t)~(1u << (m % 8));
	filter.ranges[0] = (struct kvm_msr_filter_range){
		.flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE,
		.nmsrs = n,
		.base = first,
		.bitmap = bitmap,
	};
	if (ioctl(vm_fd, KVM_X86_SET_MSR_FILTER, &filter) < 0) {
		r = -errno;
		pr_err("KVM_X86_SET_MSR_FILTER: %s", strerror(errno));
	}
	free(bitmap);	/* KVM copies the bitmap */
	return r;
}
