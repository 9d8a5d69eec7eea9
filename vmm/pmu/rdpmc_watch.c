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
 * access opens a window of RDPMC_WATCH_WINDOW single steps, or
 * RDPMC_WATCH_WINDOW_COUNTING where a counter counted (the exact
 * source does the stepping and corrects every RDPMC it steps,
 * exact_rdpmc_fixup()).  Each RDPMC found there becomes an execution
 * breakpoint (DR1-DR3, vcpu->dbg.watch) at its linear address; when one
 * fires, that one instruction is answered there from pmuvm's counters
 * (rdpmc_watch_answer()), or else stepped and corrected.  Discovery ends
 * when the breakpoints are all in use, after RDPMC_WATCH_QUIET window
 * steps that found nothing new, or after RDPMC_WATCH_BUDGET that found no
 * RDPMC at all: a budget in steps, because a guest that keeps accessing
 * PMU MSRs keeps its window open. Accesses while no counter counts (a
 * driver probing and resetting the PMU at boot) have a budget of their
 * own, which ends only their windows: Linux's boot spent the whole budget
 * before perf first read a counter, and its reads then went unwatched.  An image whose symbol table shows all
 * of its RDPMCs (rdpmc_sites.c) has them watched from the start, and no
 * windows.  An RDPMC outside any window and not watched still reads KVM's
 * value: the report's vcpus[].debug.rdpmc.watch says what was found (README, "Where
 * counts come from").
 *
 * All of it only where breakpoints fire (kvm/probe.c).  Where they do not
 * (nested KVM under QEMU before 9.1) windows could never end, and endless
 * windows cost too much there: every PMI's MSR accesses followed by 256
 * steps slowed guests several-fold and showed up as kernel cycles in every
 * profile.
 *
 * A breakpoint is a linear address: in another address space the same
 * address may hold other code, which is then stepped once and left alone.
 */
#include "exact/exact.h"
#include "log.h"
#include "machine/vm.h"
#include "mem/pagewalk.h"
#include "pmu/pmu.h"
#include "pmu/rdpmc.h"
#include "pmu/vcpu_pmu.h"

void rdpmc_watch_msr_access(struct vcpu *vcpu, bool counting)
{
	rdpmc_window_open(&vcpu->pmu->rdpmc_watch, counting);
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
	if (d->nr_watch == GUEST_DEBUG_WATCH_MAX)
		vcpu->pmu->rdpmc_watch.settled = true;
	pr_info("vCPU %d: RDPMC at %#llx watched", vcpu->id, (unsigned long long)rip);
}

void rdpmc_watch_stepped(struct vcpu *vcpu, uint64_t rip, bool rdpmc)
{
	/* The image's RDPMCs turned into RDMSRs need no watching (rdpmc_trap.c). */
	if (rdpmc && vcpu->vm->pmu->caps.hw_breakpoints && vcpu->pmu->exact &&
	    !rdpmc_trap_at(vcpu, rip))
		rdpmc_watch_learn(vcpu, rip);
	rdpmc_window_step(&vcpu->pmu->rdpmc_watch, vcpu->dbg.nr_watch);
}

/*
 * The watched RDPMC answered where its breakpoint stopped the vCPU, as the
 * instruction would have (RAX/RDX, RIP past it, retired for the sources):
 * no step, whose exit and the two KVM_SET_GUEST_DEBUGs around it cost a
 * PMI handler in the lab more than the rest of its RDPMC. Only in 64-bit
 * code (RIP is the linear address) and where the guest is not tracing
 * itself (RFLAGS.TF: a step delivers its trap); rdpmc_value() checks the
 * bytes there, since another address space may hold other code at the
 * same address. False leaves it to the step.
 */
static bool rdpmc_watch_answer(struct vcpu *vcpu)
{
	struct kvm_sregs *s;
	struct kvm_regs *r;
	unsigned int cpl;
	uint64_t val;

	if (vcpu_state(vcpu, &r, &s) || !(s->efer & X86_EFER_LMA) || !s->cs.l ||
	    (r->rflags & X86_RFLAGS_TF))
		return false;
	cpl = sregs_cpl(s);
	/* An instruction the exact source counts is left to its step. */
	if ((vpmu_counted_events_at(&vcpu->pmu->model, cpl) & vcpu->pmu->exact->events) ||
	    rdpmc_value(vcpu, s, r->rip, cpl, (uint32_t)r->rcx, &val))
		return false;
	if (log_verbosity > 1)
		pr_debug("vCPU %d: RDPMC %#x at %llx answered: %#llx", vcpu->id, (uint32_t)r->rcx,
			 (unsigned long long)r->rip, (unsigned long long)val);
	r->rax = (uint32_t)val;
	r->rdx = val >> 32;
	r->rip += 2;
	if (vcpu_state_changed(vcpu))
		return false;
	rdpmc_retired(vcpu, r->rip - 2, cpl);
	vcpu->pmu->rdpmc_watch.answered++;
	return true;
}

/* A watched RDPMC is next: answer it, or step it (the exact source corrects it). */
static bool rdpmc_watch_debug_exit(struct vcpu *vcpu)
{
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc_watch;

	if (guest_debug_watch_hit(vcpu) < 0)
		return false;
	if (log_verbosity > 1)
		pr_debug("vCPU %d: watched RDPMC at %llx", vcpu->id,
			 (unsigned long long)vcpu->run->debug.arch.pc);
	w->hits++;
	if (!vcpu->dbg.step && rdpmc_watch_answer(vcpu))
		return true;
	if (!w->window)
		w->window = 1;
	return true;
}

static int rdpmc_watch_vcpu_init(struct vcpu *vcpu)
{
	const struct vm_pmu *p = vcpu->vm->pmu;
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc_watch;
	struct vcpu_debug *d = &vcpu->dbg;
	int i;

	if (!vcpu->vm->cfg->pmu.version || !p->caps.hw_breakpoints || !vcpu->pmu->exact)
		return VCPU_FEATURE_OFF;
	w->on = true;
	if (p->nr_image_rdpmc < 0)
		return 0;
	for (i = 0; i < p->nr_image_rdpmc; i++)
		d->watch[i] = p->image_rdpmc[i];
	d->nr_watch = (unsigned int)p->nr_image_rdpmc;
	w->from_image = d->nr_watch;
	w->settled = true;
	if (d->nr_watch && guest_debug_apply(vcpu) < 0)
		pr_warn("vCPU %d: cannot set the RDPMC breakpoints: RDPMC reads KVM's value", vcpu->id);
	return 0;
}

const struct vcpu_feature pmu_rdpmc_watch_feature = {
	.name = "rdpmc-watch",
	.vcpu_init = rdpmc_watch_vcpu_init,
	.debug_exit = rdpmc_watch_debug_exit,
};
