/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDPMC for unmodified guests.  KVM without a vPMU of its own
 * turns every guest RDPMC into a #GP inside the guest, with no exit
 * (docs/counting.md, "RDPMC that faults"; a KVM that answers RDPMC itself is
 * found by kvm/probe.c).  So pmuvm keeps an instruction
 * breakpoint on the guest's #GP handler (IDT vector 13): when a #GP is
 * delivered the vCPU exits there with the exception frame on its stack
 * ([error code,] RIP, CS, RFLAGS, RSP, SS: SDM vol. 3A 6.14.2).  If the
 * faulting instruction is RDPMC (0F 33) and would not fault on a CPU with
 * this PMU (CPL0 or CR4.PCE; a valid ECX: docs/intel-pmu.md 2.1), the instruction is
 * completed here: EDX:EAX from the model, the frame popped as IRET would,
 * RIP past it.  Any other #GP goes on into the guest's handler: the
 * breakpoint is lifted for one single step (RFLAGS.RF, the architectural
 * way, is ignored by KVM's emulator on kvm_pvm hosts) and put back at the
 * step's exit.
 *
 * The breakpoint follows the IDT: the gate is re-read when IDTR changes
 * and at I/O and MMIO exits, where a guest that installs its handlers has
 * had the chance to; never on the step, timer or MSR paths (a PMI handler's
 * MSR accesses are the PMU's hot path).  A 64-bit IDT is assumed (long-mode
 * guests).
 *
 * Where this host's KVM answers RDPMC itself (kvm/probe.c) for every
 * counter this PMU has, no RDPMC ever raises the #GP, so there is no
 * breakpoint at all: it would only slow down the guest's other #GPs. Where
 * it answers only its own lower counters (kvm_amd 6.1 under an Intel PMU of
 * 8 GP counters), the higher ones #GP and are completed here, as on a host
 * that answers none; the breakpoint goes on once the guest gives one of
 * those counters a value or a control (at a WRMSR exit), so that a guest
 * that never uses them keeps DR0 for the kernel's return sites
 * (exact/krun.c). An RDPMC of such a counter still all zero #GPs. Where
 * the image's RDPMCs are RDMSRs (rdpmc/trap.c), those that run at CPL3
 * #GP, and are completed here, from the start.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "log.h"
#include "machine/vm.h"
#include "mem/pagewalk.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"
#include "rdpmc/rdpmc.h"

#define VEC_GP			13
#define DR6_B0			(1ULL << 0)

static bool slow_exit(const struct vcpu *vcpu)
{
	switch (vcpu->run->exit_reason) {
	case KVM_EXIT_IO:
	case KVM_EXIT_MMIO:
		return vcpu->run_result == 0;
	default:
		return false;
	}
}

/*
 * Where the #GP gate is in host memory: the walk is kept for as long as the
 * IDT's base and the paging registers stay (a guest that remaps its IDT page
 * in place is not followed until one of them changes).
 */
static const uint8_t *gp_gate(struct vcpu *vcpu, const struct kvm_sregs *s)
{
	struct rdpmc_gp *st = &vcpu->pmu->rdpmc->gp;
	uint64_t la = s->idt.base + VEC_GP * IDT_GATE64_SIZE, gpa;
	struct paging_state ps;

	if (st->gate && st->gate_la == la && st->gate_ps.cr3 == s->cr3 &&
	    st->gate_ps.cr0 == s->cr0 && st->gate_ps.cr4 == s->cr4 && st->gate_ps.efer == s->efer)
		return st->gate;
	st->gate = NULL;
	ps = sregs_paging(s);
	/* A gate that straddles two pages is walked every time. */
	if ((la & 0xfff) > 0x1000 - IDT_GATE64_SIZE || pagewalk(&vcpu->vm->mem, &ps, la, 0, &gpa))
		return NULL;
	st->gate = guest_mem_ptr(&vcpu->vm->mem, gpa, IDT_GATE64_SIZE);
	st->gate_la = la;
	st->gate_ps = ps;
	return st->gate;
}

/* The gate found last time is still where it was, with the same bytes. */
static bool gp_gate_unchanged(const struct rdpmc_gp *st, const struct kvm_sregs *s)
{
	return st->gate && st->gate_ps.cr3 == s->cr3 && st->gate_ps.cr0 == s->cr0 &&
	       st->gate_ps.cr4 == s->cr4 && st->gate_ps.efer == s->efer &&
	       !memcmp(st->gate, st->gate_bytes, IDT_GATE64_SIZE);
}

/* The #GP gate's handler address, or 0 if there is none. */
static uint64_t gp_handler(struct vcpu *vcpu, const struct kvm_sregs *s)
{
	struct paging_state ps;
	const uint8_t *gate;
	uint64_t g[2];

	if (!(s->efer & X86_EFER_LMA) || s->idt.limit < VEC_GP * IDT_GATE64_SIZE + IDT_GATE64_SIZE - 1)
		return 0;
	gate = gp_gate(vcpu, s);
	if (gate) {
		memcpy(g, gate, sizeof(g));
		memcpy(vcpu->pmu->rdpmc->gp.gate_bytes, g, sizeof(g));
	} else {
		ps = sregs_paging(s);
		if (guest_linear_read(&vcpu->vm->mem, &ps, s->idt.base + VEC_GP * IDT_GATE64_SIZE,
				      g, sizeof(g)))
			return 0;
	}
	return idt_gate64_target(g);
}

static __attribute__((noinline)) void rdpmc_check_gate(struct vcpu *vcpu)
{
	struct rdpmc_gp *st = &vcpu->pmu->rdpmc->gp;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	uint64_t h;
	int err;

	if (vcpu_state(vcpu, &r, &s))
		return;
	if (vcpu->dbg.step_once)
		return;		/* passing a #GP on: no breakpoint for this step */
	if (s->idt.base == st->idt_base && s->idt.limit == st->idt_limit &&
	    (!slow_exit(vcpu) || gp_gate_unchanged(st, s)))
		return;
	st->idt_base = s->idt.base;
	st->idt_limit = s->idt.limit;
	h = gp_handler(vcpu, s);
	vcpu->dbg.bp = h != 0;
	vcpu->dbg.bp_addr = h;
	err = guest_debug_apply(vcpu);
	if (err && vcpu_warn_once(vcpu, LOG_ONCE_RDPMC_BP_SET))
		pr_warn("vCPU %d: cannot set the RDPMC breakpoint: %s; guest RDPMC will #GP",
			vcpu->id, strerror(-err));
}

/*
 * Before every KVM_RUN: the breakpoint follows the guest's #GP gate. Most
 * exits (an MSR exit among them) leave the IDT where it was and cannot have
 * changed the gate's bytes: that is told from the sync registers alone,
 * without the full check's frame.
 */
static void rdpmc_before_run(struct vcpu *vcpu)
{
	struct rdpmc_gp *st = &vcpu->pmu->rdpmc->gp;
	const struct kvm_sregs *s = &vcpu->run->s.regs.sregs;
	const struct pmu_host_caps *caps = &vcpu->vm->pmu->caps;

	if (st->waiting) {
		if (vcpu->run->exit_reason != KVM_EXIT_X86_WRMSR ||
		    !vpmu_counters_set_from(&vcpu->pmu->model, caps->rdpmc_kvm_gp,
					    caps->rdpmc_kvm_fixed))
			return;
		st->waiting = false;
		st->idt_limit = 0;	/* no IDT has limit 0 and a #GP gate: check now */
		st->gate = NULL;
		pr_info("vCPU %d: a counter KVM's RDPMC does not answer is in use: its RDPMCs are completed at the #GP",
			vcpu->id);
	}

	if (vcpu->sync_sregs && !vcpu->dbg.step_once && s->idt.base == st->idt_base &&
	    s->idt.limit == st->idt_limit && !slow_exit(vcpu))
		return;
	rdpmc_check_gate(vcpu);
}

/* The segment register state for selector `sel` from the guest's GDT. */
static int load_segment(struct vcpu *vcpu, const struct kvm_sregs *s, uint16_t sel,
			struct kvm_segment *seg)
{
	struct paging_state ps = sregs_paging(s);
	uint64_t d;

	if ((sel & ~7u) == 0 || (sel & 4) || (sel | 7u) > s->gdt.limit ||
	    guest_linear_read(&vcpu->vm->mem, &ps, s->gdt.base + (sel & ~7u), &d, sizeof(d)))
		return -EINVAL;
	memset(seg, 0, sizeof(*seg));
	seg->selector = sel;
	seg->base = ((d >> 16) & 0xffffff) | (((d >> 56) & 0xff) << 24);
	seg->limit = (uint32_t)((d & 0xffff) | (((d >> 48) & 0xf) << 16));
	seg->type = (d >> 40) & 0xf;
	seg->s = (d >> 44) & 1;
	seg->dpl = (d >> 45) & 3;
	seg->present = (d >> 47) & 1;
	seg->avl = (d >> 52) & 1;
	seg->l = (d >> 53) & 1;
	seg->db = (d >> 54) & 1;
	seg->g = (d >> 55) & 1;
	if (seg->g)
		seg->limit = (seg->limit << 12) | 0xfff;
	return 0;
}

/* The frame of the #GP at handler entry: error code, RIP, CS, RFLAGS, RSP, SS. */
struct gp_frame {
	uint64_t error, rip, cs, rflags, rsp, ss;
};

int rdpmc_value(struct vcpu *vcpu, const struct kvm_sregs *s, uint64_t rip, unsigned int cpl,
		uint32_t ecx, uint64_t *val)
{
	struct paging_state ps = sregs_paging(s);
	uint8_t insn[2];
	uint64_t gpa;

	if (guest_linear_read(&vcpu->vm->mem, &ps, rip, insn, sizeof(insn)))
		return -EINVAL;
	/* One of the image's RDPMCs pmuvm turned into an RDMSR (rdpmc/trap.c). */
	if (vcpu->vm->mem.nr_patches && !pagewalk(&vcpu->vm->mem, &ps, rip, 0, &gpa))
		guest_mem_unpatch(&vcpu->vm->mem, gpa, insn, sizeof(insn));
	if (insn[0] != 0x0f || insn[1] != 0x33)
		return -EINVAL;
	if (cpl > 0 && !(s->cr4 & X86_CR4_PCE))
		return -EINVAL;		/* the #GP is real (SDM vol. 2 RDPMC) */
	return vpmu_rdpmc(&vcpu->pmu->model, ecx, val) ? -EINVAL : 0;
}

void rdpmc_retired(struct vcpu *vcpu, uint64_t rip, unsigned int cpl)
{
	unsigned int i;

	for_each_pmu_source(vcpu, i)
		if (pmu_sources[i]->emulated_retire)
			pmu_sources[i]->emulated_retire(vcpu, rip, cpl);
}

/* Completes the RDPMC the frame names, as if it had not faulted: 0, or -EINVAL. */
static int rdpmc_complete(struct vcpu *vcpu, struct kvm_regs *r, struct kvm_sregs *s,
			  const struct gp_frame *f)
{
	unsigned int cpl = f->cs & 3;
	struct kvm_segment cs = s->cs, ss = s->ss;
	uint64_t val;

	if (f->error != 0 || rdpmc_value(vcpu, s, f->rip, cpl, (uint32_t)r->rcx, &val))
		return -EINVAL;
	if ((f->cs & 0xffff) != s->cs.selector &&
	    load_segment(vcpu, s, (uint16_t)f->cs, &cs))
		return -EINVAL;
	if ((f->ss & 0xffff) != s->ss.selector && (f->ss & ~3ull) &&
	    load_segment(vcpu, s, (uint16_t)f->ss, &ss))
		return -EINVAL;
	if (cs.selector != s->cs.selector || ss.selector != s->ss.selector) {
		s->cs = cs;
		s->ss = ss;
		if (ioctl(vcpu->fd, KVM_SET_SREGS, s) < 0)
			return -errno;
	}
	r->rax = (uint32_t)val;
	r->rdx = val >> 32;
	r->rip = f->rip + 2;
	r->rsp = f->rsp;
	r->rflags = f->rflags;
	if (vcpu_state_changed_stepping(vcpu))
		return -EIO;
	rdpmc_retired(vcpu, f->rip, cpl);
	vcpu->pmu->rdpmc->gp.emulated++;
	return 0;
}

static bool rdpmc_debug_exit(struct vcpu *vcpu)
{
	const struct kvm_debug_exit_arch *d = &vcpu->run->debug.arch;
	struct paging_state ps;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	struct gp_frame f;

	if (vcpu->dbg.step_once && d->pc == vcpu->dbg.bp_addr) {
		/*
		 * Still at the handler entry: not the step past it, but the
		 * breakpoint's #DB again, which a VMX that saved it as a pending
		 * debug exception raises at the next entry (hardware saves that
		 * field clear, SDM vol. 3C 28.3.4; docs/counting.md, "Per host
		 * kind"). The step is still to come.
		 */
		return true;
	}
	if (vcpu->dbg.step_once) {
		/* The step past the guest's #GP handler entry: breakpoint back. */
		vcpu->dbg.step_once = false;
		vcpu->dbg.bp = true;
		if (guest_debug_apply(vcpu) && vcpu_warn_once(vcpu, LOG_ONCE_RDPMC_BP_RESTORE))
			pr_warn("vCPU %d: cannot restore the RDPMC breakpoint", vcpu->id);
		return !vcpu->dbg.step;	/* a stepped vCPU counts this step too */
	}
	if (!vcpu->dbg.applied_bp || d->pc != vcpu->dbg.applied_addr || !(d->dr6 & DR6_B0))
		return false;
	if (vcpu_state(vcpu, &r, &s))
		return false;
	ps = sregs_paging(s);
	if (guest_linear_read(&vcpu->vm->mem, &ps, r->rsp, &f, sizeof(f)) ||
	    rdpmc_complete(vcpu, r, s, &f)) {
		/* Not ours: the guest's own handler runs, without a second stop here. */
		vcpu->dbg.bp = false;
		vcpu->dbg.step_once = true;
		if (guest_debug_apply(vcpu))
			vcpu->dbg.step_once = false;
		vcpu->pmu->rdpmc->gp.passed_on++;
	}
	return true;
}

/*
 * Not with no PMU (version 0): no RDPMC completes there, and every #GP,
 * that of an RDPMC turned into an RDMSR at CPL3 (rdpmc/trap.c) included,
 * is the one the guest's CPU would raise (SDM vol. 2B RDPMC).
 */
static int rdpmc_vcpu_init(struct vcpu *vcpu)
{
	const struct pmu_host_caps *caps = &vcpu->vm->pmu->caps;
	bool traps = vcpu->vm->pmu->rdpmc->nr_traps != 0;

	if (!vcpu->vm->cfg->pmu.version ||
	    (caps->rdpmc_by_kvm && !caps->rdpmc_partly_by_kvm && !traps))
		return VCPU_FEATURE_OFF;
	/* An RDPMC turned into an RDMSR #GPs at CPL3 from the start. */
	vcpu->pmu->rdpmc->gp.waiting = caps->rdpmc_partly_by_kvm && !traps;
	return 0;
}

const struct vcpu_feature rdpmc_gp_feature = {
	.name = "rdpmc-gp",
	.vcpu_init = rdpmc_vcpu_init,
	.before_run = rdpmc_before_run,
	.debug_exit = rdpmc_debug_exit,
};
