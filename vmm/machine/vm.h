/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine: KVM handles, guest memory, the vCPUs, and the stop protocol.
 * What runs on it (devices, vCPU features) comes from a board (vmm/board.c);
 * the machine calls them only through their tables.
 */
#ifndef PMUVM_VM_H
#define PMUVM_VM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "kvm/probe.h"
#include "machine/feature.h"
#include "machine/pio.h"
#include "machine/vcpu.h"
#include "mem/guest_mem.h"

struct multiboot_boot;
struct linux_boot;
struct vm_pmu;

/* What a VM is built from, in order. */
struct board {
	const struct vm_device *const *devices;
	size_t nr_devices;
	const struct vcpu_feature *const *features;
	size_t nr_features;
};

/* Why the VM stopped; the first reason set wins. */
enum vm_stop_reason {
	VM_RUNNING = 0,
	VM_STOP_DEBUG_EXIT,
	VM_STOP_SHUTDOWN_EVENT,
	VM_STOP_POWEROFF,		/* ACPI S5 (dev/acpi_pm.c) */
	VM_STOP_TRIPLE_FAULT,
	VM_STOP_RESET,
	VM_STOP_KVM_ERROR,
	VM_STOP_TIMEOUT,
	VM_STOP_HOST_ERROR,
	VM_STOP_SIGNAL,			/* SIGINT, SIGTERM or SIGHUP (signals.c) */
};

struct vm {
	const struct pmuvm_config *cfg;
	const struct board *board;
	int kvm_fd;
	int vm_fd;
	struct kvm_probes probes;	/* the start-up probes' VM, closed once all ran */

	uint8_t *ram;			/* one host mapping of all guest RAM */
	uint64_t ram_size;
	struct guest_mem mem;		/* guest-physical layout of ram */

	struct kvm_cpuid2 *supported_cpuid;
	uint64_t tsc_khz;		/* KVM_GET_TSC_KHZ of the first vCPU */
	bool kernel_mode_emulated;	/* KVM emulates guest CPL0 (kvm/probe.h) */
	unsigned int kernel_mode_slowdown;	/* CPL0 time / CPL3 time of one loop */
	uint64_t exit_cost_ns;		/* CPU time of one exit to userspace (kvm/probe.h) */
	uint64_t kernel_exit_cost_ns;	/* ...of one exit KVM handles itself */
	uint64_t msr_exit_cost_ns;	/* ...of one MSR exit to userspace, or 0 */

	struct vcpu *vcpus;
	unsigned int nr_vcpus;

	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	enum vm_stop_reason stop_reason;
	int exit_status;		/* process exit status decided at stop */
	uint32_t debug_exit_value;
	int stop_signal;		/* VM_STOP_SIGNAL: which one */
	int signal_pending;		/* vm_signal() asked, vm_run() stops (stop_lock) */

	/*
	 * Called every tick_period_s by the thread waiting in vm_run() while
	 * the guest runs (progress.c); NULL: never.
	 */
	void (*tick)(struct vm *vm);
	double tick_period_s;

	const struct multiboot_boot *boot;	/* entry point and MBI address */
	const struct linux_boot *linux_boot;	/* or a Linux kernel's 64-bit entry */

	struct timespec start_time, stop_time;
	struct pio_bus *pio;
	struct mmio_bus *mmio;		/* machine/mmio.c; NULL: no MMIO devices */
	int ram_fd;			/* memfd behind ram (cfg->shared_ram, exact_emulate), else -1 */
	struct uart *uart;
	struct fw_cfg *fw_cfg;
	struct virtio_fs_set *virtio_fs;	/* dev/virtio_fs.c */
	struct ucall_log *ucall;	/* guest results (dev/ucall.c) */

	struct vm_pmu *pmu;		/* the PMU layer's VM-wide state (pmu/vcpu_pmu.h) */
};

/* VM, memory, irqchip, features' VM state, devices: 0, or a PMUVM_EXIT_* code after one line. */
int vm_create(struct vm *vm, const struct pmuvm_config *cfg, const struct board *board);
/* After the image is loaded (the BSP starts at vm->boot's entry). */
int vm_create_vcpus(struct vm *vm);
void vm_destroy(struct vm *vm);

/* The stop protocol's lock and condition (run.c): once, by vm_create(). */
void vm_stop_init(struct vm *vm);
/* Starts the vCPU threads, waits until the guest stops; returns the exit status. */
int vm_run(struct vm *vm);

/*
 * Requests a stop (first caller wins); safe from any thread. The exit status
 * follows from the reason (vmm/exitcode.h).
 */
void vm_stop(struct vm *vm, enum vm_stop_reason reason);
/* The guest wrote `value` to isa-debug-exit: status (value << 1) | 1. */
void vm_stop_debug_exit(struct vm *vm, uint32_t value);
bool vm_stopping(struct vm *vm);
/*
 * A stop signal arrived: vm_run() stops the VM with VM_STOP_SIGNAL, status
 * 128 + sig. Safe from any thread once vm_create() has begun.
 */
void vm_signal(struct vm *vm, int sig);

#endif
