/*
 * The report is built with json-c and written atomically (temporary file,
 * then rename) so that a lab collecting reports never reads half of one.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock/clock.h"
#include "dev/ucall.h"
#include "exact/exact.h"
#include "exact/icache.h"
#include "machine/vm.h"
#include "pebs/pebs.h"
#include "pmu/vcpu_pmu.h"
#include "log.h"
#include "report.h"

static const char *const stop_reason_names[] = {
	[VM_RUNNING] = "running",
	[VM_STOP_DEBUG_EXIT] = "debug-exit",
	[VM_STOP_SHUTDOWN_EVENT] = "shutdown",
	[VM_STOP_POWEROFF] = "poweroff",
	[VM_STOP_TRIPLE_FAULT] = "triple-fault",
	[VM_STOP_RESET] = "reset",
	[VM_STOP_KVM_ERROR] = "kvm-error",
	[VM_STOP_TIMEOUT] = "timeout",
	[VM_STOP_HOST_ERROR] = "host-error",
};

static json_object *u64_obj(uint64_t v)
{
	return json_object_new_uint64(v);
}

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static json_object *hex_obj(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

/* The image's RDPMCs turned into RDMSRs where KVM answers RDPMC (pmu/rdpmc_trap.c). */
static json_object *report_rdpmc_trap(const struct vcpu *vcpu)
{
	const struct rdpmc_trap *t = &vcpu->pmu->rdpmc_trap;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "hits", u64_obj(t->hits));
	json_object_object_add(o, "answered", u64_obj(t->answered));
	json_object_object_add(o, "faulted", u64_obj(t->faulted));
	return o;
}

/* RDPMC instructions found and watched where KVM answers RDPMC (pmu/rdpmc_watch.c). */
static json_object *report_rdpmc_watch(const struct vcpu *vcpu)
{
	const struct rdpmc_watch *w = &vcpu->pmu->rdpmc_watch;
	json_object *o = json_object_new_object(), *sites = json_object_new_array();
	unsigned int i;

	for (i = 0; i < vcpu->dbg.nr_watch; i++)
		json_object_array_add(sites, hex_obj(vcpu->dbg.watch[i]));
	json_object_object_add(o, "sites", sites);
	json_object_object_add(o, "windows", u64_obj(w->windows));
	json_object_object_add(o, "window_steps", u64_obj(w->window_steps));
	json_object_object_add(o, "idle_window_steps", u64_obj(w->idle_window_steps));
	json_object_object_add(o, "hits", u64_obj(w->hits));
	json_object_object_add(o, "answered", u64_obj(w->answered));
	json_object_object_add(o, "settled", json_object_new_boolean(w->settled));
	return o;
}

/* --event-filter as loaded: null without one. */
static json_object *report_event_filter(const struct pmuvm_config *cfg)
{
	const struct vpmu_filter *f = &cfg->event_filter;
	json_object *o, *ev;
	unsigned int i;

	if (!cfg->event_filter_path)
		return NULL;
	o = json_object_new_object();
	ev = json_object_new_array();
	json_object_object_add(o, "path", json_object_new_string(cfg->event_filter_path));
	json_object_object_add(o, "action", json_object_new_string(
				       f->action == VPMU_FILTER_ALLOW ? "allow" : "deny"));
	json_object_object_add(o, "fixed_counter_bitmap", hex_obj(f->fixed_counter_bitmap));
	for (i = 0; i < f->nr_events; i++) {
		const struct vpmu_filter_entry *e = &f->events[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "event", hex_obj(e->event));
		json_object_object_add(j, "umask_mask", hex_obj(e->umask_mask));
		json_object_object_add(j, "umask_match", hex_obj(e->umask_match));
		json_object_object_add(j, "exclude", json_object_new_boolean(e->exclude));
		json_object_array_add(ev, j);
	}
	json_object_object_add(o, "events", ev);
	return o;
}

static json_object *report_config(const struct pmuvm_config *cfg, const struct vm *vm)
{
	static const struct pmu_host_caps not_probed;
	const struct pmu_host_caps *caps = vm->pmu ? &vm->pmu->caps : &not_probed;
	json_object *c = json_object_new_object(), *p = json_object_new_object();
	json_object *h = json_object_new_object();

	json_object_object_add(c, "image", json_object_new_string(cfg->image));
	json_object_object_add(c, "mem_bytes", u64_obj(cfg->mem_size));
	json_object_object_add(c, "cpus", u64_obj(cfg->nr_cpus));
	json_object_object_add(c, "append", json_object_new_string(cfg->append ? cfg->append : ""));
	json_object_object_add(p, "vendor", json_object_new_string(
		cfg->pmu.vendor == VPMU_VENDOR_AMD ? "amd" : "intel"));
	json_object_object_add(c, "cpu_vendor", json_object_new_string(
		cfg->cpu_vendor == CPU_VENDOR_AMD ? "amd" :
		cfg->cpu_vendor == CPU_VENDOR_INTEL ? "intel" : "host"));
	json_object_object_add(p, "version", u64_obj(cfg->pmu.version));
	json_object_object_add(p, "gp_counters", u64_obj(cfg->pmu.nr_gp));
	json_object_object_add(p, "gp_width", u64_obj(cfg->pmu.gp_width));
	json_object_object_add(p, "fixed_counters", u64_obj(cfg->pmu.nr_fixed));
	json_object_object_add(p, "fixed_width", u64_obj(cfg->pmu.fixed_width));
	json_object_object_add(p, "full_width_writes",
			       json_object_new_boolean(cfg->pmu.full_width_write));
	json_object_object_add(p, "available_events", u64_obj(cfg->pmu.available_events));
	json_object_object_add(p, "tsc_khz", u64_obj(vm->tsc_khz));
	json_object_object_add(p, "cpu_khz", u64_obj(cfg->cpu_khz ? cfg->cpu_khz : vm->tsc_khz));
	json_object_object_add(p, "cycles", json_object_new_string(cfg->cycles == CYCLES_MODEL ?
								      "model" : "clock"));
	if (cfg->cycles == CYCLES_MODEL)
		json_object_object_add(p, "cpi", json_object_new_double(cfg->cpi));
	json_object_object_add(p, "pebs_format", u64_obj(cfg->pmu.pebs ? cfg->pmu.pebs_format : 0));
	json_object_object_add(p, "user_mode_steppable", json_object_new_boolean(caps->user_step));
	json_object_object_add(p, "rdpmc_answered_by_kvm", json_object_new_boolean(caps->rdpmc_by_kvm));
	json_object_object_add(p, "rdpmc_partly_answered_by_kvm",
			       json_object_new_boolean(caps->rdpmc_partly_by_kvm));
	json_object_object_add(p, "hw_breakpoints_fire", json_object_new_boolean(caps->hw_breakpoints));
	json_object_object_add(p, "rdpmc_traps", u64_obj(vm->pmu ? vm->pmu->nr_rdpmc_traps : 0));
	json_object_object_add(p, "step_follows_events", json_object_new_boolean(caps->handler_step));
	json_object_object_add(p, "step_survives_emulation",
			       json_object_new_boolean(caps->step_after_emulation));
	json_object_object_add(p, "step_holds_interrupts", json_object_new_boolean(caps->block_irq));
	json_object_object_add(p, "kvm_vpmu_disabled", json_object_new_boolean(caps->kvm_vpmu_disabled));
	json_object_object_add(c, "pmu", p);
	json_object_object_add(c, "event_filter", report_event_filter(cfg));
	json_object_object_add(h, "kernel_mode_emulated",
			       json_object_new_boolean(vm->kernel_mode_emulated));
	json_object_object_add(h, "kernel_mode_slowdown", u64_obj(vm->kernel_mode_slowdown));
	json_object_object_add(h, "exit_cost_ns", u64_obj(vm->exit_cost_ns));
	json_object_object_add(h, "kernel_exit_cost_ns", u64_obj(vm->kernel_exit_cost_ns));
	json_object_object_add(c, "host", h);
	return c;
}

static json_object *report_vcpu_pmu(const struct vcpu *vcpu)
{
	static const struct clock_state no_clock;
	const struct vcpu_pmu *vp = vcpu->pmu;
	const struct vpmu *pmu = &vp->model;
	const struct clock_state *clk = vp->clock ? vp->clock : &no_clock;
	json_object *o = json_object_new_object();
	json_object *gp = json_object_new_array(), *fx = json_object_new_array();
	unsigned int i;

	for (i = 0; i < pmu->cfg.nr_gp; i++) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "value", u64_obj(pmu->gp[i].value));
		json_object_object_add(c, "evtsel", u64_obj(pmu->gp[i].ctl));
		json_object_array_add(gp, c);
	}
	for (i = 0; i < pmu->cfg.nr_fixed; i++)
		json_object_array_add(fx, u64_obj(pmu->fixed[i].value));
	json_object_object_add(o, "gp", gp);
	json_object_object_add(o, "fixed", fx);
	json_object_object_add(o, "fixed_ctr_ctrl", u64_obj(pmu->fixed_ctr_ctrl));
	json_object_object_add(o, "global_ctrl", u64_obj(pmu->global_ctrl));
	json_object_object_add(o, "global_status", u64_obj(pmu->global_status));
	json_object_object_add(o, "overflows", u64_obj(pmu->nr_overflows));
	json_object_object_add(o, "pmis_requested", u64_obj(pmu->nr_pmis_requested));
	json_object_object_add(o, "pmis_delivered", u64_obj(vp->pmis_delivered));
	json_object_object_add(o, "pmis_nmi", u64_obj(vp->pmis_nmi));
	json_object_object_add(o, "pmis_dropped_masked", u64_obj(vp->pmis_masked));
	json_object_object_add(o, "guest_cpu_ns", u64_obj(clk->guest_ns));
	json_object_object_add(o, "exit_cpu_ns_not_counted", u64_obj(clk->exit_ns));
	json_object_object_add(o, "cpl_samples", u64_obj(clk->cpl_kicks));
	json_object_object_add(o, "cpl_held_runs", u64_obj(clk->cpl_held_runs));
	json_object_object_add(o, "rdpmc_emulated", u64_obj(vp->rdpmc.emulated));
	json_object_object_add(o, "gp_passed_on", u64_obj(vp->rdpmc.passed_on));
	json_object_object_add(o, "rdpmc_watch", report_rdpmc_watch(vcpu));
	json_object_object_add(o, "rdpmc_trap", report_rdpmc_trap(vcpu));
	json_object_object_add(o, "stray_step_traps_cleared", u64_obj(vcpu->dbg.tf_cleared));
	json_object_object_add(o, "debug_exits_passed_on", u64_obj(vcpu->dbg.db_passed_on));
	return o;
}

/* The guest kernel run unstepped while only user mode counted (exact/krun.c). */
static json_object *report_krun(const struct krun_state *k)
{
	json_object *o = json_object_new_object(), *sites = json_object_new_array();

	for (unsigned int i = 0; i < k->nr_site; i++)
		json_object_array_add(sites, u64_obj(k->site[i]));
	json_object_object_add(o, "runs", u64_obj(k->runs));
	json_object_object_add(o, "site_hits", u64_obj(k->site_hits));
	json_object_object_add(o, "missed", u64_obj(k->missed));
	json_object_object_add(o, "missed_uncounted", u64_obj(k->missed_uncounted));
	json_object_object_add(o, "sites", sites);
	json_object_object_add(o, "sysret_site", u64_obj(k->sysret));
	json_object_object_add(o, "sites_overflowed", json_object_new_boolean(k->full));
	return o;
}

/* The exact source's work (vmm/exact): what it stepped and what it could not count. */
static json_object *report_vcpu_exact(const struct vcpu *vcpu)
{
	static const struct exact_state not_stepped;
	const struct exact_state *x = vcpu->pmu->exact ? vcpu->pmu->exact : &not_stepped;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "steps", u64_obj(x->steps));
	json_object_object_add(o, "retired", u64_obj(x->retired));
	json_object_object_add(o, "not_retired", u64_obj(x->not_retired));
	json_object_object_add(o, "caught_up", u64_obj(x->caught_up));
	json_object_object_add(o, "ran_past", u64_obj(x->ran_past));
	json_object_object_add(o, "hlts", u64_obj(x->hlts));
	json_object_object_add(o, "lost_steps", u64_obj(x->lost));
	json_object_object_add(o, "decode_errors", u64_obj(x->decode_errors));
	json_object_object_add(o, "user_runs_uncounted", u64_obj(x->user_runs_uncounted));
	json_object_object_add(o, "step_rearms", u64_obj(x->rearms));
	json_object_object_add(o, "steps_lost", u64_obj(x->steps_lost));
	json_object_object_add(o, "steps_completed_by_kvm", u64_obj(x->kvm_traps));
	json_object_object_add(o, "tf_untraced", u64_obj(x->tf_untraced));
	json_object_object_add(o, "sysret_tf_set", u64_obj(x->sysret_tf_set));
	json_object_object_add(o, "rdpmc_corrected", u64_obj(x->rdpmc_fixed));
	json_object_object_add(o, "rdpmc_faulted", u64_obj(x->rdpmc_faulted));
	json_object_object_add(o, "handler_runs_uncounted", u64_obj(x->handler_runs_uncounted));
	json_object_object_add(o, "handler_entries_followed", u64_obj(x->follow.entries));
	json_object_object_add(o, "interrupts_let_in", u64_obj(x->follow.let_in_count));
	json_object_object_add(o, "kernel_runs", report_krun(&x->krun));
	if (x->icache) {
		json_object_object_add(o, "icache_hits", u64_obj(x->icache->hits));
		json_object_object_add(o, "icache_misses", u64_obj(x->icache->misses));
		json_object_object_add(o, "icache_stale", u64_obj(x->icache->stale));
	}
	return o;
}

/* PEBS assists (vmm/pebs): records written and what was dropped, and why. */
static json_object *report_vcpu_pebs(const struct vcpu *vcpu)
{
	static const struct pebs_stats no_pebs;
	const struct pebs_stats *p = vcpu->pmu->pebs ? vcpu->pmu->pebs : &no_pebs;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "assists", u64_obj(p->assists));
	json_object_object_add(o, "records", u64_obj(p->records));
	json_object_object_add(o, "skipped_full", u64_obj(p->skipped_full));
	json_object_object_add(o, "threshold_pmis", u64_obj(p->threshold_pmis));
	json_object_object_add(o, "dropped_noncanonical", u64_obj(p->drop_noncanonical));
	json_object_object_add(o, "dropped_unmapped", u64_obj(p->drop_unmapped));
	json_object_object_add(o, "dropped_not_ram", u64_obj(p->drop_not_ram));
	return o;
}

static json_object *report_vcpu(const struct vcpu *vcpu)
{
	json_object *o = json_object_new_object(), *ex = json_object_new_object();
	uint64_t total = 0;
	int k;

	json_object_object_add(o, "id", u64_obj(vcpu->id));
	for (k = 0; k < VCPU_EXIT_NR; k++) {
		json_object_object_add(ex, vcpu_exit_kind_names[k], u64_obj(vcpu->exits[k]));
		total += vcpu->exits[k];
	}
	json_object_object_add(ex, "total", u64_obj(total));
	json_object_object_add(o, "exits", ex);
	json_object_object_add(o, "pmu", report_vcpu_pmu(vcpu));
	json_object_object_add(o, "exact", report_vcpu_exact(vcpu));
	json_object_object_add(o, "pebs", report_vcpu_pebs(vcpu));
	if (vcpu->bench_run_ns) {	/* PMUVM_BENCH_TIMING=1 (run.c) */
		json_object *b = json_object_new_object();

		json_object_object_add(b, "vmm_ns", u64_obj(vcpu->bench_vmm_ns));
		json_object_object_add(b, "kvm_run_ns", u64_obj(vcpu->bench_run_ns));
		json_object_object_add(o, "bench", b);
	}
	return o;
}

static json_object *report_build(struct vm *vm)
{
	json_object *root = json_object_new_object(), *ex = json_object_new_object();
	json_object *vcpus = json_object_new_array();
	unsigned int i;

	json_object_object_add(root, "pmuvm_report_version", u64_obj(1));
	json_object_object_add(ex, "reason", json_object_new_string(stop_reason_names[vm->stop_reason]));
	json_object_object_add(ex, "status", u64_obj((uint64_t)vm->exit_status));
	if (vm->stop_reason == VM_STOP_DEBUG_EXIT)
		json_object_object_add(ex, "guest_value", u64_obj(vm->debug_exit_value));
	json_object_object_add(root, "exit", ex);
	json_object_object_add(root, "wall_time_s",
			       json_object_new_double(ts_diff(&vm->start_time, &vm->stop_time)));
	json_object_object_add(root, "config", report_config(vm->cfg, vm));
	for (i = 0; i < vm->nr_vcpus; i++)
		json_object_array_add(vcpus, report_vcpu(&vm->vcpus[i]));
	json_object_object_add(root, "vcpus", vcpus);
	json_object_object_add(root, "guest", ucall_log_json(vm->ucall));
	return root;
}

int report_write(struct vm *vm, const char *path)
{
	json_object *root = report_build(vm);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
	char tmp[4096];
	FILE *f;
	int r = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp)) {
		pr_err("--report: path too long");
		json_object_put(root);
		return -ENAMETOOLONG;
	}
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) == EOF || fputc('\n', f) == EOF) {
		r = -errno;
		if (f)
			fclose(f);
		unlink(tmp);
	} else if (fclose(f) != 0 || rename(tmp, path) != 0) {
		r = -errno;
		unlink(tmp);
	}
	if (r)
		pr_err("--report: cannot write '%s': %s", path, strerror(-r));
	json_object_put(root);
	return r;
}
