/*
 * RDPMC where KVM answers it itself.  SVM and VMX intercept RDPMC, and a
 * KVM whose own vPMU is nominally on for the guest (kvm_amd in Linux 6.1,
 * even with enable_pmu=0: kvm/probe.c) completes it from that vPMU, which
 * pmuvm's MSR filter keeps at 0, with no exit to userspace.  A guest that
 * reads its counters with RDPMC, as Linux's perf does in
 * x86_perf_event_update(), would read 0.
 *
 * The instruction never exits, but it can be found and watched: a guest
 * reads a counter shortly after programming or stopping it, so each PMU MSR
 * access opens a window of RDPMC_WATCH_WINDOW single steps (the exact
 * source does the stepping and corrects every RDPMC it steps,
 * exact_rdpmc_fixup()).  Each RDPMC found there becomes an execution
 * breakpoint (DR1-DR3, vcpu->dbg.watch) at its linear address; when one
 * fires, that one instruction is stepped and corrected.  Discovery ends
 * when the breakpoints are all in use, after RDPMC_WATCH_QUIET windows that
 * found nothing new, or after RDPMC_WATCH_BUDGET windows that found no
 * RDPMC at all.  An RDPMC outside any window and not watched still reads
 * KVM's value: the report's pmu.rdpmc_watch says what was found (README,
 * "Where counts come from").
 *
 * All of it only where breakpoints fire (kvm/probe.c).  Where they do not
 * (the lab's nested KVM) windows could never end, and endless windows cost
 * too much there: every PMI's MSR accesses followed by 256 steps slowed
 * guests several-fold and showed up as kernel cycles in every profile
 * (README, "perf in the guest").
 *
 * A breakpoint is a linear address: in another address space the same
 * address may hold other code, which is then stepped once and left alone.
 */
#include "log.h"
#include "machine/vm.h"
#include "pmu/pmu.h"
#include "pmu/rdpmc.h"
#include "pmu/vcpu_pmu.h"

void rdpmc_watch_msr_access(struct vcpu *vcpu)
{
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc_watch;

	if (w->settled)
		return;
	if (!w->window)
		w->windows++;
	w->window = RDPMC_WATCH_WINDOW;
}

static void rdpmc_watch_learn(struct vcpu *vcpu, uint64_t rip)
{
	struct vcpu_debug *d = &vcpu->dbg;
	unsigned int i;

	for (i = 0; i < d->nr_watch; i++)
		if (d->watch[i] == rip)
			return;
	if (d->nr_watch == GUEST_DEBUG_WATCH_MAX)
		return;
	d->watch[d->nr_watch++] = rip;
	vcpu->pmu->rdpmc_watch.quiet = 0;
	pr_info("vCPU %d: RDPMC at %#llx watched", vcpu->id, (unsigned long long)rip);
}

/* A window ended: discovery may be over. */
static void rdpmc_watch_window_end(struct vcpu *vcpu)
{
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc_watch;
	unsigned int n = vcpu->dbg.nr_watch;

	w->window = 0;
	if (n == GUEST_DEBUG_WATCH_MAX || (n && ++w->quiet >= RDPMC_WATCH_QUIET) ||
	    (!n && w->windows >= RDPMC_WATCH_BUDGET))
		w->settled = true;
}

void rdpmc_watch_stepped(struct vcpu *vcpu, uint64_t rip, bool rdpmc)
{
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc_watch;

	if (rdpmc && vcpu->vm->pmu->caps.hw_breakpoints && vcpu->pmu->exact)
		rdpmc_watch_learn(vcpu, rip);
	if (!w->window)
		return;
	w->window_steps++;
	if (!--w->window)
		rdpmc_watch_window_end(vcpu);
}

/* A watched RDPMC is next: step it (the exact source corrects it). */
static bool rdpmc_watch_debug_exit(struct vcpu *vcpu)
{
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc_watch;

	if (guest_debug_watch_hit(vcpu) < 0)
		return false;
	w->hits++;
	if (!w->window)
		w->window = 1;
	return true;
}

static int rdpmc_watch_vcpu_init(struct vcpu *vcpu)
{
	if (!vcpu->vm->cfg->pmu.version || !vcpu->vm->pmu->caps.hw_breakpoints || !vcpu->pmu->exact)
		return VCPU_FEATURE_OFF;
	vcpu->pmu->rdpmc_watch.on = true;
	return 0;
}

const struct vcpu_feature pmu_rdpmc_watch_feature = {
	.name = "rdpmc-watch",
	.vcpu_init = rdpmc_watch_vcpu_init,
	.debug_exit = rdpmc_watch_debug_exit,
};
