/*
 * RDPMC for unmodified guests.  KVM without a vPMU of its own
 * turns every guest RDPMC into a #GP inside the guest, with no exit
 * (README, "Where counts come from"; a KVM that answers RDPMC itself is
 * found by kvm/probe.c).  So pmuvm keeps an instruction
 * breakpoint on the guest's #GP handler (IDT vector 13): when a #GP is
 * delivered the vCPU exits there with the exception frame on its stack
 * ([error code,] RIP, CS, RFLAGS, RSP, SS: SDM vol. 3A 6.14.2).  If the
 * faulting instruction is RDPMC (0F 33) and would not fault on a CPU with
 * this PMU (CPL0 or CR4.PCE; a valid ECX: spec 3.5), the instruction is
 * completed here: EDX:EAX from the model, the frame popped as IRET would,
 * RIP past it.  Any other #GP goes on into the guest's handler: the
 * breakpoint is lifted for one single step (RFLAGS.RF, the architectural
 * way, is ignored by KVM's emulator on kvm_pvm hosts) and put back at the
 * step's exit.
 *
 * The breakpoint follows the IDT: the gate is re-read when IDTR changes
 * and at the slow exits (I/O, MSR, MMIO), where a guest that installs its
 * handlers has had the chance to; never on the step or timer paths.  A
 * 64-bit IDT is assumed (long-mode guests).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "log.h"
#include "machine/vm.h"
#include "mem/pagewalk.h"
#include "pmu/pmu.h"
#include "pmu/rdpmc.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"

#define VEC_GP			13
#define DR6_B0			(1ULL << 0)

static bool slow_exit(const struct vcpu *vcpu)
{
	switch (vcpu->run->exit_reason) {
	case KVM_EXIT_IO:
	case KVM_EXIT_MMIO:
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		return vcpu->run_result == 0;
	default:
		return false;
	}
}

/* The #GP gate's handler address, or 0 if there is none. */
static uint64_t gp_handler(struct vcpu *vcpu, const struct kvm_sregs *s)
{
	struct paging_state ps = sregs_paging(s);
	uint64_t g[2];

	if (!(s->efer & X86_EFER_LMA) || s->idt.limit < VEC_GP * IDT_GATE64_SIZE + IDT_GATE64_SIZE - 1 ||
	    guest_linear_read(&vcpu->vm->mem, &ps, s->idt.base + VEC_GP * IDT_GATE64_SIZE, g,
			      sizeof(g)))
		return 0;
	return idt_gate64_target(g);
}

static void rdpmc_before_run(struct vcpu *vcpu)
{
	struct rdpmc_state *st = &vcpu->pmu->rdpmc;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	uint64_t h;
	int err;

	if (vcpu_state(vcpu, &r, &s))
		return;
	if (vcpu->dbg.step_once)
		return;		/* passing a #GP on: no breakpoint for this step */
	if (s->idt.base == st->idt_base && s->idt.limit == st->idt_limit && !slow_exit(vcpu))
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

/* Completes the RDPMC the frame names, as if it had not faulted: 0, or -EINVAL. */
static int rdpmc_complete(struct vcpu *vcpu, struct kvm_regs *r, struct kvm_sregs *s,
			  const struct gp_frame *f)
{
	struct paging_state ps = sregs_paging(s);
	unsigned int cpl = f->cs & 3, i;
	struct kvm_segment cs = s->cs, ss = s->ss;
	uint8_t insn[2];
	uint64_t val;

	if (f->error != 0 ||
	    guest_linear_read(&vcpu->vm->mem, &ps, f->rip, insn, sizeof(insn)) ||
	    insn[0] != 0x0f || insn[1] != 0x33)
		return -EINVAL;
	if (cpl > 0 && !(s->cr4 & X86_CR4_PCE))
		return -EINVAL;		/* the #GP is real (SDM vol. 2 RDPMC) */
	if (vpmu_rdpmc(&vcpu->pmu->model, (uint32_t)r->rcx, &val))
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
	if (vcpu_state_changed(vcpu))
		return -EIO;
	for_each_pmu_source(vcpu, i)
		if (pmu_sources[i]->emulated_retire)
			pmu_sources[i]->emulated_retire(vcpu, f->rip, cpl);
	vcpu->pmu->rdpmc.emulated++;
	return 0;
}

static bool rdpmc_debug_exit(struct vcpu *vcpu)
{
	const struct kvm_debug_exit_arch *d = &vcpu->run->debug.arch;
	struct paging_state ps;
	struct kvm_sregs *s;
	struct kvm_regs *r;
	struct gp_frame f;

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
		vcpu->pmu->rdpmc.passed_on++;
	}
	return true;
}

static int rdpmc_vcpu_init(struct vcpu *vcpu)
{
	return vcpu->vm->cfg->pmu.version ? 0 : VCPU_FEATURE_OFF;
}

const struct vcpu_feature pmu_rdpmc_feature = {
	.name = "rdpmc",
	.vcpu_init = rdpmc_vcpu_init,
	.before_run = rdpmc_before_run,
	.debug_exit = rdpmc_debug_exit,
};
