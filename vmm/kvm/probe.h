/*
 * Start-up probes of what this host's KVM does that pmuvm depends on, each
 * in a throwaway VM (probe.c): 0 and the answer, or -errno if the probe
 * itself could not run.
 */
#ifndef PMUVM_KVM_PROBE_H
#define PMUVM_KVM_PROBE_H

#include <stdbool.h>
#include <stdint.h>

/* Does KVM_GUESTDBG_SINGLESTEP step CPL3 code? */
int kvm_probe_user_step(int kvm_fd, bool *can_step);

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
int kvm_probe_rdpmc(int kvm_fd, uint32_t ecx, bool *answered_by_kvm);
/* Does single-stepping follow an exception into its handler? */
int kvm_probe_handler_step(int kvm_fd, bool *steps_into);
/*
 * Does KVM emulate guest kernel mode (CPL0) instead of running it natively?
 * *slowdown: how many times longer the same loop took at CPL0 than at CPL3.
 */
int kvm_probe_kernel_speed(int kvm_fd, bool *emulated, unsigned int *slowdown);
/*
 * The vCPU thread's CPU time inside KVM_RUN for one exit to userspace, and
 * for one exit KVM handles itself (a CPUID), in ns.
 */
int kvm_probe_exit_cost(int kvm_fd, uint64_t *user_ns, uint64_t *kernel_ns);
/* Do execution breakpoints (KVM_GUESTDBG_USE_HW_BP) fire? */
int kvm_probe_hw_breakpoint(int kvm_fd, bool *fires);

#endif
