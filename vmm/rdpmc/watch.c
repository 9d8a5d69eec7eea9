/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDPMC where KVM answers it itself (SVM and VMX intercept it, and a KVM
 * whose own vPMU is on for the guest answers from counters pmuvm keeps at
 * 0, with no exit). The instruction never exits, but it can be found and
 * watched: a guest reads a counter shortly after programming or stopping
 * it, so each PMU MSR access opens a window of single steps
 * (rdpmc/window.c), asked of the source that steps (pmu/listen.h), in which
 * every RDPMC stepped is corrected (rdpmc/stepped.c), and each RDPMC found
 * becomes an execution breakpoint (DR1-DR3) answered here from pmuvm's
 * counters when it fires. An image whose symbol table shows all its RDPMCs
 * (rdpmc/sites.c) has them watched from the start. Only where breakpoints
 * fire (kvm/probe.c) and a source steps: elsewhere windows never end.
 * Design: docs/counting.md, "RDPMC that KVM answers" and "Discovery windows".
 */
#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "mem/pagewalk.h"
#include "pmu/listen.h"
#include "pmu/vcpu_pmu.h"
#include "rdpmc/rdpmc.h"

/*
 * What the source that steps must know of the discovery: a window is open
 * (step now), and discovery is not over where KVM answers RDPMC (keep the
 * kernel stepped: a kernel run unstepped has only its watched RDPMCs
 * answered).
 */
static void rdpmc_watch_publish(struct vcpu *vcpu)
{
	const struct rdpmc_watch *w = &vcpu->pmu->rdpmc->watch;
	struct pmu_stepping *st = &vcpu->pmu->step;

	st->wanted = w->window != 0;
	st->kernel_wanted = vcpu->vm->pmu->caps.rdpmc_by_kvm && w->on && !w->settled;
}

/* A PMU MSR access exited to pmuvm: rdpmc_window_open(). */
static void rdpmc_watch_msr_access(struct vcpu *vcpu, bool counting)
{
	rdpmc_window_open(&vcpu->pmu->rdpmc->watch, counting);
	rdpmc_watch_publish(vcpu);
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
	vcpu->pmu->rdpmc->watch.quiet = 0;
	if (d->nr_watch == GUEST_DEBUG_WATCH_MAX)
		vcpu->pmu->rdpmc->watch.settled = true;
	pr_info("vCPU %d: RDPMC at %#llx watched", vcpu->id, (unsigned long long)rip);
}

/* A step ended (in a window or not); an RDPMC that retired is watched from now on. */
static void rdpmc_watch_stepped(struct vcpu *vcpu, struct pmu_step *st)
{
	/* The image's RDPMCs turned into RDMSRs need no watching (rdpmc/trap.c). */
	if (st->rdpmc && st->retired && !rdpmc_trap_at(vcpu, st->rip))
		rdpmc_watch_learn(vcpu, st->rip);
	rdpmc_window_step(&vcpu->pmu->rdpmc->watch, vcpu->dbg.nr_watch);
	rdpmc_watch_publish(vcpu);
}

static const struct pmu_listener rdpmc_watch_listener = {
	.msr_access = rdpmc_watch_msr_access,
	.stepped = rdpmc_watch_stepped,
};

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
	/* An instruction the source that steps counts is left to its step. */
	if ((vpmu_counted_events_at(&vcpu->pmu->model, cpl) & vcpu->pmu->step.events) ||
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
	vcpu->pmu->rdpmc->watch.answered++;
	return true;
}

/* A watched RDPMC is next: answer it, or step it (rdpmc/stepped.c corrects it). */
static bool rdpmc_watch_debug_exit(struct vcpu *vcpu)
{
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc->watch;

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
	rdpmc_watch_publish(vcpu);
	return true;
}

/* The image's RDPMCs, where its scan found them all (rdpmc/sites.c), watched from the start. */
static void rdpmc_watch_image(struct vcpu *vcpu)
{
	const struct rdpmc_vm *v = vcpu->vm->pmu->rdpmc;
	struct rdpmc_watch *w = &vcpu->pmu->rdpmc->watch;
	struct vcpu_debug *d = &vcpu->dbg;
	int i;

	if (v->nr_image < 0)
		return;
	for (i = 0; i < v->nr_image; i++)
		d->watch[i] = v->image[i];
	d->nr_watch = (unsigned int)v->nr_image;
	w->from_image = d->nr_watch;
	w->settled = true;
	if (d->nr_watch && guest_debug_apply(vcpu) < 0)
		pr_warn("vCPU %d: cannot set the RDPMC breakpoints: RDPMC reads KVM's value", vcpu->id);
}

/*
 * With no PMU (version 0) only where KVM answers RDPMC: each watched one is
 * then stepped, and rdpmc/stepped.c raises the #GP a CPU without a PMU
 * gives (SDM vol. 2B RDPMC).
 */
static int rdpmc_watch_vcpu_init(struct vcpu *vcpu)
{
	const struct pmu_host_caps *caps = &vcpu->vm->pmu->caps;

	if ((!vcpu->vm->cfg->pmu.version && !caps->rdpmc_by_kvm) || !caps->hw_breakpoints ||
	    !vcpu->pmu->step.on)
		return VCPU_FEATURE_OFF;
	if (pmu_listen(vcpu, &rdpmc_watch_listener)) {
		pr_err("vCPU %d: too many PMU listeners", vcpu->id);
		return PMUVM_EXIT_HOST_ERROR;
	}
	vcpu->pmu->rdpmc->watch.on = true;
	rdpmc_watch_image(vcpu);
	rdpmc_watch_publish(vcpu);
	return 0;
}

const struct vcpu_feature rdpmc_watch_feature = {
	.name = "rdpmc-watch",
	.vcpu_init = rdpmc_watch_vcpu_init,
	.debug_exit = rdpmc_watch_debug_exit,
};
