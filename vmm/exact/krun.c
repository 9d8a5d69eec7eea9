/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest kernel run unstepped while only user mode is counted (Linux's
 * instructions:u): each CPL0 instruction a stepped kernel retires into CPL3
 * (IRETQ, SYSRETQ) is kept as a return site, and once the sites fit in the
 * debug registers RDPMC's watches and #GP breakpoint leave free
 * (machine/guest_debug.h), a kernel reached from stepped user mode runs with
 * an execution breakpoint on every site. A return elsewhere is caught by the
 * TF the kernel entry saved, or at the next exit at CPL3, counted, and the
 * kernel is stepped again until it shows the new site. The SYSRET and the
 * IRET the SYSCALL entry (IA32_LSTAR) reaches are watched too, found by
 * following its code (krun_scan.c): a kernel entered before stepping began
 * saved no TF to catch a return with. Design: docs/counting.md, "Kernel runs".
 */
#include <string.h>

#include "exact/krun.h"
#include "exact/krun_scan.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"
#include "x86/decode.h"
#include "x86/x86.h"

/* Steps between looks at IA32_LSTAR while no return site is known. */
#define KRUN_SCAN_RETRY		4096

void krun_init(struct vcpu *vcpu, struct krun_state *k)
{
	const struct pmu_host_caps *caps = &vcpu->vm->pmu->caps;

	k->on = caps->user_step && caps->hw_breakpoints;
}

void krun_learn(struct krun_state *k, uint64_t rip)
{
	for (unsigned int i = 0; i < k->nr_site; i++)
		if (k->site[i] == rip)
			return;
	if (k->nr_site == KRUN_SITES_MAX) {
		k->full = true;
		return;
	}
	k->site[k->nr_site++] = rip;
	k->relearn = false;
}

/* Code for krun_scan_returns(): the page's end bounds a read that fails whole. */
struct krun_code {
	const struct guest_mem *mem;
	struct paging_state ps;
};

static size_t krun_read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct krun_code *c = ctx;
	size_t in_page = 4096 - (addr & 4095);

	if (!guest_linear_read(c->mem, &c->ps, addr, buf, len))
		return len;
	if (in_page < len && !guest_linear_read(c->mem, &c->ps, addr, buf, in_page))
		return in_page;
	return 0;
}

/*
 * The SYSRET and the IRET the SYSCALL entry (IA32_LSTAR) reaches
 * (krun_scan.c), looked for again when LSTAR changes. A wrong guess costs
 * a breakpoint that never fires.
 */
static void krun_find_returns(struct vcpu *vcpu, struct krun_state *k, const struct kvm_sregs *s)
{
	uint64_t lstar = vcpu_get_msr(vcpu, MSR_LSTAR);
	struct krun_code code = { .mem = &vcpu->vm->mem, .ps = sregs_paging(s) };
	struct krun_scan found;

	if (lstar == k->scan_lstar)
		return;
	k->scan_lstar = lstar;
	k->sysret = k->iret = 0;
	if (!lstar || !(s->efer & X86_EFER_LMA) || !s->cs.l)
		return;		/* not a 64-bit kernel */
	krun_scan_returns(krun_read_code, &code, lstar, &found);
	k->sysret = found.sysret;
	k->iret = found.iret;
	if (found.sysret)
		pr_info("vCPU %d: the SYSCALL entry at %#llx returns through a SYSRET at %#llx: watched with the return sites",
			vcpu->id, (unsigned long long)lstar, (unsigned long long)found.sysret);
	if (found.iret)
		pr_info("vCPU %d: the SYSCALL entry at %#llx reaches an IRET at %#llx: watched with the return sites",
			vcpu->id, (unsigned long long)lstar, (unsigned long long)found.iret);
}

/*
 * The return sites to watch, those learned and those the SYSCALL entry
 * reaches, into `out` if not NULL and they fit KRUN_SITES_MAX: how many.
 */
static unsigned int krun_sites(const struct krun_state *k, uint64_t *out)
{
	uint64_t found[2] = { k->sysret, k->iret };
	uint64_t all[KRUN_SITES_MAX + 2];
	unsigned int n = k->nr_site;

	memcpy(all, k->site, sizeof(k->site[0]) * n);
	for (unsigned int f = 0; f < 2; f++) {
		unsigned int i = 0;

		while (i < n && all[i] != found[f])
			i++;
		if (found[f] && i == n)
			all[n++] = found[f];
	}
	if (out && n <= KRUN_SITES_MAX)
		memcpy(out, all, sizeof(all[0]) * n);
	return n;
}

static const char krun_no_site[] = "no return site known";

/* NULL if the kernel may run unstepped, else why not (-vv traces it). */
static const char *krun_refusal(const struct vcpu *vcpu, const struct krun_state *k,
				uint32_t events)
{
	const struct vpmu *m = &vcpu->pmu->model;

	if (!k->on)
		return "off";
	if (!krun_sites(k, NULL))
		return krun_no_site;
	if (k->full)
		return "too many return sites";
	if (k->relearn)
		return "a return was missed: stepping until a new site";
	if (k->at_site)
		return "at a site";
	/* A listener asks for steps (pmu/listen.h): RDPMC discovery (rdpmc/watch.c). */
	if (vcpu->pmu->step.wanted)
		return "RDPMC discovery window open";
	/*
	 * Where KVM answers RDPMC, a stepped kernel's RDPMCs are corrected as
	 * they are stepped: unstepped, only the watched ones are. Not before
	 * their discovery is over.
	 */
	if (vcpu->pmu->step.kernel_wanted)
		return "RDPMC discovery not settled";
	if (vpmu_counted_events_at(m, 0) & events)
		return "kernel mode counted";
	if (!(vpmu_counted_events_at(m, 3) & events))
		return "user mode not counted";
	if (krun_sites(k, NULL) > guest_debug_ret_room(vcpu))
		return "no room for the return sites";
	return NULL;
}

bool krun_allowed(const struct vcpu *vcpu, const struct krun_state *k, uint32_t events)
{
	return !krun_refusal(vcpu, k, events);
}

static void krun_stop(struct vcpu *vcpu, struct krun_state *k)
{
	k->running = false;
	vcpu->dbg.nr_ret_watch = 0;
}

/* `unseen`: found at an exit, user code ran uncounted until then. */
static void krun_missed(struct vcpu *vcpu, struct krun_state *k, bool unseen)
{
	k->missed++;
	k->missed_uncounted += unseen;
	k->relearn = true;
	krun_stop(vcpu, k);
	if (!__atomic_exchange_n(&vcpu->vm->pmu->krun_missed_warned, true, __ATOMIC_RELAXED))
		pr_warn("vCPU %d: the guest kernel returned to user mode outside the return sites pmuvm watched; its kernel is stepped again until the new one is seen (see the report's vcpus[].debug.exact.kernel_runs.missed)",
			vcpu->id);
	if (unseen && vcpu_warn_once(vcpu, LOG_ONCE_KRUN_UNSEEN))
		pr_warn("vCPU %d: user-mode instructions and branches run after such a return, until pmuvm saw it at an exit, are not counted (the report's vcpus[].debug.exact.kernel_runs.missed_uncounted)",
			vcpu->id);
}

/*
 * Whether to look at IA32_LSTAR (a KVM_GET_MSRS) before a run: once a run
 * (not a step), and while no site is known once every KRUN_SCAN_RETRY steps.
 */
static bool krun_scan_due(struct krun_state *k, const char *why)
{
	if (why != krun_no_site)
		return !why;
	if (k->scan_wait) {
		k->scan_wait--;
		return false;
	}
	k->scan_wait = KRUN_SCAN_RETRY;
	return true;
}

bool krun_prepare(struct vcpu *vcpu, struct krun_state *k, uint32_t events, bool want,
		  uint64_t resume_rip)
{
	struct kvm_sregs *s;
	struct kvm_regs *r;
	const char *why;

	if (!k->on || (!want && !k->running))
		return false;
	if (!want || vcpu_state(vcpu, &r, &s)) {
		krun_stop(vcpu, k);
		return false;
	}
	why = sregs_cpl(s) == 0 ? krun_refusal(vcpu, k, events) : "at CPL3";
	if (!k->running && krun_scan_due(k, why)) {
		krun_find_returns(vcpu, k, s);
		why = krun_refusal(vcpu, k, events);
	}
	if (log_verbosity > 1 && why != k->why) {
		pr_debug("vCPU %d: kernel run: %s", vcpu->id, why ? why : "allowed");
		k->why = why;
	}
	if (!why) {
		if (!k->running) {
			if (log_verbosity > 1)
				pr_debug("vCPU %d: kernel run %llu from %llx (rax %#llx)", vcpu->id,
					 (unsigned long long)k->runs + 1, (unsigned long long)r->rip,
					 (unsigned long long)r->rax);
			k->running = true;
			k->runs++;
			k->resume_rip = resume_rip;
			vcpu->dbg.nr_ret_watch = krun_sites(k, vcpu->dbg.ret_watch);
		}
		return true;
	}
	if (k->running && sregs_cpl(s) == 3)
		krun_missed(vcpu, k, true);
	else if (k->running)
		krun_stop(vcpu, k);
	return false;
}

bool krun_debug_exit(struct vcpu *vcpu, struct krun_state *k)
{
	const struct kvm_debug_exit_arch *a = &vcpu->run->debug.arch;
	struct kvm_sregs *s;
	struct kvm_regs *r;

	if (!k->running)
		return false;
	if (guest_debug_ret_hit(vcpu) >= 0) {
		k->site_hits++;
		k->at_site = true;
		krun_stop(vcpu, k);
		return true;
	}
	/* The saved TF trapped after the first user instruction of a return. */
	if (a->exception != 1 || !(a->dr6 & X86_DR6_BS) || vcpu->dbg.applied_step ||
	    vcpu_state(vcpu, &r, &s) || sregs_cpl(s) != 3)
		return false;
	r->rflags &= ~X86_RFLAGS_TF;
	vcpu_state_changed(vcpu);
	/*
	 * The trap comes after the instruction that follows the one setting
	 * TF (SDM vol. 3B 17.3.1.4; the lab's QEMU traps before it): from
	 * where the user code went on, that one instruction, if it returned
	 * there.
	 */
	k->trap_from = k->resume_rip;
	k->trap_to = r->rip;
	krun_missed(vcpu, k, false);
	return true;
}
