/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

#include "log.h"

#include "machine/guest_debug.h"
#include "machine/vcpu.h"

#define DR7_L(n)		(1ULL << (2 * (n)))
#define DR7_GE			(1ULL << 9)	/* SDM vol. 3B 18.2.4: exact match */
#define DR6_B(n)		(1ULL << (n))
/* R/Wn = 00 (execution), LENn = 00 (1 byte): DR7 bits 16-31 stay 0. */

/* The setting a vcpu_debug wish amounts to (the applied_* fields' form). */
struct debug_setting {
	bool step, bp, catch_db, block_irq;
	bool dr0_ret;			/* DR0 = bp_addr holds a return site, not `bp` */
	uint64_t bp_addr;
	unsigned int nr_watch;		/* DR1..: watches, or follows while stepping */
	unsigned int nr_ret;		/* ...of which the last are return sites */
	uint64_t watch[GUEST_DEBUG_WATCH_MAX];
};

static struct debug_setting wished(const struct vcpu_debug *d)
{
	struct debug_setting w = {
		.step = d->step || d->step_once,
		.bp = d->bp,
		.catch_db = d->catch_db,
		.bp_addr = d->bp ? d->bp_addr : 0,
	};

	if (!w.step) {
		w.nr_watch = d->nr_watch;
		memcpy(w.watch, d->watch, sizeof(w.watch[0]) * d->nr_watch);
		for (unsigned int i = 0; i < d->nr_ret_watch; i++) {
			if (w.nr_watch < GUEST_DEBUG_WATCH_MAX) {
				w.watch[w.nr_watch++] = d->ret_watch[i];
				w.nr_ret++;
			} else if (!w.bp && !w.dr0_ret) {
				w.dr0_ret = true;
				w.bp_addr = d->ret_watch[i];
			}
		}
	} else {
		w.block_irq = d->block_irq;
		/*
		 * The one step past the #GP handler's entry (a #GP RDPMC emulation
		 * passes on) starts at that entry: a breakpoint there, followed
		 * for the exact source, would stop it again before it runs.
		 */
		for (unsigned int i = 0; i < d->nr_follow; i++)
			if (!d->step_once || d->follow[i] != d->bp_addr)
				w.watch[w.nr_watch++] = d->follow[i];
	}
	return w;
}

static struct debug_setting applied(const struct vcpu_debug *d)
{
	struct debug_setting a = {
		.step = d->applied_step,
		.bp = d->applied_bp,
		.catch_db = d->applied_catch_db,
		.block_irq = d->applied_block_irq,
		.dr0_ret = d->applied_dr0_ret,
		.bp_addr = d->applied_bp || d->applied_dr0_ret ? d->applied_addr : 0,
		.nr_watch = d->applied_step ? d->applied_nr_follow :
			    d->applied_nr_watch + d->applied_nr_ret_watch,
		.nr_ret = d->applied_step ? 0 : d->applied_nr_ret_watch,
	};

	memcpy(a.watch, d->applied_step ? d->applied_follow : d->applied_watch,
	       sizeof(a.watch[0]) * a.nr_watch);
	return a;
}

/* KVM_SET_GUEST_DEBUG with setting `w`, plus `inject` (KVM_GUESTDBG_INJECT_*). */
static int guest_debug_ioctl(struct vcpu *vcpu, const struct debug_setting *w, uint32_t inject)
{
	struct kvm_guest_debug g;
	unsigned int i;

	memset(&g, 0, sizeof(g));
	if (w->step || w->bp || w->nr_watch || inject || w->catch_db)
		g.control = KVM_GUESTDBG_ENABLE | inject;
	if (w->step)
		g.control |= KVM_GUESTDBG_SINGLESTEP;
	if (w->step && w->block_irq)
		g.control |= KVM_GUESTDBG_BLOCKIRQ;
	/*
	 * KVM sends a #DB to userspace only with SINGLESTEP or USE_HW_BP set
	 * (vmx.c handle_exception_nmi, svm.c db_interception), else it goes
	 * to the guest: with `catch_db` and no breakpoint, USE_HW_BP with DR7
	 * clear keeps every #DB coming here.
	 */
	if (w->bp || w->dr0_ret || w->nr_watch || w->catch_db)
		g.control |= KVM_GUESTDBG_USE_HW_BP;
	if (w->bp || w->dr0_ret) {
		g.arch.debugreg[0] = w->bp_addr;
		g.arch.debugreg[7] |= DR7_L(0) | DR7_GE;
	}
	for (i = 0; i < w->nr_watch; i++) {
		g.arch.debugreg[1 + i] = w->watch[i];
		g.arch.debugreg[7] |= DR7_L(1 + i) | DR7_GE;
	}
	if (log_verbosity > 1)
		pr_debug("vCPU %d: guest debug %#x, DR0-3 %llx %llx %llx %llx, DR7 %#llx", vcpu->id,
			 g.control, (unsigned long long)g.arch.debugreg[0],
			 (unsigned long long)g.arch.debugreg[1], (unsigned long long)g.arch.debugreg[2],
			 (unsigned long long)g.arch.debugreg[3], (unsigned long long)g.arch.debugreg[7]);
	return ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &g) < 0 ? -errno : 0;
}

static int guest_debug_set(struct vcpu *vcpu)
{
	struct vcpu_debug *d = &vcpu->dbg;
	struct debug_setting w = wished(d);
	int r = guest_debug_ioctl(vcpu, &w, 0);

	if (r)
		return r;
	d->applied_step = w.step;
	d->applied_catch_db = w.catch_db;
	d->applied_block_irq = w.block_irq;
	d->applied_bp = w.bp;
	d->applied_dr0_ret = w.dr0_ret;
	d->applied_addr = w.bp_addr;
	d->applied_nr_watch = w.step ? 0 : w.nr_watch - w.nr_ret;
	d->applied_nr_ret_watch = w.step ? 0 : w.nr_ret;
	d->applied_nr_follow = w.step ? w.nr_watch : 0;
	memcpy(w.step ? d->applied_follow : d->applied_watch, w.watch, sizeof(w.watch));
	return 0;
}

static bool setting_equal(const struct debug_setting *a, const struct debug_setting *b)
{
	return a->step == b->step && a->bp == b->bp && a->catch_db == b->catch_db &&
	       a->nr_ret == b->nr_ret && a->dr0_ret == b->dr0_ret &&
	       a->block_irq == b->block_irq && a->bp_addr == b->bp_addr && a->nr_watch == b->nr_watch &&
	       !memcmp(a->watch, b->watch, sizeof(a->watch[0]) * a->nr_watch);
}

int guest_debug_apply(struct vcpu *vcpu)
{
	struct debug_setting w = wished(&vcpu->dbg), a = applied(&vcpu->dbg);

	if (setting_equal(&w, &a))
		return 0;
	return guest_debug_set(vcpu);
}

/*
 * Which of the n breakpoints in DR(1 + first).. (addresses dr[first..])
 * this debug exit hit, or -1.
 */
static int dr_slot_hit(const struct vcpu *vcpu, const uint64_t *dr, unsigned int first,
		       unsigned int n)
{
	const struct kvm_debug_exit_arch *a = &vcpu->run->debug.arch;
	unsigned int i;

	if (a->exception != 1)
		return -1;
	for (i = 0; i < n; i++)
		if ((a->dr6 & DR6_B(1 + first + i)) && a->pc == dr[first + i])
			return (int)i;
	return -1;
}

int guest_debug_watch_hit(const struct vcpu *vcpu)
{
	return dr_slot_hit(vcpu, vcpu->dbg.applied_watch, 0, vcpu->dbg.applied_nr_watch);
}

int guest_debug_ret_hit(const struct vcpu *vcpu)
{
	const struct kvm_debug_exit_arch *a = &vcpu->run->debug.arch;
	const struct vcpu_debug *d = &vcpu->dbg;

	if (d->applied_dr0_ret && a->exception == 1 && (a->dr6 & DR6_B(0)) &&
	    a->pc == d->applied_addr)
		return (int)d->applied_nr_ret_watch;
	return dr_slot_hit(vcpu, d->applied_watch, d->applied_nr_watch, d->applied_nr_ret_watch);
}

unsigned int guest_debug_ret_room(const struct vcpu *vcpu)
{
	const struct vcpu_debug *d = &vcpu->dbg;

	return GUEST_DEBUG_WATCH_MAX - d->nr_watch + !d->bp;
}

int guest_debug_follow_hit(const struct vcpu *vcpu)
{
	return dr_slot_hit(vcpu, vcpu->dbg.applied_follow, 0, vcpu->dbg.applied_nr_follow);
}

int guest_debug_reapply(struct vcpu *vcpu)
{
	return guest_debug_set(vcpu);
}

#define DR7_UNSET	UINT64_MAX

/*
 * dr7 shares kvm_run's exit union with the exits KVM reads data back from
 * on the next KVM_RUN; it lies past the fields of those it is written
 * after, so that data stays whole.
 */
#define RUN_UNION_END(field)	(offsetof(struct kvm_run, field) + sizeof(((struct kvm_run *)0)->field))
_Static_assert(offsetof(struct kvm_run, debug.arch.dr7) >= RUN_UNION_END(mmio) &&
	       offsetof(struct kvm_run, debug.arch.dr7) >= RUN_UNION_END(io) &&
	       offsetof(struct kvm_run, debug.arch.dr7) >= RUN_UNION_END(msr),
	       "kvm_run.debug.arch.dr7 overlaps exit data");

void guest_debug_mark_run(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	if (vcpu->run_result == 0) {
		switch (run->exit_reason) {
		case KVM_EXIT_DEBUG:
		case KVM_EXIT_IO:
		case KVM_EXIT_MMIO:
		case KVM_EXIT_X86_RDMSR:
		case KVM_EXIT_X86_WRMSR:
		case KVM_EXIT_INTR:
		case KVM_EXIT_HLT:
			break;
		default:
			return;		/* its data may be read back: leave it */
		}
	}
	run->debug.arch.dr7 = DR7_UNSET;
}

bool guest_debug_trap_by_kvm(const struct vcpu *vcpu)
{
	return vcpu->run_result == 0 && vcpu->run->exit_reason == KVM_EXIT_DEBUG &&
	       vcpu->run->debug.arch.dr7 == DR7_UNSET;
}

/*
 * While pmuvm single-steps, RFLAGS.TF is set in the guest's real RFLAGS, so
 * an event delivered during a step pushes it into the guest's frame, and the
 * handler's IRET brings it back after stepping has ended: a single-step
 * trap nobody asked for (seen on SVM after a PMI flood). That TF is pmuvm's,
 * not the guest's: clear it and go on. Any other #DB (the guest's own
 * breakpoints or ICEBP, which KVM reports while guest debugging is on) is
 * the guest's: inject it, as a CPU without a debugger attached would.
 */
int guest_debug_stray_exit(struct vcpu *vcpu)
{
	const struct kvm_debug_exit_arch *a = &vcpu->run->debug.arch;
	struct vcpu_debug *d = &vcpu->dbg;
	struct debug_setting set;
	struct kvm_sregs *sregs;
	struct kvm_regs *regs;
	int r;

	if (a->exception == 1 && (a->dr6 & X86_DR6_BS) && !d->applied_step) {
		if (vcpu_state(vcpu, &regs, &sregs))
			return -EIO;
		regs->rflags &= ~X86_RFLAGS_TF;
		d->tf_cleared++;
		return vcpu_state_changed(vcpu);
	}
	set = applied(d);
	r = guest_debug_ioctl(vcpu, &set,
			      a->exception == 3 ? KVM_GUESTDBG_INJECT_BP : KVM_GUESTDBG_INJECT_DB);
	if (r)
		return r;
	d->db_passed_on++;
	return 0;
}
