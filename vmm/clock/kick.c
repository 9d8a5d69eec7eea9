/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether a kick found the guest running. A PMI wraps where the vCPU
 * stopped, and cycles sampled at RIPs where the guest spends no time of its
 * own put exits at the top of profiles (docs/counting.md, "Sampling on
 * cycles"). A kick in guest code is a host interrupt, which exits (KVM's
 * "irq_exits" statistic). One that comes while pmuvm handles an exit makes
 * KVM_RUN return before entering; one that comes while KVM itself handles
 * an exit (an intercepted #UD, a WRMSR of the TSC deadline) returns after
 * that exit, with no host-interrupt exit. And one that comes as KVM enters
 * the guest (where exits are slow, an entry costs about as much) is taken
 * before the first guest instruction: RIP just past the exit's instruction.
 */
#include <errno.h>
#include <string.h>

#include "clock/clock.h"
#include "clock/kick.h"
#include "machine/vm.h"
#include "mem/pagewalk.h"
#include "pmu/vcpu_pmu.h"
#include "x86/decode.h"
#include "x86/x86.h"

/*
 * Instructions that exit to KVM on VMX and SVM and that KVM may handle
 * without pmuvm (SDM vol. 3C 26.1.2 and 26.1.3, APM vol. 2 15.9): CPUID,
 * WRMSR and RDMSR of MSRs KVM keeps (the TSC deadline, x2APIC EOI),
 * VMCALL and VMMCALL.
 */
static const struct {
	uint8_t len, bytes[3];
} kick_exiting_insns[] = {
	{ 2, { 0x0f, 0xa2 } },		/* CPUID */
	{ 2, { 0x0f, 0x30 } },		/* WRMSR */
	{ 2, { 0x0f, 0x32 } },		/* RDMSR */
	{ 3, { 0x0f, 0x01, 0xc1 } },	/* VMCALL */
	{ 3, { 0x0f, 0x01, 0xd9 } },	/* VMMCALL */
};

bool clock_run_kicked(const struct vcpu *vcpu)
{
	return vcpu->run_result == -EINTR ||
	       (vcpu->run_result == 0 && vcpu->run->exit_reason == KVM_EXIT_INTR);
}

/* The guest's instruction bytes just before RIP end with an exiting instruction. */
static bool kick_after_exiting_insn(struct vcpu *vcpu)
{
	const struct kvm_sregs *s = &vcpu->run->s.regs.sregs;
	struct paging_state ps = sregs_paging(s);
	uint64_t rip = vcpu->run->s.regs.regs.rip;
	uint8_t b[3];

	/* The linear address: CS.base + RIP, but for 64-bit code (SDM vol. 3A 3.2.4). */
	if (!(s->efer & X86_EFER_LMA && s->cs.l))
		rip = (uint32_t)(s->cs.base + rip);
	if (rip < sizeof(b) || guest_linear_read(&vcpu->vm->mem, &ps, rip - sizeof(b), b, sizeof(b)))
		return false;
	for (unsigned int i = 0; i < sizeof(kick_exiting_insns) / sizeof(kick_exiting_insns[0]);
	     i++) {
		unsigned int len = kick_exiting_insns[i].len;

		if (!memcmp(b + sizeof(b) - len, kick_exiting_insns[i].bytes, len))
			return true;
	}
	return false;
}

/*
 * RIP is the first instruction of a handler in the guest's IDT: KVM
 * delivered an event (an intercepted exception, an interrupt) as it
 * entered, and the kick came with the entry.
 */
static bool kick_at_event_entry(struct vcpu *vcpu)
{
	const struct kvm_sregs *s = &vcpu->run->s.regs.sregs;
	struct paging_state ps = sregs_paging(s);
	uint64_t gates[2 * 32];
	unsigned int n = (s->idt.limit + 1u) / IDT_GATE64_SIZE;

	if (!(s->efer & X86_EFER_LMA))
		return false;
	for (unsigned int v = 0; v < n && v < 256; v += 32) {
		unsigned int k = n - v < 32 ? n - v : 32;

		if (guest_linear_read(&vcpu->vm->mem, &ps, s->idt.base + v * IDT_GATE64_SIZE, gates,
				      k * IDT_GATE64_SIZE))
			return false;
		for (unsigned int i = 0; i < k; i++)
			if (idt_gate64_target(&gates[2 * i]) == vcpu->run->s.regs.regs.rip)
				return true;
	}
	return false;
}

/*
 * Without "irq_exits", KVM's "exits" not moving tells a kick before entry;
 * without either, no kick is told apart. Without the registers of every
 * exit (KVM_CAP_SYNC_REGS), no RIP is looked at.
 */
bool clock_kick_unfair(struct vcpu *vcpu, uint64_t ns)
{
	struct clock_state *c = vcpu->pmu->clock;
	uint64_t exits = UINT64_MAX, irqs = UINT64_MAX;

	if (!clock_run_kicked(vcpu))
		return false;
	/* Found less than an exit's time of guest code after entry. */
	if (ns < vcpu->vm->exit_cost_ns)
		return true;
	if (c->run_start_exits != UINT64_MAX && kvm_stat_read(&c->exits, &exits))
		exits = UINT64_MAX;
	if (c->run_start_irq_exits != UINT64_MAX && kvm_stat_read(&c->irq_exits, &irqs))
		irqs = UINT64_MAX;
	if (irqs != UINT64_MAX ? irqs == c->run_start_irq_exits :
				 exits != UINT64_MAX && exits == c->run_start_exits)
		return true;
	if (!vcpu->sync_sregs)
		return false;
	/* Just past the register access that ended the last run. */
	if (c->access_rip != UINT64_MAX && vcpu->run->s.regs.regs.rip - c->access_rip <= INSN_MAX_LEN)
		return true;
	/* Just past an exit KVM handled itself in this run, or an event it delivered. */
	return irqs != UINT64_MAX && exits != UINT64_MAX &&
	       exits - c->run_start_exits > irqs - c->run_start_irq_exits &&
	       (kick_after_exiting_insn(vcpu) || kick_at_event_entry(vcpu));
}

/* Kept until RIP leaves the access: a kick before entry leaves it where it was. */
void clock_kick_note_run(struct vcpu *vcpu)
{
	struct clock_state *c = vcpu->pmu->clock;
	uint64_t rip = vcpu->run->s.regs.regs.rip;

	if (!vcpu->sync_sregs)
		return;
	if (vcpu_exit_is_access(vcpu))
		c->access_rip = rip;
	else if (c->access_rip != UINT64_MAX && rip - c->access_rip > INSN_MAX_LEN)
		c->access_rip = UINT64_MAX;
}
