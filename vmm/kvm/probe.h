/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Start-up probes of what this host's KVM does that pmuvm depends on, each
 * on a new vCPU of one throwaway VM (probe.c): 0 and the answer, or -errno
 * if the probe itself could not run.
 */
#ifndef PMUVM_KVM_PROBE_H
#define PMUVM_KVM_PROBE_H

#include <stdbool.h>
#include <stdint.h>

/* The probes' VM, made by the first probe that runs; kvm_probes_close() frees it. */
struct kvm_probes {
	int kvm_fd, vm;
	uint8_t *mem;
	struct kvm_cpuid2 *cpuid;	/* KVM_GET_SUPPORTED_CPUID, each probe vCPU's */
	unsigned int nr_vcpus;		/* made so far: the next vCPU's id */
};

void kvm_probes_init(struct kvm_probes *ps, int kvm_fd);
void kvm_probes_close(struct kvm_probes *ps);

/* Does KVM_GUESTDBG_SINGLESTEP step CPL3 code? */
int kvm_probe_user_step(struct kvm_probes *ps, bool *can_step);

/* The NOPs that probe steps, and the debug exits that may leave RIP where it was. */
#define KVM_PROBE_STEP_NOPS	4
#define KVM_PROBE_STEP_STALLS	16

struct kvm_probe_step_walk {
	uint64_t rip;			/* where the last step left RIP */
	unsigned int steps, stalls;
};

/*
 * One exit of that probe's vCPU (a debug exit at `cpl` and `rip`, or
 * another): true while the walk goes on, w->steps the NOPs stepped one at a
 * time.
 */
bool kvm_probe_step_seen(struct kvm_probe_step_walk *w, bool debug_exit, unsigned int cpl,
			 uint64_t rip);
/* Does KVM answer a guest's RDPMC of counter `ecx` itself instead of raising #GP? */
int kvm_probe_rdpmc(struct kvm_probes *ps, uint32_t ecx, bool *answered_by_kvm);
/* Does single-stepping follow an exception into its handler? */
int kvm_probe_handler_step(struct kvm_probes *ps, bool *steps_into);
/*
 * Does KVM emulate guest kernel mode (CPL0) instead of running it natively?
 * *slowdown: how many times longer the same loop took at CPL0 than at CPL3.
 */
int kvm_probe_kernel_speed(struct kvm_probes *ps, bool *emulated, unsigned int *slowdown);
/*
 * The vCPU thread's CPU time inside KVM_RUN for one exit to userspace, and
 * for one exit KVM handles itself (a CPUID), in ns.
 */
int kvm_probe_exit_cost(struct kvm_probes *ps, uint64_t *user_ns, uint64_t *kernel_ns);
/*
 * The vCPU thread's CPU time inside KVM_RUN for one WRMSR at CPL0 that
 * exits to userspace through the MSR filter, in ns. Where the CPU does not
 * save the next RIP on such an exit (SVM without NRIP save: APM Vol. 2
 * 15.7.1) KVM decodes the instruction itself, and the exit costs several
 * times an OUT's.
 */
int kvm_probe_msr_exit_cost(struct kvm_probes *ps, uint64_t *ns);
/* Does single-stepping go on after an instruction KVM's emulator completed (an MMIO load)? */
int kvm_probe_step_after_emulation(struct kvm_probes *ps, bool *keeps_stepping);
/* Do execution breakpoints (KVM_GUESTDBG_USE_HW_BP) fire? */
int kvm_probe_hw_breakpoint(struct kvm_probes *ps, bool *fires);

#endif
