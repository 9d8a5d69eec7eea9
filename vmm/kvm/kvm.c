/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "exitcode.h"
#include "kvm/kvm.h"
#include "log.h"

static const struct kvm_cap_req required_caps[] = {
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY", "guest RAM" },
	{ KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP", "in-kernel LAPIC/IOAPIC for SMP and PMIs" },
	{ KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID", "CPUID leaf 0xA for the virtual PMU" },
	{ KVM_CAP_X86_USER_SPACE_MSR, "KVM_CAP_X86_USER_SPACE_MSR", "PMU MSR exits to userspace" },
	{ KVM_CAP_X86_MSR_FILTER, "KVM_CAP_X86_MSR_FILTER", "routing PMU MSRs to pmuvm" },
	{ KVM_CAP_SIGNAL_MSI, "KVM_CAP_SIGNAL_MSI", "fixed-vector PMI delivery" },
	{ KVM_CAP_SET_GUEST_DEBUG, "KVM_CAP_SET_GUEST_DEBUG", "single-stepping and RDPMC emulation" },
	{ KVM_CAP_GET_TSC_KHZ, "KVM_CAP_GET_TSC_KHZ", "the cycle clock" },
};

int kvm_cap(int fd, int cap)
{
	int r = ioctl(fd, KVM_CHECK_EXTENSION, cap);

	return r < 0 ? 0 : r;
}

int kvm_disable_vpmu(int vm_fd)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_PMU_CAPABILITY,
		.args[0] = KVM_PMU_CAP_DISABLE,
	};

	if (!(kvm_cap(vm_fd, KVM_CAP_PMU_CAPABILITY) & KVM_PMU_CAP_DISABLE))
		return -EOPNOTSUPP;
	return ioctl(vm_fd, KVM_ENABLE_CAP, &cap) < 0 ? -errno : 0;
}

int kvm_open(const char *path, int *fd_out)
{
	int fd, api;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			pr_err("%s does not exist: KVM is not available on this host "
			       "(load kvm-intel/kvm-amd, or enable nested virtualization)", path);
		else if (e == EACCES || e == EPERM)
			pr_err("%s: permission denied (run as root or join the group that owns it)",
			       path);
		else
			pr_err("%s: %s", path, strerror(e));
		return PMUVM_EXIT_NO_KVM;
	}
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (api != KVM_API_VERSION) {
		pr_err("%s: not a usable KVM device (API version %d, need %d)", path, api,
		       KVM_API_VERSION);
		close(fd);
		return PMUVM_EXIT_NO_KVM;
	}
	*fd_out = fd;
	return 0;
}

int kvm_check_caps(int kvm_fd, const char *hide)
{
	size_t i;

	for (i = 0; i < sizeof(required_caps) / sizeof(required_caps[0]); i++) {
		const struct kvm_cap_req *c = &required_caps[i];
		bool hidden = hide && !strcmp(hide, c->name);

		if (hidden || !kvm_cap(kvm_fd, c->cap)) {
			pr_err("KVM lacks %s, needed for %s", c->name, c->why);
			return PMUVM_EXIT_NO_KVM;
		}
	}
	return 0;
}
