/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting what retired, whatever engine ran it: the events a retired
 * instruction raises (retire_events(), retire.c) at the CPL it ran at, and
 * with --cycles=model the cycles derived from it (x --cpi; reference
 * cycles at TSC/--cpu-mhz of those). And what cannot be counted, never
 * estimated: said once on stderr and counted in the report
 * (docs/counting.md, "User mode where it cannot be stepped" and
 * "Following events into handlers").
 */
#include "exact/internal.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"

/* The cycles `insns` instructions take at --cpi, at x->cpl (internal.h). */
void exact_count_model_cycles(struct vcpu *vcpu, uint64_t insns)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct vpmu *pmu = &vcpu->pmu->model;
	const struct pmuvm_config *cfg = vcpu->vm->cfg;
	/* cycles x 1e3 per instruction, so a --cpi of 0.001 still counts */
	uint64_t milli = (uint64_t)(cfg->cpi * 1000.0 + 0.5);
	uint64_t core, ref;

	x->cycle_rem += milli * insns;
	core = x->cycle_rem / 1000;
	x->cycle_rem %= 1000;
	/* Reference cycles at TSC/--cpu-mhz of those, the remainder carried. */
	x->ref_rem += core * x->ref_khz;
	ref = x->ref_rem / x->core_khz;
	x->ref_rem %= x->core_khz;
	vpmu_count(pmu, PMU_EV_CORE_CYCLES, core, x->cpl);
	vpmu_count(pmu, PMU_EV_REF_CYCLES, ref, x->cpl);
}

void exact_retire(struct vcpu *vcpu, enum retire how)
{
	struct exact_state *x = vcpu->pmu->exact;

	x->retired++;
	x->last_rip = x->rip;
	/* None where it steps only for a listener (exact.c, exact_rdpmc_only()). */
	vpmu_count_each(&vcpu->pmu->model, retire_events(&x->insn, how) & x->events, x->cpl);
	/*
	 * --cycles model counts cycles of every retired instruction; the clock
	 * those of a stepped one (its run's time is the step's: vcpu_pmu.h).
	 */
	if (vcpu->vm->cfg->cycles == CYCLES_MODEL ? x->events & (1u << PMU_EV_CORE_CYCLES)
						 : vcpu->pmu->step_run)
		exact_count_model_cycles(vcpu, 1);
}

void exact_retire_batch(struct vcpu *vcpu, const struct exact_batch *b)
{
	struct exact_state *x = vcpu->pmu->exact;

	x->retired += b->insns;
	x->last_rip = b->last_rip;
	for (uint32_t ev = b->events & x->events; ev; ev &= ev - 1)
		vpmu_count(&vcpu->pmu->model, (enum pmu_arch_event)__builtin_ctz(ev),
			   b->count[__builtin_ctz(ev)], x->cpl);
}

/*
 * Some counter asks for user-mode instructions or branches on a host that
 * cannot step CPL3: they are not counted, never estimated, and that is
 * said once.
 */
bool exact_user_lost(struct vcpu *vcpu)
{
	if (vcpu->vm->pmu->caps.user_step || !(vpmu_counted_events_at(&vcpu->pmu->model, 3) & EXACT_EVENTS))
		return false;
	if (!__atomic_exchange_n(&vcpu->vm->pmu->user_uncounted_warned, true, __ATOMIC_RELAXED))
		pr_warn("this host cannot single-step user mode (CPL3): user-mode instructions and branches are not counted (see the report's vcpus[].debug.exact.user_runs_uncounted)");
	return true;
}

/*
 * On a host whose single-step does not follow events into their handlers
 * (probe.c), a handler entered during a step runs unstepped: its
 * instructions are not counted. pmuvm knows it happened when it delivered a
 * PMI into a stepped vCPU, or when a step ended where neither the
 * instruction nor an event frame explains; counted in the report
 * (debug.exact.handler_runs_uncounted) and said once.
 */
void exact_handler_unstepped(struct vcpu *vcpu)
{
	if (!vcpu->pmu->exact || !vcpu->pmu->exact->stepping || vcpu->vm->pmu->caps.handler_step)
		return;
	/* Stepping only for a listener (rdpmc/watch.c): nothing is lost. */
	if (!(vpmu_counted_events(&vcpu->pmu->model) & vcpu->pmu->exact->events))
		return;
	vcpu->pmu->exact->handler_runs_uncounted++;
	if (!__atomic_exchange_n(&vcpu->vm->pmu->handler_uncounted_warned, true, __ATOMIC_RELAXED))
		pr_warn("this host's single-step does not follow events into their handlers: instructions and branches of handlers entered while counting are not counted (see the report's vcpus[].debug.exact.handler_runs_uncounted)");
}
