/*
 * The exact source: single-steps the vCPU while any enabled counter counts
 * a retirement event (instructions, branches; with --cycles=model also the
 * cycle events, derived from instructions x --cpi) and counts each retired
 * instruction at the CPL it ran at.
 *
 * Per step: before KVM_RUN the instruction at RIP is decoded (icache.c);
 * the step exit then says where the vCPU went and retire.c decides whether
 * that instruction retired.  A PMI raised by the count is delivered before
 * the next KVM_RUN, so the handler sees the RIP right after the overflowing
 * instruction: zero skid.  Exits in the middle of an instruction (MSR, I/O,
 * MMIO, a signal) keep the decoded instruction pending.
 *
 * Where the host cannot step CPL3 code (kvm_pvm: docs/counting.md, "kvm_pvm"),
 * a KVM_RUN entered at CPL3 runs freely until the next exit; what it retired
 * is not counted and not estimated: said once on stderr, counted in the
 * report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "exact/exact.h"
#include "exact/icache.h"
#include "exact/retire.h"
#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/listen.h"
#include "pmu/source.h"
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

static bool cycles_from_model(const struct vcpu *vcpu)
{
	return vcpu->vm->cfg->cycles == CYCLES_MODEL;
}

/* The events this source counts by stepping (model cycles aside). */
#define EXACT_EVENTS	((1u << PMU_EV_INSTRUCTIONS) | (1u << PMU_EV_BRANCHES) |	\
			 (1u << PMU_EV_BR_COND) | (1u << PMU_EV_BR_NEAR_CALL) |		\
			 (1u << PMU_EV_BR_NEAR_RETURN) | (1u << PMU_EV_BR_NOT_TAKEN) |	\
			 (1u << PMU_EV_BR_NEAR_TAKEN) | (1u << PMU_EV_BR_FAR) |		\
			 (1u << PMU_EV_BR_TAKEN))

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

static enum insn_mode cs_mode(const struct kvm_sregs *s)
{
	if ((s->efer & X86_EFER_LMA) && s->cs.l)
		return INSN_MODE_64;
	if ((s->cr0 & X86_CR0_PE) && s->cs.db)
		return INSN_MODE_32;
	return INSN_MODE_16;
}

/* Decodes the instruction the next step will execute. */
static void exact_decode_next(struct vcpu *vcpu, const struct kvm_regs *r,
			      const struct kvm_sregs *s)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps = sregs_paging(s);
	enum insn_mode mode = cs_mode(s);
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
	x->iret_frame[0] = 0;
	if ((x->insn.flags & INSN_IRET) && mode == INSN_MODE_64 &&
	    guest_linear_read(&vcpu->vm->mem, &ps, r->rsp, x->iret_frame, sizeof(x->iret_frame)))
		x->iret_frame[0] = 0;
	if ((x->insn.flags & INSN_SYSRET) && mode == INSN_MODE_64 && x->cpl == 0) {
		x->iret_frame[0] = r->rcx;
		x->iret_frame[1] = 3;
	}
}

/*
 * SYSRET loads RFLAGS from R11, and whether a single-step trap follows it
 * depends on the TF it loads (QEMU's SVM, rechecking TF after SYSCALL and
 * SYSRET; hardware traps after the next instruction where an instruction
 * sets TF, SDM vol. 3B 17.3.1.4). A kernel entered unstepped (no TF saved
 * in R11: counting enabled inside it) returns with TF clear, and its user
 * code would run unstepped. So R11 gets TF for that one step, and loses it
 * again after: the user code sees the R11 it had.
 */
static void exact_sysret_tf(struct vcpu *vcpu, struct kvm_regs *r, bool set)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (set) {
		if (!(x->insn.flags & INSN_SYSRET) || x->cpl != 0 ||
		    !vcpu->vm->pmu->caps.user_step || (r->r11 & X86_RFLAGS_TF))
			return;
		r->r11 |= X86_RFLAGS_TF;
		x->sysret_tf = true;
		x->sysret_tf_set++;
	} else {
		if (!x->sysret_tf)
			return;
		r->r11 &= ~X86_RFLAGS_TF;
		x->sysret_tf = false;
	}
	vcpu_state_changed(vcpu);
}

static int exact_set_stepping(struct vcpu *vcpu, bool on)
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

/*
 * HLT while stepping is done here: on kvm_pvm, KVM's own HLT under
 * single-step leaves the vCPU halted after the interrupt that woke it
 * returns, and a vCPU put in KVM_MP_STATE_HALTED with the interrupt
 * already pending in IRR is not woken by it either.  HLT retires (SDM
 * vol. 2 HLT: the saved RIP points after it); the vCPU then halts in KVM
 * only if no interrupt is pending (IRR empty), else the interrupt is taken
 * right after it, as on hardware.
 */
static void exact_retire(struct vcpu *vcpu, enum retire how);

#define APIC_IRR_OFFSET	0x200

static bool lapic_irr_pending(struct vcpu *vcpu)
{
	struct kvm_lapic_state lapic;
	uint32_t irr;

	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &lapic) < 0)
		return true;		/* do not risk sleeping forever */
	for (unsigned int i = 0; i < 8; i++) {
		memcpy(&irr, &lapic.regs[APIC_IRR_OFFSET + 0x10 * i], sizeof(irr));
		if (irr)
			return true;
	}
	return false;
}

/* True if it did: RIP moved past the HLT. */
static bool exact_emulate_hlt(struct vcpu *vcpu, struct kvm_regs *r)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_HALTED };
	struct kvm_vcpu_events ev;

	/* The STI shadow HLT may sit in ends with it. */
	if (ioctl(vcpu->fd, KVM_GET_VCPU_EVENTS, &ev) == 0 && ev.interrupt.shadow) {
		ev.interrupt.shadow = 0;
		ev.flags = KVM_VCPUEVENT_VALID_SHADOW;
		ioctl(vcpu->fd, KVM_SET_VCPU_EVENTS, &ev);
	}
	r->rip += vcpu->pmu->exact->insn.len;
	if (vcpu_state_changed_stepping(vcpu)) {
		r->rip -= vcpu->pmu->exact->insn.len;
		return false;
	}
	exact_retire(vcpu, RETIRE_YES);
	vcpu->pmu->exact->pending = false;
	vcpu->pmu->exact->hlts++;
	if (!lapic_irr_pending(vcpu) && ioctl(vcpu->fd, KVM_SET_MP_STATE, &mp) < 0 &&
	    vcpu_warn_once(vcpu, LOG_ONCE_HALT_STATE))
		pr_warn("vCPU %d: KVM_SET_MP_STATE(HALTED): %s", vcpu->id, strerror(errno));
	return true;
}

/*
 * Some counter asks for user-mode instructions or branches on a host that
 * cannot step CPL3: they are not counted, never
 * estimated, and that is said once.
 */
static bool exact_user_lost(struct vcpu *vcpu)
{
	if (vcpu->vm->pmu->caps.user_step || !(vpmu_counted_events_at(&vcpu->pmu->model, 3) & EXACT_EVENTS))
		return false;
	if (!__atomic_exchange_n(&vcpu->vm->pmu->user_uncounted_warned, true, __ATOMIC_RELAXED))
		pr_warn("this host cannot single-step user mode (CPL3): user-mode instructions and branches are not counted (see the report's vcpus[].debug.exact.user_runs_uncounted)");
	return true;
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
	    vcpu_state(vcpu, &r, &s) || sregs_cpl(s) != 0 || cs_mode(s) != INSN_MODE_64)
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

static __attribute__((noinline)) void exact_prepare_step(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	bool want = exact_wanted(vcpu), user_lost = exact_user_lost(vcpu);
	bool halted;
	int err;

	/* Every KVM_RUN entered at CPL3 then runs unstepped and uncounted. */
	if (user_lost && !vcpu_state(vcpu, &r, &s) && sregs_cpl(s) == 3)
		x->user_runs_uncounted++;
	/* Only user mode counted, in the kernel: it runs unstepped (krun.c). */
	if (krun_prepare(vcpu, &x->krun, x->events, want, exact_user_resume_rip(vcpu))) {
		want = false;
		x->rearm = false;
	}
	if (want != x->stepping) {
		err = exact_set_stepping(vcpu, want);
		if (err) {
			if (vcpu_warn_once(vcpu, LOG_ONCE_STEP_SWITCH))
				pr_warn("vCPU %d: cannot %s single-stepping: %s; retirement events are not counted",
					vcpu->id, want ? "start" : "stop", strerror(-err));
			return;
		}
	} else if (!x->stepping) {
		guest_debug_apply(vcpu);	/* the return sites krun_prepare() chose */
	}
	if (x->stepping && x->rearm) {
		/*
		 * KVM sets RFLAGS.TF for single-stepping only when guest debug is
		 * set (kvm_arch_vcpu_ioctl_set_guest_debug: at that RIP), and the
		 * instruction just stepped reloaded RFLAGS (an IRETQ into CPL3
		 * code, a POPF, SYSRET) or KVM's emulator completed it
		 * (exact_kvm_dropped_tf()), which on VMX/SVM leaves the guest
		 * running unstepped from here on. Set it again at the new RIP.
		 */
		x->rearm = false;
		if (guest_debug_reapply(vcpu) == 0)
			x->rearms++;
	}
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

/*
 * The branch events (events.h) one retired branch is: Intel's
 * BR_INST_RETIRED umasks and AMD's taken branches (near and far).
 */
static uint32_t branch_events(uint16_t flags, bool taken)
{
	uint32_t ev = 1u << PMU_EV_BRANCHES;

	if (flags & INSN_COND) {
		ev |= 1u << PMU_EV_BR_COND;
		if (!taken)
			ev |= 1u << PMU_EV_BR_NOT_TAKEN;
	}
	if (flags & INSN_NEAR_CALL)
		ev |= 1u << PMU_EV_BR_NEAR_CALL;
	if (flags & INSN_NEAR_RET)
		ev |= 1u << PMU_EV_BR_NEAR_RETURN;
	if (flags & INSN_FAR)
		ev |= 1u << PMU_EV_BR_FAR | 1u << PMU_EV_BR_TAKEN;
	else if (taken)
		ev |= 1u << PMU_EV_BR_NEAR_TAKEN | 1u << PMU_EV_BR_TAKEN;
	return ev;
}

/* Adds one retired instruction (and what it implies) at the CPL it ran at. */
static void exact_retire(struct vcpu *vcpu, enum retire how)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct vpmu *pmu = &vcpu->pmu->model;
	uint32_t events = 1u << PMU_EV_INSTRUCTIONS;

	x->retired++;
	x->last_rip = x->rip;
	if (x->insn.flags & INSN_BRANCH)
		events |= branch_events(x->insn.flags, how == RETIRE_TAKEN);
	/* None where it steps only to find RDPMCs (exact_rdpmc_only()). */
	vpmu_count_each(pmu, events & x->events, x->cpl);
	if (cycles_from_model(vcpu) && (x->events & (1u << PMU_EV_CORE_CYCLES))) {
		const struct pmuvm_config *cfg = vcpu->vm->cfg;
		/* cycles x 1e3 per instruction, so a --cpi of 0.001 still counts */
		uint64_t milli = (uint64_t)(cfg->cpi * 1000.0 + 0.5);
		uint64_t core, ref;

		x->cycle_rem += milli;
		core = x->cycle_rem / 1000;
		x->cycle_rem %= 1000;
		/* Reference cycles at TSC/--cpu-mhz of those, the remainder carried. */
		x->ref_rem += core * x->ref_khz;
		ref = x->ref_rem / x->core_khz;
		x->ref_rem %= x->core_khz;
		vpmu_count(pmu, PMU_EV_CORE_CYCLES, core, x->cpl);
		vpmu_count(pmu, PMU_EV_REF_CYCLES, ref, x->cpl);
	}
}

/*
 * On a host whose single-step does not follow events into their handlers
 * (probe.c), a handler entered during a step runs unstepped: its
 * instructions are not counted. pmuvm knows it happened when it delivered a
 * PMI into a stepped vCPU, or when a step ended where neither the
 * instruction nor an event frame explains; counted in the report
 * (debug.exact.handler_runs_uncounted) and said once.
 */
static void exact_handler_unstepped(struct vcpu *vcpu)
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

/*
 * A step that ran past the instruction after an IRET: KVM's emulator
 * reloads RFLAGS from the frame, dropping the trap flag it stepped with,
 * so the first instruction at the return address runs in the same step
 * (seen on kvm_pvm).  Walk the straight-line code from `from` to `to`,
 * counting what is in between; give up after a few instructions.
 */
#define CATCH_UP_MAX	4

/*
 * The first instruction caught up is a near RET or an indirect near CALL
 * that went to `to`: the stack shows it (the return address just popped
 * sits below RSP, the one just pushed at RSP). Only where it is the one
 * instruction of the step: nothing else could have moved RIP there.
 */
static bool exact_indirect_went_to(struct vcpu *vcpu, const struct paging_state *ps,
				   const struct insn *in, uint64_t from, uint64_t to, uint64_t rsp)
{
	uint64_t slot;

	if (in->flags & INSN_FAR)
		return false;
	if (in->flags & INSN_NEAR_RET)
		return !guest_linear_read(&vcpu->vm->mem, ps, rsp - 8, &slot, sizeof(slot)) &&
		       slot == to;
	if (in->flags & INSN_NEAR_CALL)
		return !guest_linear_read(&vcpu->vm->mem, ps, rsp, &slot, sizeof(slot)) &&
		       slot == from + in->len;
	return false;
}

/*
 * Walks the code from `from` towards `to` as exact_catch_up() says, and
 * retires each instruction on the way if `retire`. True if it got there.
 */
static bool exact_walk(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t from, uint64_t to,
		       uint64_t rsp, bool retire)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps = sregs_paging(s);
	struct insn in;
	unsigned int n;

	for (n = 0; n < CATCH_UP_MAX && from != to; n++) {
		bool taken, indirect = false;

		if (icache_fetch(x->icache, &vcpu->vm->mem, &ps, from, sregs_cpl(s) == 3,
				 cs_mode(s), &in))
			break;
		if (in.flags & INSN_BRANCH && !(in.flags & INSN_RELATIVE)) {
			indirect = n == 0 && cs_mode(s) == INSN_MODE_64 &&
				   exact_indirect_went_to(vcpu, &ps, &in, from, to, rsp);
			if (!indirect)
				break;
		}
		taken = indirect || ((in.flags & INSN_RELATIVE) && insn_rel_target(&in, from) == to);
		if (retire) {
			x->insn = in;
			x->rip = from;
			x->cpl = sregs_cpl(s);
			exact_retire(vcpu, taken || (in.flags & INSN_NEAR_UNCOND) ?
				     RETIRE_TAKEN : RETIRE_YES);
			x->caught_up++;
		}
		from = taken ? to : from + in.len;
	}
	return from == to;
}

static void exact_catch_up(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t from,
			   uint64_t to, uint64_t rsp)
{
	struct exact_state *x = vcpu->pmu->exact;

	if (!exact_walk(vcpu, s, from, to, rsp, true)) {
		x->steps_not_caught_up++;
		if (vcpu_warn_once(vcpu, LOG_ONCE_STEP_LOST))
			pr_warn("vCPU %d: a single step from %#llx ran to %#llx; the instructions in between are not counted",
				vcpu->id, (unsigned long long)from, (unsigned long long)to);
	}
}

/*
 * A step of an instruction that is no branch ended further down the same
 * straight-line code, at the same CPL, with no event frame: the host ran
 * the next instruction(s) in the same step. kvm_pvm's emulator raises no
 * single-step trap after MFENCE, LFENCE or SFENCE, so each fence and the
 * instruction after it came back as one step that went "somewhere
 * unexpected", and neither was counted. The instruction retired; the rest
 * is caught up (debug.exact.ran_past in the report).
 */
static bool exact_ran_past(struct vcpu *vcpu, const struct kvm_sregs *s,
			   const struct kvm_regs *r, const struct step_result *res)
{
	struct exact_state *x = vcpu->pmu->exact;
	uint64_t next = x->rip + x->insn.len;

	return !res->event &&
	       !(x->insn.flags & (INSN_BRANCH | INSN_REP | INSN_HLT | INSN_WRMSR)) &&
	       x->cpl == sregs_cpl(s) && r->rip != x->rip && r->rip != next &&
	       exact_walk(vcpu, s, next, r->rip, r->rsp, false);
}

/*
 * An exception or interrupt was delivered during the step.  Delivery clears
 * TF like IRET reloads it, so on kvm_pvm the handler's first instruction
 * runs in the same step.  Find the gate whose handler is one instruction
 * before where the step ended and count that instruction.
 */
static uint64_t gate_target(const uint8_t *idt, unsigned int i)
{
	uint64_t g[2];

	memcpy(g, idt + i * IDT_GATE64_SIZE, sizeof(g));
	return idt_gate64_target(g);
}

static void exact_catch_up_event(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t to,
				 uint64_t rsp)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps = sregs_paging(s);
	unsigned int n = (s->idt.limit + 1u) / IDT_GATE64_SIZE, i;
	struct insn in;
	uint64_t t;

	if (cs_mode(s) != INSN_MODE_64)
		return;
	if (n > 256)
		n = 256;
	if (!x->idt_copy)
		x->idt_copy = malloc(256 * IDT_GATE64_SIZE);
	if (!x->idt_copy ||
	    guest_linear_read(&vcpu->vm->mem, &ps, s->idt.base, x->idt_copy, n * IDT_GATE64_SIZE))
		return;
	for (i = 0; i < n; i++)
		if (gate_target(x->idt_copy, i) == to)
			return;		/* stopped at the handler's entry: nothing ran */
	for (i = 0; i < n; i++) {
		t = gate_target(x->idt_copy, i);
		if (t && t < to && to - t <= INSN_MAX_LEN &&
		    !icache_fetch(x->icache, &vcpu->vm->mem, &ps, t, false, INSN_MODE_64, &in) &&
		    !(in.flags & INSN_BRANCH) && t + in.len == to) {
			exact_catch_up(vcpu, s, t, to, rsp);
			return;
		}
	}
}

/* Clears TF in the RFLAGS image the guest keeps at `la`; true if it was set. */
static bool exact_untrace_slot(struct vcpu *vcpu, const struct paging_state *ps, uint64_t la)
{
	uint64_t v;

	if (guest_linear_read(&vcpu->vm->mem, ps, la, &v, sizeof(v)) || !(v & X86_RFLAGS_TF))
		return false;
	v &= ~X86_RFLAGS_TF;
	return !guest_linear_write(&vcpu->vm->mem, ps, la, &v, sizeof(v));
}

/*
 * pmuvm's trap flag must never reach what the guest saves. While stepping,
 * KVM keeps RFLAGS.TF set, so a stepped PUSHF or SYSCALL (R11), and the
 * frame of an event delivered in a step, carry it; the POPF, SYSRET or IRET
 * that restores it after stepping has ended would trap into the guest (on
 * kvm_pvm the emulator queues that #DB to the guest directly, where no exit
 * can catch it: guest_debug.h's catch_db works only on VMX/SVM). Cleared
 * where the step left it; while stepping goes on, the instruction that
 * restores it is followed by a re-arm (exact_prepare_step). A guest's own
 * TF under stepping is not told apart: pmuvm's stepping owns TF.
 */
static void exact_untrace(struct vcpu *vcpu, struct kvm_regs *r, const struct kvm_sregs *s,
			  const struct step_result *res, enum retire how)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct paging_state ps;
	bool cleared = false;

	if (cs_mode(s) != INSN_MODE_64)
		return;
	ps = sregs_paging(s);
	if (res->event && res->frame_valid) {
		/* [push,] [err,] RIP, CS, RFLAGS: retire_decide() matched the CS slot. */
		for (unsigned int i = 1; i < sizeof(res->frame) / sizeof(res->frame[0]); i++) {
			if ((uint16_t)res->frame[i] == x->cs) {
				cleared = exact_untrace_slot(vcpu, &ps, r->rsp + 8 * (i + 1));
				break;
			}
		}
	} else if (how != RETIRE_NO && (x->insn.flags & INSN_SAVES_RFLAGS)) {
		if (x->insn.flags & INSN_FAR) {		/* SYSCALL: RFLAGS in R11 */
			/*
			 * Stopped at its target (follow.c), stepping goes on to
			 * the SYSRET, whose R11 must keep TF to trap after it.
			 */
			if ((r->r11 & X86_RFLAGS_TF) && !x->rearm) {
				r->r11 &= ~X86_RFLAGS_TF;
				cleared = !vcpu_state_changed_stepping(vcpu);
			}
		} else {
			cleared = exact_untrace_slot(vcpu, &ps, r->rsp);
		}
	}
	x->tf_untraced += cleared;
}

/*
 * Tells the listeners (pmu/listen.h) of the step of the instruction at
 * x->rip (`known`; else of a step of an instruction not decoded): false if
 * one undid it (rdpmc/stepped.c: an RDPMC that faults).
 */
static bool exact_tell_step(struct vcpu *vcpu, bool known, bool retired)
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

/*
 * An exit other than a debug exit, while stepping, at another instruction
 * than the one the step was to run: the trap flag was lost on the way
 * (seen in the lab: Linux ran from its entry code to a WRMSR without a
 * single-step trap) and the guest ran unstepped from there, uncounted and
 * with its RDPMCs reading KVM's value. Said and counted as a handler run uncounted; the exit's
 * instruction is decoded (an MSR exit's WRMSR counts there) and TF set
 * again before the guest goes on.
 */
static bool exact_step_lost(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (vcpu->run_result != 0 || vcpu->run->exit_reason == KVM_EXIT_DEBUG ||
	    vcpu_state(vcpu, &r, &s) || (r->rip == x->rip && s->cs.selector == x->cs))
		return false;
	x->stepping_lost++;
	exact_handler_unstepped(vcpu);
	icache_flush_tlb(x->icache);	/* the guest ran unobserved */
	if (sregs_cpl(s) != 3 || vcpu->vm->pmu->caps.user_step)
		exact_decode_next(vcpu, r, s);
	else
		x->pending = false;
	x->rearm = true;
	return true;
}

/*
 * A step exit whose trap KVM raised itself after completing the
 * instruction in its emulator (machine/guest_debug.h): where that drops
 * the trap flag (the probe's config.pmu.step_survives_emulation), it is
 * set again before the next step, or the guest would run on unstepped and
 * uncounted up to the next exit (after an xAPIC EOI, a store to the LAPIC
 * page, the rest of a PMI handler and the code it returns to).
 */
static bool exact_kvm_dropped_tf(struct vcpu *vcpu)
{
	if (!guest_debug_trap_by_kvm(vcpu))
		return false;
	vcpu->pmu->exact->kvm_traps++;
	return !vcpu->vm->pmu->caps.step_after_emulation;
}

/*
 * An MMIO write exit of the stepped instruction: KVM's emulator completed
 * it before exiting (RIP is past it), and no single-step trap follows the
 * write's completion (x86.c complete_emulated_mmio). It retired here, and
 * stepping is set again at the next instruction.
 */
static bool exact_mmio_write_done(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (vcpu->run_result != 0 || vcpu->run->exit_reason != KVM_EXIT_MMIO ||
	    !vcpu->run->mmio.is_write || (x->insn.flags & INSN_BRANCH) ||
	    vcpu_state(vcpu, &r, &s) || r->rip != x->rip + x->insn.len ||
	    s->cs.selector != x->cs)
		return false;
	if (!x->counted)
		exact_retire(vcpu, RETIRE_YES);
	exact_tell_step(vcpu, true, true);
	x->pending = false;
	x->rearm = true;
	return true;
}

static __attribute__((noinline)) void exact_count_step(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct step_result res = { 0 };
	struct kvm_sregs *s;
	struct kvm_regs *r;
	enum retire how;
	bool entered, ran_on, tf_dropped;

	if (x->stepping && bench_raw_step(vcpu)) {
		if (is_step_exit(vcpu)) {
			x->steps++;
			exact_tell_step(vcpu, false, false);
		}
		return;
	}
	if (x->stepping && x->pending && !is_step_exit(vcpu) &&
	    (exact_mmio_write_done(vcpu) || exact_step_lost(vcpu)))
		return;
	if (!x->stepping || !x->pending || !is_step_exit(vcpu) || vcpu_state(vcpu, &r, &s)) {
		if (x->stepping && is_step_exit(vcpu)) {
			exact_tell_step(vcpu, false, false);	/* it still shortens a window */
			if (follow_entered(vcpu, &x->follow))
				x->rearm = true;
			if (exact_kvm_dropped_tf(vcpu))
				x->rearm = true;
		}
		/* The guest may have run unobserved: its page tables may have changed. */
		if (x->icache)
			icache_flush_tlb(x->icache);
		return;
	}
	x->steps++;
	/* Delivery cleared TF at a followed handler's entry: set it again. */
	entered = follow_entered(vcpu, &x->follow);
	x->rearm = entered;
	tf_dropped = exact_kvm_dropped_tf(vcpu);
	res.new_rip = r->rip;
	if (retire_needs_frame(&x->insn, x->rip, r->rip) && cs_mode(s) == INSN_MODE_64) {
		struct paging_state ps = sregs_paging(s);

		res.frame_valid = !guest_linear_read(&vcpu->vm->mem, &ps, r->rsp, res.frame,
						     sizeof(res.frame));
	}
	how = retire_decide(&x->insn, x->rip, x->cs, &res);
	ran_on = how == RETIRE_NO && exact_ran_past(vcpu, s, r, &res);
	if (ran_on)
		how = RETIRE_YES;
	if (how == RETIRE_NO || res.event || (x->insn.flags & INSN_TLB))
		icache_flush_tlb(x->icache);
	if (res.event)
		exact_catch_up_event(vcpu, s, r->rip, r->rsp);
	/*
	 * Into the kernel from user mode where it will run unstepped: the TF
	 * saved stays, so that a return krun.c does not watch traps.
	 */
	if ((res.event || (x->insn.flags & INSN_SAVES_RFLAGS)) &&
	    !(x->cpl == 3 && sregs_cpl(s) == 0 && krun_allowed(vcpu, &x->krun, x->events)))
		exact_untrace(vcpu, r, s, &res, how);
	x->rearm = entered || tf_dropped;
	if (log_verbosity > 1)
		pr_debug("vCPU %d: step cpl%u %llx (len %u flags %#x) -> %llx: %s (dr6 %#llx, "
			 "step %d, watches %u+%u, follows %u)", vcpu->id,
			 x->cpl, (unsigned long long)x->rip, x->insn.len, x->insn.flags,
			 (unsigned long long)r->rip,
			 how == RETIRE_NO ? "not retired" : x->counted ? "counted at its MSR exit" :
			 "retired", (unsigned long long)vcpu->run->debug.arch.dr6,
			 vcpu->dbg.applied_step, vcpu->dbg.applied_nr_watch,
			 vcpu->dbg.applied_nr_ret_watch, vcpu->dbg.applied_nr_follow);
	if (how == RETIRE_NO) {
		x->not_retired++;
		exact_tell_step(vcpu, true, false);
		if (!res.event && r->rip != x->rip)
			exact_handler_unstepped(vcpu);
		/* A REP iteration stays pending; anything else decodes anew. */
		x->pending = x->pending && r->rip == x->rip;
		return;
	}
	if (!exact_tell_step(vcpu, true, true)) {
		/* A listener made it fault: not retired, and the handler comes next. */
		x->not_retired++;
		x->pending = false;
		return;
	}
	/* A SYSCALL that came back in one step: the kernel ran between, unstepped. */
	if (follow_is_syscall(&x->insn) && r->rip == x->rip + x->insn.len && !entered)
		exact_handler_unstepped(vcpu);
	if (!x->counted)
		exact_retire(vcpu, how);
	if (x->cpl == 0 && sregs_cpl(s) == 3 && (x->insn.flags & INSN_FAR))
		krun_learn(&x->krun, x->rip);
	if (ran_on) {
		x->ran_past++;
		exact_catch_up(vcpu, s, x->rip + x->insn.len, r->rip, r->rsp);
	}
	x->pending = false;
	x->rearm = x->rearm || (x->insn.flags & INSN_LOADS_RFLAGS);
	if (!x->iret_frame[0])
		return;
	if ((x->iret_frame[1] & 3) == 3 && !vcpu->vm->pmu->caps.user_step) {
		/* It runs free until it comes back. */
		x->user_runs_uncounted += exact_user_lost(vcpu);
	} else if (r->rip != x->iret_frame[0] && x->cpl == sregs_cpl(s))
		exact_catch_up(vcpu, s, x->iret_frame[0], r->rip, r->rsp);
}

/*
 * What PEBS needs from this source (pmu/vcpu_pmu.h): the eventing IP, and
 * whether a WRMSR counted at its MSR exit is still to complete.
 */
static void exact_publish(struct vcpu *vcpu)
{
	const struct exact_state *x = vcpu->pmu->exact;
	struct vcpu_pmu *p = vcpu->pmu;

	p->eventing_ip_valid = x->stepping && x->retired;
	p->eventing_ip = x->last_rip;
	p->retire_pending = x->stepping && x->pending && x->counted;
}

static void exact_before_run(struct vcpu *vcpu)
{
	const struct exact_state *x = vcpu->pmu->exact;

	/* Nothing stepped and nothing to step: most exits cost nothing here. */
	if (!x->stepping && !(vpmu_counted_events(&vcpu->pmu->model) & x->events) &&
	    !vcpu->pmu->step.wanted && !x->krun.running)
		return;
	exact_prepare_step(vcpu);
	if (vcpu->pmu->exact->stepping)
		guest_debug_mark_run(vcpu);
	exact_publish(vcpu);
}

static void exact_after_run(struct vcpu *vcpu)
{
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (vcpu->pmu->exact->sysret_tf && !vcpu_state(vcpu, &r, &s))
		exact_sysret_tf(vcpu, r, false);
	if (!vcpu->pmu->exact->stepping)
		return;
	if (is_step_exit(vcpu))
		vcpu->pmu->exact->krun.at_site = false;	/* the site's instruction ran */
	exact_count_step(vcpu);
	exact_publish(vcpu);
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
}

static bool exact_debug_exit(struct vcpu *vcpu)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (x->stepping && is_step_exit(vcpu))
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
 * With nothing to count (--exact off), the source still steps the windows
 * that find the guest's RDPMCs where KVM answers RDPMC itself and
 * breakpoints fire (rdpmc/watch.c): without them, Linux's perf read
 * KVM's 0 for every counter, cycles included (perf stat -e cycles printed
 * 2^49 and more in the lab).
 */
static bool exact_rdpmc_only(const struct vcpu *vcpu)
{
	const struct pmu_host_caps *caps = &vcpu->vm->pmu->caps;

	return vcpu->vm->cfg->pmu.version && caps->rdpmc_by_kvm && caps->hw_breakpoints;
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
	.before_run = exact_before_run,
	.after_run = exact_after_run,
	.debug_exit = exact_debug_exit,
};
