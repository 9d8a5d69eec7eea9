/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exitcode.h"
#include "kvm/kvm.h"
#include "kvm/probe.h"
#include "log.h"
#include "machine/cpuid.h"
#include "machine/mmio.h"
#include "machine/vm.h"

/* Where QEMU's pc machine puts the TSS KVM needs on VMX hosts (below the BIOS). */
#define VM_TSS_ADDR	0xfffbd000ULL

static int vm_setup_memory(struct vm *vm)
{
	unsigned int i;

	/*
	 * RAM a vhost-user back end maps too (dev/virtio_fs.c) lives in a
	 * memfd it is handed, as does RAM the emulation engine maps a second
	 * time in the guest's linear order (exact/emulate.c); otherwise
	 * anonymous memory.
	 */
	if (vm->cfg->shared_ram || vm->cfg->exact_emulate) {
		vm->ram_fd = memfd_create("pmuvm-ram", MFD_CLOEXEC);
		if (vm->ram_fd < 0 || ftruncate(vm->ram_fd, (off_t)vm->ram_size) < 0) {
			pr_err("cannot create %llu bytes of shared guest RAM (memfd): %s",
			       (unsigned long long)vm->ram_size, strerror(errno));
			return PMUVM_EXIT_HOST_ERROR;
		}
		vm->ram = mmap(NULL, vm->ram_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_NORESERVE, vm->ram_fd, 0);
	} else {
		vm->ram = mmap(NULL, vm->ram_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	}
	if (vm->ram == MAP_FAILED) {
		vm->ram = NULL;
		pr_err("cannot reserve %llu bytes of guest RAM: %s",
		       (unsigned long long)vm->ram_size, strerror(errno));
		return PMUVM_EXIT_HOST_ERROR;
	}
	madvise(vm->ram, vm->ram_size, MADV_MERGEABLE);

	guest_mem_layout(&vm->mem, vm->ram, vm->ram_size);
	for (i = 0; i < vm->mem.nr; i++) {
		const struct mem_region *m = &vm->mem.regions[i];
		struct kvm_userspace_memory_region r = {
			.slot = i,
			.guest_phys_addr = m->gpa,
			.memory_size = m->size,
			.userspace_addr = (uintptr_t)m->hva,
		};

		if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &r) < 0) {
			pr_err("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
			return PMUVM_EXIT_NO_KVM;
		}
	}
	return 0;
}

static int vm_check_cpus(struct vm *vm)
{
	int max = kvm_cap(vm->kvm_fd, KVM_CAP_MAX_VCPUS);

	if (max <= 0)
		max = kvm_cap(vm->kvm_fd, KVM_CAP_NR_VCPUS);
	if (max <= 0)
		max = 4;	/* KVM's documented minimum when neither cap exists */
	if (vm->cfg->nr_cpus > (unsigned int)max) {
		pr_err("--cpus %u: KVM on this host allows at most %d vCPUs per VM",
		       vm->cfg->nr_cpus, max);
		return PMUVM_EXIT_USAGE;
	}
	return 0;
}

/* The board's features' VM-wide state, in list order. */
static int vm_init_features(struct vm *vm)
{
	size_t i;
	int r;

	for (i = 0; i < vm->board->nr_features; i++) {
		if (!vm->board->features[i]->vm_init)
			continue;
		r = vm->board->features[i]->vm_init(vm);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Where KVM emulates guest kernel mode (kvm_pvm), a Linux kernel boots for
 * many minutes (docs/counting.md, "kvm_pvm"): kept in the report's debug.host,
 * and said once the kernel is loaded (vm_create_vcpus), so nobody waits on
 * it unwarned.
 */
static void vm_probe_kernel_speed(struct vm *vm)
{
	int r = kvm_probe_kernel_speed(&vm->probes, &vm->kernel_mode_emulated,
				       &vm->kernel_mode_slowdown);

	if (r) {
		pr_info("kernel-mode speed probe failed (%s)", strerror(-r));
		return;
	}
	/* The ratio is whole: 0 means faster than user mode (QEMU TCG's CPL3 is the slower). */
	pr_info("guest kernel mode (CPL0) runs %s: %s%ux the time of user mode",
		vm->kernel_mode_emulated ? "in KVM's instruction emulator" : "natively",
		vm->kernel_mode_slowdown ? "" : "under ",
		vm->kernel_mode_slowdown ? vm->kernel_mode_slowdown : 1);
}

int vm_create(struct vm *vm, const struct pmuvm_config *cfg, const struct board *board)
{
	int r;

	memset(vm, 0, sizeof(*vm));
	vm->cfg = cfg;
	vm->board = board;
	vm->kvm_fd = vm->vm_fd = vm->ram_fd = -1;
	kvm_probes_init(&vm->probes, -1);
	vm->ram_size = cfg->mem_size;
	vm_stop_init(vm);

	r = kvm_open(cfg->kvm_device, &vm->kvm_fd);
	if (r)
		return r;
	kvm_probes_init(&vm->probes, vm->kvm_fd);
	r = kvm_check_caps(vm->kvm_fd, cfg->test_hide_cap);
	if (r)
		return r;
	r = vm_check_cpus(vm);
	if (r)
		return r;
	vm_probe_kernel_speed(vm);
	if (kvm_probe_exit_cost(&vm->probes, &vm->exit_cost_ns, &vm->kernel_exit_cost_ns))
		pr_info("exit-cost probe failed: cycles include the host's exits");
	else
		pr_info("an exit costs %llu ns of vCPU time inside KVM_RUN to pmuvm, %llu ns handled by KVM: not counted as cycles",
			(unsigned long long)vm->exit_cost_ns,
			(unsigned long long)vm->kernel_exit_cost_ns);
	if (kvm_probe_msr_exit_cost(&vm->probes, &vm->msr_exit_cost_ns))
		pr_info("MSR exit-cost probe failed: an MSR exit counts as any other");
	else
		pr_info("an MSR exit to pmuvm costs %llu ns of vCPU time inside KVM_RUN: not counted as cycles",
			(unsigned long long)vm->msr_exit_cost_ns);

	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0) {
		pr_err("KVM_CREATE_VM: %s", strerror(errno));
		return PMUVM_EXIT_NO_KVM;
	}
	r = vm_setup_memory(vm);
	if (r)
		return r;
	/* Needed on VMX before the irqchip; other backends may not implement it. */
	if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, VM_TSS_ADDR) < 0)
		pr_debug("KVM_SET_TSS_ADDR: %s (ignored)", strerror(errno));
	if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0) {
		pr_err("KVM_CREATE_IRQCHIP: %s", strerror(errno));
		return PMUVM_EXIT_NO_KVM;
	}
	/*
	 * Linux calibrates against the PIT and takes IRQ 0 from it; the
	 * multiboot guests have no use for one (and a hostile one would
	 * program it), so only Linux boots get it (KVM_CREATE_PIT2, api.rst).
	 */
	if (cfg->boot_linux) {
		struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };

		if (ioctl(vm->vm_fd, KVM_CREATE_PIT2, &pit) < 0) {
			pr_err("KVM_CREATE_PIT2: %s", strerror(errno));
			return PMUVM_EXIT_NO_KVM;
		}
	}
	if (cfg->nr_cpus > 255) {
		struct kvm_enable_cap x2 = {
			.cap = KVM_CAP_X2APIC_API,
			.args[0] = KVM_X2APIC_API_USE_32BIT_IDS,
		};

		if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &x2) < 0) {
			pr_err("--cpus %u: needs KVM_CAP_X2APIC_API: %s", cfg->nr_cpus,
			       strerror(errno));
			return PMUVM_EXIT_NO_KVM;
		}
	}
	r = cpuid_load_supported(vm);
	if (r)
		return r;
	r = vm_init_features(vm);
	/* The features' probes (pmu/pmu.c) have run. */
	kvm_probes_close(&vm->probes);
	if (r)
		return r;
	return pio_bus_init(vm);
}

int vm_create_vcpus(struct vm *vm)
{
	unsigned int i;
	int r;

	if (vm->kernel_mode_emulated && vm->linux_boot)
		pr_warn("this host's KVM emulates guest kernel mode (CPL0 %ux slower than user mode): a Linux boot takes many minutes here",
			vm->kernel_mode_slowdown);
	vm->vcpus = calloc(vm->cfg->nr_cpus, sizeof(*vm->vcpus));
	if (!vm->vcpus) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	for (i = 0; i < vm->cfg->nr_cpus; i++) {
		r = vcpu_create(vm, &vm->vcpus[i], i);
		if (r)
			return r;
		vm->nr_vcpus++;
	}
	return 0;
}

void vm_destroy(struct vm *vm)
{
	unsigned int i;

	for (i = 0; i < vm->nr_vcpus; i++)
		vcpu_destroy(&vm->vcpus[i]);
	free(vm->vcpus);
	pio_bus_exit(vm);
	mmio_bus_exit(vm);
	for (i = vm->board ? vm->board->nr_features : 0; i-- > 0;)
		if (vm->board->features[i]->vm_exit)
			vm->board->features[i]->vm_exit(vm);
	free(vm->supported_cpuid);
	if (vm->ram)
		munmap(vm->ram, vm->ram_size);
	if (vm->ram_fd >= 0)
		close(vm->ram_fd);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	kvm_probes_close(&vm->probes);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	vm->vcpus = NULL;
	vm->ram = NULL;
	vm->vm_fd = vm->kvm_fd = vm->ram_fd = -1;
}
