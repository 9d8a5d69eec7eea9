/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDPMCs a source steps, on a host whose KVM answers RDPMC itself
 * (kvm/probe.c): the step came back with KVM's value, so the model's goes
 * into EDX:EAX, read before the source counts this RDPMC (it reads the
 * counters as they were before it retired). An ECX this PMU has no counter
 * for #GPs on hardware (docs/intel-pmu.md 2.1) while KVM's own vPMU may
 * have one: the RDPMC is then undone (RIP, EDX:EAX as before it) and
 * #GP(0) raised at it, and it does not retire. One of the image's RDPMCs
 * turned into an RDMSR was answered at its MSR exit already (trap.c).
 * Design: docs/counting.md, "RDPMC that KVM answers".
 */
#include <sys/ioctl.h>

#include "log.h"
#include "machine/vm.h"
#include "pmu/listen.h"
#include "pmu/vcpu_pmu.h"
#include "rdpmc/rdpmc.h"

#define VEC_GP	13

/* Raises #GP(0) at the RDPMC instead: false if it cannot, and KVM's answer stays. */
static bool rdpmc_stepped_fault(struct vcpu *vcpu, struct kvm_regs *r, const struct pmu_step *st)
{
	struct kvm_vcpu_events ev;

	if (r->rip != st->rip + st->len || ioctl(vcpu->fd, KVM_GET_VCPU_EVENTS, &ev) < 0 ||
	    ev.exception.injected || ev.exception.pending)
		return false;		/* somewhere else already: left as KVM answered */
	r->rip = st->rip;
	r->rax = st->rax;
	r->rdx = st->rdx;
	if (vcpu_state_changed_stepping(vcpu))
		return false;
	ev.exception.injected = 1;
	ev.exception.nr = VEC_GP;
	ev.exception.has_error_code = 1;
	ev.exception.error_code = 0;
	ev.flags = 0;
	return ioctl(vcpu->fd, KVM_SET_VCPU_EVENTS, &ev) == 0;
}

static void rdpmc_stepped(struct vcpu *vcpu, struct pmu_step *st)
{
	struct rdpmc_stepped *c = &vcpu->pmu->rdpmc->stepped;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	uint64_t val;

	if (!st->rdpmc || !st->retired || rdpmc_trap_at(vcpu, st->rip) || vcpu_state(vcpu, &r, &s))
		return;
	if (vpmu_rdpmc(&vcpu->pmu->model, (uint32_t)r->rcx, &val) == 0) {
		if (log_verbosity > 1)
			pr_debug("vCPU %d: RDPMC %#x at %llx: %#llx (KVM's %#llx)", vcpu->id,
				 (uint32_t)r->rcx, (unsigned long long)st->rip,
				 (unsigned long long)val,
				 (unsigned long long)((r->rdx << 32) | (uint32_t)r->rax));
		r->rax = (uint32_t)val;
		r->rdx = val >> 32;
		if (vcpu_state_changed_stepping(vcpu) == 0)
			c->corrected++;
		return;
	}
	if (rdpmc_stepped_fault(vcpu, r, st)) {
		c->faulted++;
		st->retired = false;
	}
}

const struct pmu_listener rdpmc_stepped_listener = {
	.stepped = rdpmc_stepped,
};
