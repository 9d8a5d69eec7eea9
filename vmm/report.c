/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report is built with json-c and written whole, at once, through
 * out/outfile.h: a regular file is replaced atomically (temporary file, then
 * rename) so that a lab collecting reports never reads half of one.
 * Its keys are those of docs/report.schema.json (docs/report.md): the
 * stable part here, at the top and in each vCPU; pmuvm's own working
 * detail under "debug" (report_debug.c). A key added here goes there too.
 */
#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/ucall.h"
#include "machine/vm.h"
#include "pebs/pebs.h"
#include "pmu/vcpu_pmu.h"
#include "log.h"
#include "out/outfile.h"
#include "report.h"
#include "report_debug.h"
#include "report_json.h"

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
	[VM_STOP_SIGNAL] = "signal",
};

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
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
	json_object_object_add(o, "fixed_counter_bitmap", report_hex(f->fixed_counter_bitmap));
	for (i = 0; i < f->nr_events; i++) {
		const struct vpmu_filter_entry *e = &f->events[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "event", report_hex(e->event));
		json_object_object_add(j, "umask_mask", report_hex(e->umask_mask));
		json_object_object_add(j, "umask_match", report_hex(e->umask_match));
		json_object_object_add(j, "exclude", json_object_new_boolean(e->exclude));
		json_object_array_add(ev, j);
	}
	json_object_object_add(o, "events", ev);
	return o;
}

/* Stable: the machine and the PMU the guest was given. */
static json_object *report_config(const struct pmuvm_config *cfg, const struct vm *vm)
{
	json_object *c = json_object_new_object(), *p = json_object_new_object();

	json_object_object_add(c, "image", json_object_new_string(cfg->image));
	json_object_object_add(c, "mem_bytes", report_u64(cfg->mem_size));
	json_object_object_add(c, "cpus", report_u64(cfg->nr_cpus));
	json_object_object_add(c, "append", json_object_new_string(cfg->append ? cfg->append : ""));
	json_object_object_add(c, "cpu_vendor", json_object_new_string(
		cfg->cpu_vendor == CPU_VENDOR_AMD ? "amd" :
		cfg->cpu_vendor == CPU_VENDOR_INTEL ? "intel" : "host"));
	json_object_object_add(p, "vendor", json_object_new_string(
		cfg->pmu.vendor == VPMU_VENDOR_AMD ? "amd" : "intel"));
	json_object_object_add(p, "version", report_u64(cfg->pmu.version));
	json_object_object_add(p, "gp_counters", report_u64(cfg->pmu.nr_gp));
	json_object_object_add(p, "gp_width", report_u64(cfg->pmu.gp_width));
	json_object_object_add(p, "fixed_counters", report_u64(cfg->pmu.nr_fixed));
	json_object_object_add(p, "fixed_width", report_u64(cfg->pmu.fixed_width));
	json_object_object_add(p, "full_width_writes",
			       json_object_new_boolean(cfg->pmu.full_width_write));
	json_object_object_add(p, "fixed_counter_mask",
			       report_hex(vpmu_fixed_counters(&cfg->pmu)));
	json_object_object_add(p, "available_events", report_hex(cfg->pmu.available_events));
	json_object_object_add(p, "event_vector_len", report_u64(cfg->pmu.event_vector_len));
	json_object_object_add(p, "events_unavailable", report_hex(cfg->pmu.events_unavailable));
	json_object_object_add(p, "tsc_khz", report_u64(vm->tsc_khz));
	json_object_object_add(p, "cpu_khz", report_u64(cfg->cpu_khz ? cfg->cpu_khz : vm->tsc_khz));
	json_object_object_add(p, "cycles", json_object_new_string(cfg->cycles == CYCLES_MODEL ?
								      "model" : "clock"));
	if (cfg->cycles == CYCLES_MODEL)
		json_object_object_add(p, "cpi", json_object_new_double(cfg->cpi));
	json_object_object_add(p, "pebs_format", report_u64(cfg->pmu.pebs ? cfg->pmu.pebs_format : 0));
	json_object_object_add(c, "pmu", p);
	json_object_object_add(c, "event_filter", report_event_filter(cfg));
	return c;
}

/* Stable: the PMU's registers at the end and the PMIs it raised. */
static json_object *report_vcpu_pmu(const struct vcpu *vcpu)
{
	const struct vcpu_pmu *vp = vcpu->pmu;
	const struct vpmu *pmu = &vp->model;
	json_object *o = json_object_new_object();
	json_object *gp = json_object_new_array(), *fx = json_object_new_array();
	unsigned int i;

	for (i = 0; i < pmu->cfg.nr_gp; i++) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "value", report_u64(pmu->gp[i].value));
		json_object_object_add(c, "evtsel", report_hex(pmu->gp[i].ctl));
		json_object_array_add(gp, c);
	}
	/* Up to the highest fixed counter; a hole (version 5 bitmap) reads 0. */
	for (i = 0; i < vpmu_fixed_span(&pmu->cfg); i++)
		json_object_array_add(fx, report_u64(pmu->fixed[i].value));
	json_object_object_add(o, "gp", gp);
	json_object_object_add(o, "fixed", fx);
	json_object_object_add(o, "fixed_ctr_ctrl", report_hex(pmu->fixed_ctr_ctrl));
	json_object_object_add(o, "global_ctrl", report_hex(pmu->global_ctrl));
	json_object_object_add(o, "global_status", report_hex(pmu->global_status));
	json_object_object_add(o, "overflows", report_u64(pmu->nr_overflows));
	json_object_object_add(o, "pmis_requested", report_u64(pmu->nr_pmis_requested));
	json_object_object_add(o, "pmis_delivered", report_u64(vp->pmis_delivered));
	json_object_object_add(o, "pmis_nmi", report_u64(vp->pmis_nmi));
	json_object_object_add(o, "pmis_dropped_masked", report_u64(vp->pmis_masked));
	return o;
}

/* Stable: PEBS assists (vmm/pebs): records written and what was dropped, and why. */
static json_object *report_vcpu_pebs(const struct vcpu *vcpu)
{
	static const struct pebs_stats no_pebs;
	const struct pebs_stats *p = vcpu->pmu->pebs ? vcpu->pmu->pebs : &no_pebs;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "assists", report_u64(p->assists));
	json_object_object_add(o, "records", report_u64(p->records));
	json_object_object_add(o, "skipped_full", report_u64(p->skipped_full));
	json_object_object_add(o, "threshold_pmis", report_u64(p->threshold_pmis));
	json_object_object_add(o, "dropped_noncanonical", report_u64(p->drop_noncanonical));
	json_object_object_add(o, "dropped_unmapped", report_u64(p->drop_unmapped));
	json_object_object_add(o, "dropped_not_ram", report_u64(p->drop_not_ram));
	return o;
}

static json_object *report_vcpu(const struct vcpu *vcpu)
{
	json_object *o = json_object_new_object(), *ex = json_object_new_object();
	uint64_t total = 0;
	int k;

	json_object_object_add(o, "id", report_u64(vcpu->id));
	for (k = 0; k < VCPU_EXIT_NR; k++) {
		json_object_object_add(ex, vcpu_exit_kind_names[k], report_u64(vcpu->exits[k]));
		total += vcpu->exits[k];
	}
	json_object_object_add(ex, "total", report_u64(total));
	json_object_object_add(o, "exits", ex);
	json_object_object_add(o, "pmu", report_vcpu_pmu(vcpu));
	json_object_object_add(o, "pebs", report_vcpu_pebs(vcpu));
	json_object_object_add(o, "debug", report_vcpu_debug(vcpu));
	return o;
}

static json_object *signal_name_obj(int sig)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "SIG%s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	return json_object_new_string(buf);
}

static json_object *report_build(struct vm *vm)
{
	json_object *root = json_object_new_object(), *ex = json_object_new_object();
	json_object *vcpus = json_object_new_array();
	unsigned int i;

	json_object_object_add(root, "schema_version", report_u64(REPORT_SCHEMA_VERSION));
	json_object_object_add(ex, "reason", json_object_new_string(stop_reason_names[vm->stop_reason]));
	json_object_object_add(ex, "status", report_u64((uint64_t)vm->exit_status));
	if (vm->stop_reason == VM_STOP_DEBUG_EXIT)
		json_object_object_add(ex, "guest_value", report_u64(vm->debug_exit_value));
	if (vm->stop_reason == VM_STOP_SIGNAL)
		json_object_object_add(ex, "signal", signal_name_obj(vm->stop_signal));
	json_object_object_add(root, "exit", ex);
	json_object_object_add(root, "wall_time_s",
			       json_object_new_double(ts_diff(&vm->start_time, &vm->stop_time)));
	json_object_object_add(root, "config", report_config(vm->cfg, vm));
	for (i = 0; i < vm->nr_vcpus; i++)
		json_object_array_add(vcpus, report_vcpu(&vm->vcpus[i]));
	json_object_object_add(root, "vcpus", vcpus);
	json_object_object_add(root, "guest", ucall_log_json(vm->ucall));
	json_object_object_add(root, "debug", report_debug(vm));
	return root;
}

/* The JSON text and a newline, written whole. */
static int report_emit(json_object *root, struct outfile *out)
{
	size_t len;
	const char *text = json_object_to_json_string_length(root, JSON_C_TO_STRING_PRETTY, &len);
	char *buf = malloc(len + 1);
	int r;

	if (!buf) {
		pr_err("%s: out of memory", out->opt);
		return -ENOMEM;
	}
	memcpy(buf, text, len);
	buf[len] = '\n';
	r = outfile_replace(out, buf, len + 1);
	free(buf);
	return r;
}

int report_write(struct vm *vm, struct outfile *out)
{
	json_object *root = report_build(vm);
	int r = report_emit(root, out);

	json_object_put(root);
	return r;
}

int report_write_early(struct outfile *out, const struct pmuvm_config *cfg, const char *reason,
		       int status, const char *message)
{
	json_object *root = json_object_new_object(), *ex = json_object_new_object();
	json_object *c = json_object_new_object();
	int r;

	json_object_object_add(root, "schema_version", report_u64(REPORT_SCHEMA_VERSION));
	json_object_object_add(ex, "reason", json_object_new_string(reason));
	json_object_object_add(ex, "status", report_u64((uint64_t)status));
	json_object_object_add(ex, "message", json_object_new_string(message));
	json_object_object_add(root, "exit", ex);
	json_object_object_add(c, "image", cfg->image ? json_object_new_string(cfg->image) : NULL);
	if (cfg->image) {	/* the command line was parsed whole */
		json_object_object_add(c, "mem_bytes", report_u64(cfg->mem_size));
		json_object_object_add(c, "cpus", report_u64(cfg->nr_cpus));
		json_object_object_add(c, "append",
				       json_object_new_string(cfg->append ? cfg->append : ""));
	}
	json_object_object_add(root, "config", c);
	r = report_emit(root, out);
	json_object_put(root);
	return r;
}
