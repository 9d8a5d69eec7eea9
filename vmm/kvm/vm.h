/* The virtual machine: KVM handles, guest memory, vCPUs and the stop protocol. */
#ifndef PMUVM_VM_H
#define PMUVM_VM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "exact/exact.h"
#include "kvm/guest_debug.h"
#include "pmu/rdpmc.h"
#include "mem/guest_mem.h"
#include "pebs/pebs.h"
#include "pmu/source.h"
#include "vpmu/vpmu.h"

struct vm;
struct multiboot_boot;
struct profile_buf;

/* Exit kinds counted per vCPU for the report. */
enum vcpu_exit_kind {
	VCPU_EXIT_IO,
	VCPU_EXIT_MMIO,
	VCPU_EXIT_MSR_READ,
	VCPU_EXIT_MSR_WRITE,
	VCPU_EXIT_HLT,
	VCPU_EXIT_INTR,
	VCPU_EXIT_DEBUG,
	VCPU_EXIT_SHUTDOWN,
	VCPU_EXIT_SYSTEM_EVENT,
	VCPU_EXIT_INTERNAL_ERROR,
	VCPU_EXIT_OTHER,
	VCPU_EXIT_NR,
};

extern const char *const vcpu_exit_kind_names[VCPU_EXIT_NR];

struct vcpu {
	struct vm *vm;
	int id;
	int fd;
	struct kvm_run *run;
	size_t run_size;
	pthread_t thread;
	bool thread_started;

	struct vpmu pmu;
	struct pmu_clock clock;
	struct exact_state exact;
	struct vcpu_debug dbg;
	struct rdpmc_state rdpmc;
	uint32_t sources;		/* bit i: pmu.c's source i is active */
	int run_result;			/* the last KVM_RUN's return value */
	bool sync_sregs;		/* kvm_run carries sregs after every exit */
	struct kvm_regs regs_copy;	/* vcpu_state() without sync regs */
	struct kvm_sregs sregs_copy;
	uint64_t pmis_delivered;
	uint64_t pmis_masked;		/* requested while LVTPC was masked: dropped */
	uint64_t pmis_nmi;

	struct profile_buf *profile;	/* --profile samples */
	struct pebs_stats pebs;		/* PEBS assists (vmm/pmu/pebs.c) */

	uint64_t exits[VCPU_EXIT_NR];
	/* PMUVM_BENCH_TIMING=1 (make bench only, run.c): where the thread's time went. */
	uint64_t bench_vmm_ns;		/* between KVM_RUNs: pmuvm's own work */
	uint64_t bench_run_ns;		/* inside KVM_RUN */
};

/* Why the VM stopped; the first reason set wins. */
enum vm_stop_reason {
	VM_RUNNING = 0,
	VM_STOP_DEBUG_EXIT,
	VM_STOP_SHUTDOWN_EVENT,
	VM_STOP_TRIPLE_FAULT,
	VM_STOP_RESET,
	VM_STOP_KVM_ERROR,
	VM_STOP_TIMEOUT,
	VM_STOP_HOST_ERROR,
};

struct vm {
	const struct pmuvm_config *cfg;
	int kvm_fd;
	int vm_fd;

	uint8_t *ram;			/* one host mapping of all guest RAM */
	uint64_t ram_size;
	struct guest_mem mem;		/* guest-physical layout of ram */

	struct kvm_cpuid2 *supported_cpuid;
	uint64_t tsc_khz;
	bool user_step_ok;		/* KVM single-steps CPL3 here (exact/probe.c) */
	bool kvm_pmu_disabled;		/* KVM_PMU_CAP_DISABLE took (vm.c) */
	bool rdpmc_by_kvm;		/* KVM completes guest RDPMC itself (exact/probe.c) */
	bool handler_step_ok;		/* KVM's single-step follows events into handlers */
	bool user_uncounted_warned;
	bool handler_uncounted_warned;

	struct vcpu *vcpus;
	unsigned int nr_vcpus;

	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	enum vm_stop_reason stop_reason;
	int exit_status;		/* process exit status decided at stop */
	uint32_t debug_exit_value;
	unsigned int nr_running;

	const struct multiboot_boot *boot;	/* entry point and MBI address */

	struct timespec start_time, stop_time;
	struct pio_bus *pio;
	struct uart *uart;
	struct fw_cfg *fw_cfg;
	struct ucall_log *ucall;	/* guest results (dev/ucall.c) */
};

/* VM, memory, irqchip, MSR routing, devices: 0, or a PMUVM_EXIT_* code after one line. */
int vm_create(struct vm *vm, const struct pmuvm_config *cfg);
/* After the image is loaded (the BSP starts at vm->boot's entry). */
int vm_create_vcpus(struct vm *vm);
void vm_destroy(struct vm *vm);

/* Starts the vCPU threads, waits until the guest stops; returns the exit status. */
int vm_run(struct vm *vm);

/* Requests a stop (first caller wins); safe from any thread. */
void vm_stop(struct vm *vm, enum vm_stop_reason reason, int exit_status);
bool vm_stopping(struct vm *vm);

#endif
