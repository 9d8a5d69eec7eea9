/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exact source: while any enabled counter counts a retirement event
 * (instructions, branches; with --cycles=model also the cycle events,
 * derived from instructions x --cpi), each retired instruction is counted
 * at the CPL it ran at. This file is the source's policy and its hooks:
 * when to count (and when the kernel may run unstepped instead, krun.c),
 * the counting sources' hooks (pmu/source.h), what PEBS sees. How the
 * instructions are seen is the engine's (engine.h: stepping, step.c, or
 * emulation, emulate.c).
 *
 * Where the host cannot step CPL3 code (kvm_pvm: docs/counting.md, "kvm_pvm"),
 * a KVM_RUN entered at CPL3 runs freely until the next exit; what it retired
 * is not counted and not estimated: said once on stderr, counted in the
 * report.
 */
#include <stdlib.h>

#include "exact/engine.h"
#include "exact/internal.h"
#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/listen.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"

/* What this source counts under `cfg` (pmu/source.h): none with --exact off. */
static uint32_t exact_events(const struct pmuvm_config *cfg)
{
	uint32_t ev = EXACT_EVENTS;

	if (!cfg->exact)
		return 0;
	if (cfg->cycles == CYCLES_MODEL)
		ev |= (1u << PMU_EV_CORE_CYCLES) | (1u << PMU_EV_REF_CYCLES);
	return ev;
}

/*
 * Stepping is worth its cost when it can count something: kernel-mode
 * events, or user-mode ones where the host steps CPL3 (stepping CPL0 then
 * catches the way into user mode).  A USR-only counter on a host that
 * cannot step CPL3 leaves the vCPU at full speed.
 */
static bool exact_wanted(const struct vcpu *vcpu)
{
	uint32_t events = exact_events(vcpu->vm->cfg);

	if (vcpu->pmu->step.wanted)
		return true;		/* a listener asks for steps (pmu/listen.h) */
	if (vpmu_counted_events_at(&vcpu->pmu->model, 0) & events)
		return true;
	return vcpu->vm->pmu->caps.user_step && (vpmu_counted_events_at(&vcpu->pmu->model, 3) & events);
}

/*
 * Where the user code a step just left for the kernel goes on: a SYSCALL's
 * RCX, or the RIP in the frame of the event taken (above the error code,
 * if any: the slot below the user CS). 0 if not known.
 */
static uint64_t exact_user_resume_rip(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	uint64_t frame[3];

	if (!x->krun.on || !x->stepping || x->krun.running || x->cpl != 3 ||
	    vcpu_state(vcpu, &r, &s) || sregs_cpl(s) != 0 || insn_mode_of(s) != INSN_MODE_64)
		return 0;
	if (follow_is_syscall(&x->insn))
		return r->rcx;
	ps = sregs_paging(s);
	if (guest_linear_read(&vcpu->vm->mem, &ps, r->rsp, frame, sizeof(frame)))
		return 0;
	for (unsigned int i = 1; i < 3; i++)
		if ((uint16_t)frame[i] == x->cs)
			return frame[i - 1];
	return 0;
}

/*
 * Whether retirement is counted on the coming KVM_RUN: what exact_wanted()
 * says, unless the kernel runs unstepped instead (krun.c: no trap flag to
 * set again then). A KVM_RUN at CPL3 where user mode cannot be stepped runs
 * uncounted.
 */
static bool exact_decide(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	bool want = exact_wanted(vcpu), user_lost = exact_user_lost(vcpu);
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (user_lost && !vcpu_state(vcpu, &r, &s) && sregs_cpl(s) == 3)
		x->user_runs_uncounted++;
	if (krun_prepare(vcpu, &x->krun, x->events, want, exact_user_resume_rip(vcpu))) {
		want = false;
		x->rearm = false;
	}
	return want;
}

/*
 * What PEBS needs from this source (pmu/vcpu_pmu.h): the eventing IP, and
 * whether a WRMSR counted at its MSR exit is still to complete.
 */
static void exact_publish(struct vcpu *vcpu)
{
	const struct exact_state *x = vcpu->pmu->exact;
	struct vcpu_pmu *p = vcpu->pmu;

	p->eventing_ip_valid = (x->stepping || x->emulated_last) && x->retired;
	p->eventing_ip = x->last_rip;
	p->retire_pending = x->stepping && x->pending && x->counted;
}

/*
 * Whether the coming KVM_RUN is a single step (vcpu_pmu.step_run): not
 * where user mode cannot be stepped and the vCPU is at CPL3, which runs
 * until its next exit.
 */
static bool exact_step_run(struct vcpu *vcpu)
{
	return vcpu->pmu->exact->stepping &&
	       (vcpu->vm->pmu->caps.user_step || vcpu_cpl(vcpu) != 3);
}

static void exact_before_run(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;

	vcpu->pmu->step_run = false;
	/* Nothing stepped and nothing to step: most exits cost nothing here. */
	if (!x->stepping && !(vpmu_counted_events(&vcpu->pmu->model) & x->events) &&
	    !vcpu->pmu->step.wanted && !x->krun.running)
		return;
	x->engine->begin(vcpu, exact_decide(vcpu));
	exact_publish(vcpu);
	vcpu->pmu->step_run = exact_step_run(vcpu);
}

static void exact_after_run(struct vcpu *vcpu)
{
	if (vcpu->pmu->exact->engine->retire(vcpu))
		exact_publish(vcpu);
}

/* The engine's debug exits, then the kernel run's (krun.c). */
static bool exact_debug_exit(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (x->engine->debug_exit(vcpu))
		return true;
	if (!krun_debug_exit(vcpu, &x->krun))
		return false;
	/* A missed return's trap: count the user instruction it came after. */
	if (x->krun.trap_from && x->krun.trap_from != x->krun.trap_to &&
	    !vcpu_state(vcpu, &r, &s))
		exact_catch_up(vcpu, s, x->krun.trap_from, x->krun.trap_to, r->rsp);
	else if (!x->krun.trap_from && x->krun.trap_to)
		x->steps_not_caught_up++;
	x->krun.trap_from = x->krun.trap_to = 0;
	return true;
}

/*
 * The stepped WRMSR of a PMU MSR passed its checks: hardware counts it with
 * the counter state before its write (the one that enables counting is not
 * counted, the one that disables it is). A WRMSR that #GPs never gets
 * here: a faulting instruction does not retire.
 */
static void exact_wrmsr_retires(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!x->stepping || !x->pending || x->counted || !(x->insn.flags & INSN_WRMSR))
		return;
	exact_retire(vcpu, RETIRE_YES);
	x->counted = true;
	exact_publish(vcpu);
}

static void exact_emulated_retire(struct vcpu *vcpu, uint64_t rip, unsigned int cpl)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!x->stepping || !x->pending || x->rip != rip)
		return;
	x->cpl = cpl;
	exact_retire(vcpu, RETIRE_YES);
	x->pending = false;
	exact_publish(vcpu);
}

/* pmuvm delivered a PMI: its handler is followed, or runs unstepped. */
static void exact_pmi_delivered(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (x->stepping && x->follow.on)
		follow_pmi(&x->follow, vcpu->pmu->pmi_nmi);
	else
		exact_handler_unstepped(vcpu);
	exact_emulate_pmi_delivered(vcpu);
}

/*
 * With nothing to count (--exact off), the source still steps the windows
 * that find the guest's RDPMCs where KVM answers RDPMC itself and
 * breakpoints fire (rdpmc/watch.c): without them, Linux's perf read
 * KVM's 0 for every counter, cycles included (perf stat -e cycles printed
 * 2^49 and more in the lab). With no PMU (version 0) too: those steps make
 * the RDPMCs KVM answers #GP.
 */
static bool exact_rdpmc_only(const struct vcpu *vcpu)
{
	const struct pmu_host_caps *caps = &vcpu->vm->pmu->caps;

	return caps->rdpmc_by_kvm && caps->hw_breakpoints;
}

static int exact_vcpu_init(struct vcpu *vcpu)
{
	const struct pmuvm_config *cfg = vcpu->vm->cfg;
	struct exact_state *x;

	if (!exact_events(cfg) && !exact_rdpmc_only(vcpu))
		return VCPU_FEATURE_OFF;
	x = calloc(1, sizeof(*x));
	if (!x) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	x->events = exact_events(cfg);
	/* It steps for the listeners too (pmu/listen.h). */
	vcpu->pmu->step.on = true;
	vcpu->pmu->step.events = x->events;
	x->ref_khz = vcpu->vm->tsc_khz;
	x->core_khz = cfg->cpu_khz ? cfg->cpu_khz : vcpu->vm->tsc_khz;
	/* The benchmark's raw steps (step.c) measure the stepping engine. */
	x->engine = cfg->exact_emulate && !cfg->bench_raw_step ? &exact_emulate_engine :
		    &exact_step_engine;
	follow_init(vcpu, &x->follow);
	krun_init(vcpu, &x->krun);
	vcpu->pmu->exact = x;
	return 0;
}

static void exact_vcpu_exit(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!x)
		return;
	exact_emulate_free(x);
	free(x->icache);
	free(x->idt_copy);
	free(x);
	vcpu->pmu->exact = NULL;
}

const struct pmu_source_ops exact_source = {
	.name = "exact",
	.events = exact_events,
	.wrmsr_retires = exact_wrmsr_retires,
	.emulated_retire = exact_emulated_retire,
	.pmi_delivered = exact_pmi_delivered,
};

const struct vcpu_feature exact_feature = {
	.name = "exact",
	.vcpu_init = exact_vcpu_init,
	.vcpu_exit = exact_vcpu_exit,
	.cpuid = exact_cpuid,
	.before_run = exact_before_run,
	.after_run = exact_after_run,
	.debug_exit = exact_debug_exit,
};
