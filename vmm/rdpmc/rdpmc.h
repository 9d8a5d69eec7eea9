/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDPMC, a vCPU feature of the PMU: the guest's RDPMCs read pmuvm's
 * counters although RDPMC never exits to userspace (docs/counting.md,
 * "RDPMC"). Where it faults, it is completed at a breakpoint on the guest's
 * #GP handler (gp.c); where KVM answers it itself, each one a step shows is
 * corrected (stepped.c), and the guest's RDPMCs are found (in the image,
 * sites.c, or in discovery windows, window.c) and watched with breakpoints
 * (watch.c) or turned into RDMSRs that exit (trap.c). It reaches the PMU
 * and the stepping source only through the PMU layer (pmu/listen.h).
 */
#ifndef PMUVM_RDPMC_H
#define PMUVM_RDPMC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine/guest_debug.h"
#include "mem/pagewalk.h"

/* Completion at the #GP handler (gp.c). */
struct rdpmc_gp {
	uint64_t idt_base;		/* IDTR the breakpoint was placed for */
	uint16_t idt_limit;
	const uint8_t *gate;		/* the #GP gate in host memory, NULL: walk */
	uint64_t gate_la;		/* ...for this linear address */
	struct paging_state gate_ps;	/* ...and these paging registers */
	uint8_t gate_bytes[16];		/* the gate as last read */
	uint64_t emulated;		/* RDPMCs completed by pmuvm */
	uint64_t passed_on;		/* other #GPs that went to the guest's handler */
	/* No breakpoint yet: KVM answers what the guest has set so far (rdpmc/gp.c). */
	bool waiting;
};

/*
 * Where KVM answers RDPMC itself and breakpoints fire: a window of single
 * steps follows each PMU MSR access, looking for the RDPMC that reads what
 * was just set up; each one found becomes an execution breakpoint
 * (vcpu->dbg.watch).
 */
/*
 * Instructions stepped after a PMU MSR access: longer while a counter
 * counts. Linux 6.1's perf reads a counter (native_read_pmc) more than 256
 * instructions after its last PMU MSR access on some paths: with 256, the
 * first perf stat after boot in the lab read KVM's 0 before the site was
 * found; with 2048 it was found at once.
 */
#define RDPMC_WATCH_WINDOW	256
#define RDPMC_WATCH_WINDOW_COUNTING	2048
#define RDPMC_WATCH_QUIET	16384	/* window steps with nothing new: discovery ends */
#define RDPMC_WATCH_BUDGET	65536	/* window steps without any RDPMC: discovery ends */

struct rdpmc_watch {
	uint32_t window;		/* instructions still to step, looking for an RDPMC */
	uint32_t quiet;			/* window steps since the last new RDPMC */
	bool on;			/* the feature runs on this vCPU (breakpoints fire) */
	bool settled;			/* discovery over: no more windows */
	bool window_counting;		/* the open window's access had counters counting */
	bool idle_done;			/* no more windows after accesses while nothing counts */
	uint64_t idle_window_steps;	/* window steps after such accesses */
	/* Report. */
	uint64_t windows, window_steps;	/* windows opened; steps they took */
	uint64_t hits;			/* watched RDPMCs reached */
	uint64_t answered;		/* ...of them, answered at the breakpoint (not stepped) */
	unsigned int from_image;	/* watched from the start: the image's own (rdpmc/sites.c) */
};

/* The image's RDPMCs turned into RDMSRs (rdpmc/trap.c): per vCPU, for the report. */
struct rdpmc_trap {
	uint64_t hits;			/* RDMSR exits at one of them */
	uint64_t answered;		/* ...completed as the RDPMC */
	uint64_t faulted;		/* ...#GP(0) raised instead, as this PMU would */
};

/* RDPMCs a source stepped where KVM answered them (rdpmc/stepped.c), for the report. */
struct rdpmc_stepped {
	uint64_t corrected;		/* EDX:EAX from pmuvm's counters */
	uint64_t faulted;		/* ...undone with a #GP (no such counter here) */
};

/* Per vCPU (vcpu->pmu->rdpmc). */
struct rdpmc_vcpu {
	struct rdpmc_gp gp;
	struct rdpmc_watch watch;
	struct rdpmc_trap trap;
	struct rdpmc_stepped stepped;
};

/* Per VM (vm->pmu->rdpmc): what the image's scan found (rdpmc/sites.c). */
struct rdpmc_vm {
	/* The image's RDPMCs, all of them, watched from the start; -1: not known. */
	int nr_image;
	uint64_t image[GUEST_DEBUG_WATCH_MAX];
	/* ...or, where there are more, each turned into an RDMSR (rdpmc/trap.c): how many. */
	unsigned int nr_traps;
};

struct kvm_msr_span;
struct kvm_sregs;
struct pmu_listener;
struct symtab;
struct vcpu;
struct vcpu_feature;
struct vm;
struct vpmu_config;

/*
 * The features, in the board's order (vmm/board.c): the traps' MSRs before
 * the PMU's; the state on every vCPU, with the stepped RDPMCs' correction;
 * completion at the #GP handler; the watch, after the exact source, which
 * steps for it.
 */
extern const struct vcpu_feature rdpmc_trap_feature;
extern const struct vcpu_feature rdpmc_feature;
extern const struct vcpu_feature rdpmc_gp_feature;
extern const struct vcpu_feature rdpmc_watch_feature;

/* The listener that corrects stepped RDPMCs where KVM answers RDPMC (stepped.c). */
extern const struct pmu_listener rdpmc_stepped_listener;

/*
 * The RDPMC instructions in the functions of `t` that decode (as 64-bit
 * code) to their ends: how many there are; the first `max` linear
 * addresses go to `sites`. *complete is false if some function did not, or
 * the image may hold RDPMCs outside its functions.
 */
int rdpmc_sites_scan(const struct symtab *t, uint64_t *sites, unsigned int max, bool *complete);
/*
 * The guest image is loaded: where KVM answers RDPMC and breakpoints fire,
 * its RDPMCs, if its symbol table shows at most as many as there are
 * breakpoints, are watched from the start (vm->pmu->rdpmc->image).
 */
void rdpmc_sites_from_image(struct vm *vm, const uint8_t *image, size_t size);

/*
 * What the RDPMC at linear address `rip`, run at `cpl` with ECX = `ecx`,
 * reads from pmuvm's counters: 0 and *val, or -EINVAL where the bytes there
 * are not RDPMC or it would fault on a CPU with this PMU (CPL above 0
 * without CR4.PCE, no such counter: SDM vol. 2B RDPMC).
 */
int rdpmc_value(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t rip, unsigned int cpl,
		uint32_t ecx, uint64_t *val);
/*
 * Turns the image's `n` RDPMCs at `sites` (linear addresses, identity
 * mapped at load) into RDMSRs and routes those reads to pmuvm: 0, or
 * -errno with none of them changed.
 */
int rdpmc_trap_image(struct vm *vm, const uint64_t *sites, unsigned int n);
/*
 * The MSRs such RDMSRs read that go to pmuvm (rdpmc/trap.c), as KVM MSR
 * filter spans for a PMU `cfg` on a host whose KVM answers RDPMC of GP
 * counters 0 .. kvm_gp - 1 and fixed 0 .. kvm_fixed - 1: how many of
 * RDPMC_TRAP_MAX_SPANS went to `s`. Pure, unit-tested.
 */
#define RDPMC_TRAP_MAX_SPANS	4
unsigned int rdpmc_trap_spans(const struct vpmu_config *cfg, unsigned int kvm_gp,
			      unsigned int kvm_fixed, struct kvm_msr_span *s);
/* Is the instruction at linear address `rip` one of those RDMSRs, still in place? */
bool rdpmc_trap_at(struct vcpu *vcpu, uint64_t rip);
/* An RDPMC at `rip` retired without being stepped: the sources count it. */
void rdpmc_retired(struct vcpu *vcpu, uint64_t rip, unsigned int cpl);

/*
 * Window bookkeeping (rdpmc/window.c), no vCPU needed. Open: a PMU MSR
 * access, with `counting` if some counter counted before or after it,
 * opens or lengthens a window while discovery goes on. Step: one window
 * step ended with `nr_watch` RDPMCs known; discovery may end. False if no
 * window was open.
 */
void rdpmc_window_open(struct rdpmc_watch *w, bool counting);
bool rdpmc_window_step(struct rdpmc_watch *w, unsigned int nr_watch);

#endif
