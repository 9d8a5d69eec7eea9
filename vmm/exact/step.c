/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stepping engine (engine.h): KVM single-steps the vCPU, one
 * instruction per KVM_RUN. Before the run the instruction at RIP is decoded
 * (icache.c), TF and the handler breakpoints are armed (tf.c, follow.c), a
 * HLT is done here (hlt.c); after the step's exit retire.c decides whether
 * it retired, what it ran past is caught up (catchup.c), the listeners hear
 * of it (pmu/listen.h) and count.c counts it. A PMI the count raises is
 * delivered before the next KVM_RUN, so the handler sees the RIP right
 * after the overflowing instruction: zero skid. Exits in the middle of an
 * instruction (MSR, I/O, MMIO, a signal) keep the decoded instruction
 * pending. Design: docs/counting.md, "Retirement events: the exact source".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exact/engine.h"
#include "exact/icache.h"
#include "exact/internal.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/listen.h"
#include "pmu/vcpu_pmu.h"

/*
 * Benchmark-only hook (make bench): PMUVM_BENCH_RAW_STEP=1
 * (cfg->bench_raw_step) keeps every decision to step but skips decoding,
 * retiring and counting, so scripts/bench.py can compare the counted step
 * rate with KVM's bare single-step rate.  Retirement counters then stay at 0
 * and HLT is not handled: never set it outside the benchmark.
 */
static bool bench_raw_step(const struct vcpu *vcpu)
{
	return vcpu->vm->cfg->bench_raw_step;
}

/* Decodes the instruction the next step will execute. */
void exact_decode_next(struct vcpu *vcpu, const struct kvm_regs *r, const struct kvm_sregs *s)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps = sregs_paging(s);
	enum insn_mode mode = insn_mode_of(s);
	uint64_t la = mode == INSN_MODE_64 ? r->rip : s->cs.base + r->rip;

	x->pending = false;
	x->counted = false;
	x->rip = r->rip;
	x->cs = s->cs.selector;
	x->cpl = sregs_cpl(s);
	if (icache_fetch(x->icache, &vcpu->vm->mem, &ps, la, x->cpl == 3, mode, &x->insn)) {
		/* The fetch itself will fault in the guest: nothing retires. */
		x->decode_errors++;
		return;
	}
	x->pending = true;
	x->rax_before = r->rax;
	x->rdx_before = r->rdx;
	x->rsp_before = r->rsp;
	x->iret_frame[0] = 0;
	if ((x->insn.flags & INSN_IRET) && mode == INSN_MODE_64 &&
	    guest_linear_read(&vcpu->vm->mem, &ps, r->rsp, x->iret_frame, sizeof(x->iret_frame)))
		x->iret_frame[0] = 0;
	if ((x->insn.flags & INSN_SYSRET) && mode == INSN_MODE_64 && x->cpl == 0) {
		x->iret_frame[0] = r->rcx;
		x->iret_frame[1] = 3;
	}
}

static int step_set_stepping(struct vcpu *vcpu, bool on)
{
	struct exact_state *x = vcpu->pmu->exact;
	int r;

	if (on && !x->icache) {
		x->icache = malloc(sizeof(*x->icache));
		if (!x->icache)
			return -ENOMEM;
		icache_init(x->icache);
	}
	if (on) {
		icache_flush_tlb(x->icache);
		follow_stepping_starts(&x->follow);
		vcpu->dbg.catch_db = true;
	}
	vcpu->dbg.step = on;
	r = guest_debug_apply(vcpu);
	if (r) {
		vcpu->dbg.step = x->stepping;
		return r;
	}
	x->stepping = on;
	x->pending = false;
	return 0;
}

/* The listeners hear of the step (internal.h). */
bool exact_tell_step(struct vcpu *vcpu, bool known, bool retired)
{
	const struct exact_state *x = vcpu->pmu->exact;
	struct pmu_step st = { 0 };

	if (known) {
		st = (struct pmu_step){ x->rip, x->insn.len, (x->insn.flags & INSN_RDPMC) != 0,
					retired, x->rax_before, x->rdx_before };
	}
	pmu_stepped(vcpu, &st);
	return st.retired;
}

static bool is_step_exit(const struct vcpu *vcpu)
{
	const struct kvm_run *run = vcpu->run;

	return vcpu->run_result == 0 && run->exit_reason == KVM_EXIT_DEBUG &&
	       run->debug.arch.exception == 1 &&
	       !(vcpu->dbg.applied_bp && run->debug.arch.pc == vcpu->dbg.applied_addr &&
		 !(run->debug.arch.dr6 & (1u << 14)));
}

/* Stepping on or off as `want` says: false if it could not be switched. */
static bool step_switch(struct vcpu *vcpu, bool want)
{
	struct exact_state *x = vcpu->pmu->exact;
	int err;

	if (want == x->stepping) {
		if (!x->stepping)
			guest_debug_apply(vcpu);	/* the return sites krun_prepare() chose */
		return true;
	}
	err = step_set_stepping(vcpu, want);
	if (err && vcpu_warn_once(vcpu, LOG_ONCE_STEP_SWITCH))
		pr_warn("vCPU %d: cannot %s single-stepping: %s; retirement events are not counted",
			vcpu->id, want ? "start" : "stop", strerror(-err));
	return !err;
}

/*
 * The instruction the step will run: decoded (a HLT at CPL0 done here and
 * the next one decoded), SYSRET's R11 given TF, the breakpoints on the
 * handlers it can enter (follow.c).
 */
static void step_arm(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	bool halted;

	if (!x->stepping || bench_raw_step(vcpu) || vcpu_state(vcpu, &r, &s))
		return;
	/* Still inside the same instruction (MSR, I/O, MMIO exit, signal). */
	if (x->pending && r->rip == x->rip && s->cs.selector == x->cs) {
		exact_sysret_tf(vcpu, r, true);
		return;
	}
	if (sregs_cpl(s) == 3 && !vcpu->vm->pmu->caps.user_step) {
		x->pending = false;
		return;
	}
	exact_decode_next(vcpu, r, s);
	halted = x->pending && (x->insn.flags & INSN_HLT) && x->cpl == 0 &&
		 exact_emulate_hlt(vcpu, r);
	if (halted)
		exact_decode_next(vcpu, r, s);
	if (x->pending)
		exact_sysret_tf(vcpu, r, true);
	/* An interrupt that ends a HLT is taken right after it. */
	follow_prepare(vcpu, &x->follow, r, s, x->pending ? &x->insn : NULL, halted);
	/*
	 * Stepping just started in the middle of the WRMSR that enabled the
	 * counter: KVM completes it on this KVM_RUN, and it is not counted.
	 */
	if (vcpu->run_result == 0 && vcpu->run->exit_reason == KVM_EXIT_X86_WRMSR)
		x->counted = true;
}

/* engine.h begin: stepping on or off, TF set again where it was lost, the next step armed. */
static void step_begin(struct vcpu *vcpu, bool want)
{
	if (step_switch(vcpu, want)) {
		exact_rearm(vcpu);
		step_arm(vcpu);
	}
	if (vcpu->pmu->exact->stepping)
		guest_debug_mark_run(vcpu);
}

/* One step's exit, as the phases of step_count() see it. */
struct step_exit {
	struct kvm_regs *r;
	struct kvm_sregs *s;
	struct step_result res;		/* where it went, an event's frame (retire.h) */
	enum retire how;
	bool entered;			/* it stopped at a followed handler's entry (follow.c) */
	bool tf_dropped;		/* KVM's emulator completed it and dropped TF (tf.c) */
	bool ran_on;			/* it ran past the next instruction (catchup.c) */
};

/*
 * Exits that count no stepped instruction: a step in the benchmark's raw
 * mode; an MMIO write that completed the instruction, or a lost step
 * (tf.c); a step of nothing decoded, which the listeners still hear of.
 * True if handled; else the step of x->insn, its registers in `e`.
 */
static bool step_exit_uncounted(struct vcpu *vcpu, struct step_exit *e)
{
	struct exact_state *x = vcpu->pmu->exact;
	bool step = is_step_exit(vcpu);

	if (bench_raw_step(vcpu)) {
		if (step) {
			x->steps++;
			exact_tell_step(vcpu, false, false);
		}
		return true;
	}
	if (x->pending && !step && (exact_mmio_write_done(vcpu) || exact_step_lost(vcpu)))
		return true;
	if (x->pending && step && !vcpu_state(vcpu, &e->r, &e->s))
		return false;
	if (step) {
		exact_tell_step(vcpu, false, false);	/* it still shortens a window */
		if (follow_entered(vcpu, &x->follow))
			x->rearm = true;
		if (exact_kvm_dropped_tf(vcpu))
			x->rearm = true;
	}
	/* The guest may have run unobserved: its page tables may have changed. */
	if (x->icache)
		icache_flush_tlb(x->icache);
	return true;
}

/* Where the step went, and whether its instruction retired (retire.c) or ran past the next. */
static void step_outcome(struct vcpu *vcpu, struct step_exit *e)
{
	struct exact_state *x = vcpu->pmu->exact;

	x->steps++;
	/* Delivery cleared TF at a followed handler's entry: set it again. */
	e->entered = follow_entered(vcpu, &x->follow);
	x->rearm = e->entered;
	e->tf_dropped = exact_kvm_dropped_tf(vcpu);
	e->res.new_rip = e->r->rip;
	e->res.rsp_kept = e->r->rsp == x->rsp_before;
	if (retire_needs_frame(&x->insn, x->rip, e->r->rip) && insn_mode_of(e->s) == INSN_MODE_64) {
		struct paging_state ps = sregs_paging(e->s);

		e->res.frame_valid = !guest_linear_read(&vcpu->vm->mem, &ps, e->r->rsp, e->res.frame,
							sizeof(e->res.frame));
	}
	e->how = retire_decide(&x->insn, x->rip, x->cs, &e->res);
	e->ran_on = e->how == RETIRE_NO && exact_ran_past(vcpu, e->s, e->r, &e->res);
	if (e->ran_on)
		e->how = RETIRE_YES;
}

/* What an event in the step, or the instruction, left: stale translations, a handler's first instruction, pmuvm's TF. */
static void step_aftermath(struct vcpu *vcpu, struct step_exit *e)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (e->how == RETIRE_NO || e->res.event || (x->insn.flags & INSN_TLB))
		icache_flush_tlb(x->icache);
	if (e->res.event)
		exact_catch_up_event(vcpu, e->s, e->r->rip, e->r->rsp);
	/*
	 * Into the kernel from user mode where it will run unstepped: the TF
	 * saved stays, so that a return krun.c does not watch traps.
	 */
	if ((e->res.event || (x->insn.flags & INSN_SAVES_RFLAGS)) &&
	    !(x->cpl == 3 && sregs_cpl(e->s) == 0 && krun_allowed(vcpu, &x->krun, x->events)))
		exact_untrace(vcpu, e->r, e->s, &e->res, e->how);
	x->rearm = e->entered || e->tf_dropped;
}

/* -vv: one line per step. */
static void step_trace(struct vcpu *vcpu, const struct step_exit *e)
{
	const struct exact_state *x = vcpu->pmu->exact;

	pr_debug("vCPU %d: step cpl%u %llx (len %u flags %#x) -> %llx: %s (dr6 %#llx, "
		 "step %d, watches %u+%u, follows %u)", vcpu->id,
		 x->cpl, (unsigned long long)x->rip, x->insn.len, x->insn.flags,
		 (unsigned long long)e->r->rip,
		 e->how == RETIRE_NO ? "not retired" : x->counted ? "counted at its MSR exit" :
		 "retired", (unsigned long long)vcpu->run->debug.arch.dr6,
		 vcpu->dbg.applied_step, vcpu->dbg.applied_nr_watch,
		 vcpu->dbg.applied_nr_ret_watch, vcpu->dbg.applied_nr_follow);
}

/* It did not retire: a REP iteration stays pending, anything else decodes anew. */
static void step_not_retired(struct vcpu *vcpu, const struct step_exit *e)
{
	struct exact_state *x = vcpu->pmu->exact;

	x->not_retired++;
	exact_tell_step(vcpu, true, false);
	if (!e->res.event && e->r->rip != x->rip)
		exact_handler_unstepped(vcpu);
	x->pending = x->pending && e->r->rip == x->rip;
}

/*
 * It retired: the listeners hear of it first (one may undo it: false), then
 * it is counted, a return site learned (krun.c), what it ran past caught up.
 */
static bool step_retired(struct vcpu *vcpu, const struct step_exit *e)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!exact_tell_step(vcpu, true, true)) {
		/* A listener made it fault: not retired, and the handler comes next. */
		x->not_retired++;
		x->pending = false;
		return false;
	}
	/* A SYSCALL that came back in one step: the kernel ran between, unstepped. */
	if (follow_is_syscall(&x->insn) && e->r->rip == x->rip + x->insn.len && !e->entered)
		exact_handler_unstepped(vcpu);
	if (!x->counted)
		exact_retire(vcpu, e->how);
	if (x->cpl == 0 && sregs_cpl(e->s) == 3 && (x->insn.flags & INSN_FAR))
		krun_learn(&x->krun, x->rip);
	if (e->ran_on) {
		x->ran_past++;
		exact_catch_up(vcpu, e->s, x->rip + x->insn.len, e->r->rip, e->r->rsp);
	}
	x->pending = false;
	x->rearm = x->rearm || (x->insn.flags & INSN_LOADS_RFLAGS);
	return true;
}

/* After a KVM_RUN while stepping: what the step ran, retired and counted. */
static __attribute__((noinline)) void step_count(struct vcpu *vcpu)
{
	struct step_exit e = { 0 };

	if (step_exit_uncounted(vcpu, &e))
		return;
	step_outcome(vcpu, &e);
	step_aftermath(vcpu, &e);
	if (log_verbosity > 1)
		step_trace(vcpu, &e);
	if (e.how == RETIRE_NO)
		step_not_retired(vcpu, &e);
	else if (step_retired(vcpu, &e))
		exact_catch_up_return(vcpu, e.s, e.r);
}

/* engine.h retire: SYSRET's R11 as the guest had it, then the step counted. */
static bool step_retire(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (x->sysret_tf && !vcpu_state(vcpu, &r, &s))
		exact_sysret_tf(vcpu, r, false);
	if (!x->stepping)
		return false;
	if (is_step_exit(vcpu))
		x->krun.at_site = false;	/* the site's instruction ran */
	step_count(vcpu);
	return true;
}

/* engine.h debug_exit: a step's trap. */
static bool step_debug_exit(struct vcpu *vcpu)
{
	return vcpu->pmu->exact->stepping && is_step_exit(vcpu);
}

const struct exact_engine exact_step_engine = {
	.name = "step",
	.begin = step_begin,
	.retire = step_retire,
	.debug_exit = step_debug_exit,
};
