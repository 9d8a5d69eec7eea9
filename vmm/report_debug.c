/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report's debug part (docs/report.md): the top-level "debug" object
 * (what pmuvm found out about the host and the image) and each vCPU's
 * (the counting sources at work). Documented and validated like the rest,
 * but free to change with pmuvm's internals.
 */
#include <json-c/json.h>

#include "clock/clock.h"
#include "exact/engine.h"
#include "exact/exact.h"
#include "exact/icache.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"
#include "rdpmc/rdpmc.h"
#include "report_debug.h"
#include "report_json.h"

/* RDPMC's state on this vCPU (vmm/rdpmc), all zero where it has none. */
static const struct rdpmc_vcpu *report_rdpmc_state(const struct vcpu *vcpu)
{
	static const struct rdpmc_vcpu no_rdpmc;

	return vcpu->pmu->rdpmc ? vcpu->pmu->rdpmc : &no_rdpmc;
}

/* The image's RDPMCs turned into RDMSRs where KVM answers RDPMC (rdpmc/trap.c). */
static json_object *report_rdpmc_trap(const struct vcpu *vcpu)
{
	const struct rdpmc_trap *t = &report_rdpmc_state(vcpu)->trap;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "hits", report_u64(t->hits));
	json_object_object_add(o, "answered", report_u64(t->answered));
	json_object_object_add(o, "faulted", report_u64(t->faulted));
	return o;
}

/* RDPMC instructions found and watched where KVM answers RDPMC (rdpmc/watch.c). */
static json_object *report_rdpmc_watch(const struct vcpu *vcpu)
{
	const struct rdpmc_watch *w = &report_rdpmc_state(vcpu)->watch;
	json_object *o = json_object_new_object(), *sites = json_object_new_array();
	unsigned int i;

	for (i = 0; i < vcpu->dbg.nr_watch; i++)
		json_object_array_add(sites, report_hex(vcpu->dbg.watch[i]));
	json_object_object_add(o, "sites", sites);
	json_object_object_add(o, "windows", report_u64(w->windows));
	json_object_object_add(o, "window_steps", report_u64(w->window_steps));
	json_object_object_add(o, "idle_window_steps", report_u64(w->idle_window_steps));
	json_object_object_add(o, "hits", report_u64(w->hits));
	json_object_object_add(o, "answered", report_u64(w->answered));
	json_object_object_add(o, "settled", json_object_new_boolean(w->settled));
	return o;
}

/* What pmuvm found out about this host's KVM at start-up (kvm/probe.h, pmu/pmu.c). */
static json_object *report_debug_host(const struct vm *vm)
{
	static const struct pmu_host_caps not_probed;
	const struct pmu_host_caps *caps = vm->pmu ? &vm->pmu->caps : &not_probed;
	json_object *h = json_object_new_object();

	json_object_object_add(h, "kernel_mode_emulated",
			       json_object_new_boolean(vm->kernel_mode_emulated));
	json_object_object_add(h, "kernel_mode_slowdown", report_u64(vm->kernel_mode_slowdown));
	json_object_object_add(h, "exit_cost_ns", report_u64(vm->exit_cost_ns));
	json_object_object_add(h, "kernel_exit_cost_ns", report_u64(vm->kernel_exit_cost_ns));
	json_object_object_add(h, "msr_exit_cost_ns", report_u64(vm->msr_exit_cost_ns));
	json_object_object_add(h, "user_mode_steppable", json_object_new_boolean(caps->user_step));
	json_object_object_add(h, "hw_breakpoints_fire", json_object_new_boolean(caps->hw_breakpoints));
	json_object_object_add(h, "step_follows_events", json_object_new_boolean(caps->handler_step));
	json_object_object_add(h, "step_survives_emulation",
			       json_object_new_boolean(caps->step_after_emulation));
	json_object_object_add(h, "step_holds_interrupts", json_object_new_boolean(caps->block_irq));
	json_object_object_add(h, "rdpmc_answered_by_kvm", json_object_new_boolean(caps->rdpmc_by_kvm));
	json_object_object_add(h, "rdpmc_partly_answered_by_kvm",
			       json_object_new_boolean(caps->rdpmc_partly_by_kvm));
	json_object_object_add(h, "kvm_vpmu_disabled", json_object_new_boolean(caps->kvm_vpmu_disabled));
	return h;
}

json_object *report_debug(const struct vm *vm)
{
	json_object *d = json_object_new_object();

	json_object_object_add(d, "host", report_debug_host(vm));
	json_object_object_add(d, "rdpmc_trap_sites",
			       report_u64(vm->pmu && vm->pmu->rdpmc ? vm->pmu->rdpmc->nr_traps : 0));
	return d;
}

/* the clock source's time (vmm/clock). */
static json_object *report_vcpu_clock(const struct vcpu *vcpu)
{
	static const struct clock_state no_clock;
	const struct clock_state *clk = vcpu->pmu->clock ? vcpu->pmu->clock : &no_clock;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "guest_cpu_ns", report_u64(clk->guest_ns));
	json_object_object_add(o, "exit_cpu_uncounted_ns", report_u64(clk->exit_ns));
	json_object_object_add(o, "cpl_samples", report_u64(clk->cpl_kicks));
	json_object_object_add(o, "cpl_held_runs", report_u64(clk->cpl_held_runs));
	json_object_object_add(o, "overflows_held", report_u64(clk->overflows_held));
	json_object_object_add(o, "overflows_at_kicks", report_u64(clk->overflows_at_kicks));
	json_object_object_add(o, "overflows_at_exits", report_u64(clk->overflows_at_exits));
	return o;
}

/* RDPMC completed at the #GP handler (rdpmc/gp.c), its watch and traps. */
static json_object *report_vcpu_rdpmc(const struct vcpu *vcpu)
{
	const struct rdpmc_gp *gp = &report_rdpmc_state(vcpu)->gp;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "emulated", report_u64(gp->emulated));
	json_object_object_add(o, "gp_passed_on", report_u64(gp->passed_on));
	json_object_object_add(o, "watch", report_rdpmc_watch(vcpu));
	json_object_object_add(o, "trap", report_rdpmc_trap(vcpu));
	return o;
}

/* #DB arbitration between pmuvm and the guest (machine/guest_debug.c). */
static json_object *report_vcpu_guest_debug(const struct vcpu *vcpu)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "stray_step_traps_cleared", report_u64(vcpu->dbg.tf_cleared));
	json_object_object_add(o, "debug_exits_passed_on", report_u64(vcpu->dbg.db_passed_on));
	return o;
}

/* The guest kernel run unstepped while only user mode counted (exact/krun.c). */
static json_object *report_krun(const struct krun_state *k)
{
	json_object *o = json_object_new_object(), *sites = json_object_new_array();

	for (unsigned int i = 0; i < k->nr_site; i++)
		json_object_array_add(sites, report_hex(k->site[i]));
	json_object_object_add(o, "runs", report_u64(k->runs));
	json_object_object_add(o, "site_hits", report_u64(k->site_hits));
	json_object_object_add(o, "missed", report_u64(k->missed));
	json_object_object_add(o, "missed_uncounted", report_u64(k->missed_uncounted));
	json_object_object_add(o, "sites", sites);
	json_object_object_add(o, "sysret_site", report_hex(k->sysret));
	json_object_object_add(o, "iret_site", report_hex(k->iret));
	json_object_object_add(o, "sites_overflowed", json_object_new_boolean(k->full));
	return o;
}

/* The emulation engine's work (vmm/exact/emulate.c): what it ran, why each stretch ended. */
static json_object *report_emulate(const struct exact_emulate_stats *st)
{
	json_object *o = json_object_new_object();
	json_object *stops = json_object_new_object();
	json_object *slices = json_object_new_object();

	for (unsigned int i = 0; i < EMULATE_STOP_NR; i++)
		json_object_object_add(stops, exact_emulate_stop_name(i), report_u64(st->stops[i]));
	json_object_object_add(o, "instructions", report_u64(st->insns));
	json_object_object_add(o, "stretches", report_u64(st->stretches));
	json_object_object_add(o, "stops", stops);
	json_object_object_add(o, "steps", report_u64(st->stepped));
	json_object_object_add(o, "map_builds", report_u64(st->map_builds));
	json_object_object_add(o, "map_failures", report_u64(st->map_failures));
	json_object_object_add(o, "demand_maps", report_u64(st->demand_maps));
	json_object_object_add(o, "code_flushes", report_u64(st->code_flushes));
	json_object_object_add(o, "code_evictions", report_u64(st->code_evictions));
	json_object_object_add(o, "space_switches", report_u64(st->space_switches));
	json_object_object_add(o, "fpu_loads", report_u64(st->fpu_loads));
	json_object_object_add(o, "rdtsc_answered", report_u64(st->rdtsc_answered));
	json_object_object_add(o, "rdpmc_answered", report_u64(st->rdpmc_answered));
	json_object_object_add(slices, "polls", report_u64(st->slice_polls));
	json_object_object_add(slices, "extended", report_u64(st->slices_extended));
	json_object_object_add(slices, "timer_due", report_u64(st->timer_due));
	json_object_object_add(slices, "timer_late_ns", report_u64(st->timer_late_ns));
	json_object_object_add(slices, "timer_late_ns_max", report_u64(st->timer_late_ns_max));
	json_object_object_add(o, "slices", slices);
	return o;
}

/* the exact source's work (vmm/exact): what it stepped and what it could not count. */
static json_object *report_vcpu_exact(const struct vcpu *vcpu)
{
	static const struct exact_state not_stepped;
	const struct exact_state *x = vcpu->pmu->exact ? vcpu->pmu->exact : &not_stepped;
	const struct rdpmc_stepped *rs = &report_rdpmc_state(vcpu)->stepped;
	const struct icache *ic = x->icache;
	json_object *o = json_object_new_object();

	json_object *hidden = json_object_new_array();

	json_object_object_add(o, "engine", json_object_new_string(x->engine ? x->engine->name : "none"));
	for (unsigned int i = 0; i < EXACT_CPUID_HIDDEN_NR; i++)
		if (x->cpuid_hidden & (1ull << i))
			json_object_array_add(hidden,
					      json_object_new_string(exact_cpuid_hidden_name(i)));
	json_object_object_add(o, "cpuid_hidden", hidden);
	json_object_object_add(o, "steps", report_u64(x->steps));
	json_object_object_add(o, "retired", report_u64(x->retired));
	json_object_object_add(o, "not_retired", report_u64(x->not_retired));
	json_object_object_add(o, "caught_up", report_u64(x->caught_up));
	json_object_object_add(o, "ran_past", report_u64(x->ran_past));
	json_object_object_add(o, "steps_not_caught_up", report_u64(x->steps_not_caught_up));
	json_object_object_add(o, "hlts", report_u64(x->hlts));
	json_object_object_add(o, "decode_errors", report_u64(x->decode_errors));
	json_object_object_add(o, "user_runs_uncounted", report_u64(x->user_runs_uncounted));
	json_object_object_add(o, "step_rearms", report_u64(x->rearms));
	json_object_object_add(o, "stepping_lost", report_u64(x->stepping_lost));
	json_object_object_add(o, "steps_completed_by_kvm", report_u64(x->kvm_traps));
	json_object_object_add(o, "tf_untraced", report_u64(x->tf_untraced));
	json_object_object_add(o, "sysret_tf_set", report_u64(x->sysret_tf_set));
	/* Stepped RDPMCs, corrected by RDPMC's listener (rdpmc/stepped.c). */
	json_object_object_add(o, "rdpmc_corrected", report_u64(rs->corrected));
	json_object_object_add(o, "rdpmc_faulted", report_u64(rs->faulted));
	json_object_object_add(o, "handler_runs_uncounted", report_u64(x->handler_runs_uncounted));
	json_object_object_add(o, "handler_entries_followed", report_u64(x->follow.entries));
	json_object_object_add(o, "interrupts_let_in", report_u64(x->follow.let_in_count));
	json_object_object_add(o, "kernel_runs", report_krun(&x->krun));
	json_object_object_add(o, "icache_hits", report_u64(ic ? ic->hits : 0));
	json_object_object_add(o, "icache_misses", report_u64(ic ? ic->misses : 0));
	json_object_object_add(o, "icache_stale", report_u64(ic ? ic->stale : 0));
	json_object_object_add(o, "emulate", report_emulate(&x->emu_stats));
	return o;
}

json_object *report_vcpu_debug(const struct vcpu *vcpu)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "clock", report_vcpu_clock(vcpu));
	json_object_object_add(o, "rdpmc", report_vcpu_rdpmc(vcpu));
	json_object_object_add(o, "guest_debug", report_vcpu_guest_debug(vcpu));
	json_object_object_add(o, "exact", report_vcpu_exact(vcpu));
	if (vcpu->bench_run_ns) {	/* PMUVM_BENCH_TIMING=1 (run.c) */
		json_object *b = json_object_new_object();

		json_object_object_add(b, "vmm_ns", report_u64(vcpu->bench_vmm_ns));
		json_object_object_add(b, "kvm_run_ns", report_u64(vcpu->bench_run_ns));
		json_object_object_add(o, "bench", b);
	}
	return o;
}
