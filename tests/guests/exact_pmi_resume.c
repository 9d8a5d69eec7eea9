/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_pmi_resume: counting goes on after a PMI taken in the middle of a
 * counted loop, and the PMI handler's own instructions count too (its
 * counter counts at OS).
 *
 * PMC0 counts retired instructions at OS|USR with INT (PERFEVTSEL0
 * 0x5300C0), preset to -PRESET; interrupts are on and LVTPC sends
 * PMI_VECTOR, whose IDT gate points at pmi_stub: the LAPIC EOI and IRETQ,
 * in asm so its instructions are known. pmi_loop() enables PMC0 in
 * GLOBAL_CTRL (that WRMSR is not counted) and retires LOOP_INSNS
 * instructions ending in the WRMSR that disables it (counted). The PMI
 * comes after the PRESETth of them, well inside the loop, so the counter
 * ends at -PRESET + LOOP_INSNS + the stub's instructions, wherever the PMI
 * lands (SDM vol. 3B 20.2.1: a counter that overflows goes on counting
 * from 0). The EOI is a WRMSR in x2APIC mode and a store to the LAPIC
 * page in xAPIC mode ("apic=xapic" on the command line), which KVM
 * completes in its instruction emulator. Reported as values "pmc0",
 * "pmis" (handler runs), "x2apic" (the mode, so the stub) and "want".
 */
#include "pmu_common.h"

#define LOOP_N		1000
/* After the enabling WRMSR: MOV to EBX, LOOP_N x (DEC, JNZ), XOR, XOR, WRMSR. */
#define LOOP_INSNS	(1 + 2 * LOOP_N + 3)
#define PRESET		101

/*
 * The handlers, one per APIC mode. x2APIC: PUSH x3, MOV, XOR, XOR, WRMSR
 * (EOI), POP x3, INCL, IRETQ. xAPIC: PUSH, MOVABS, MOVL (EOI), POP,
 * INCL, IRETQ.
 */
#define X2APIC_STUB_INSNS	12
#define XAPIC_STUB_INSNS	6

void pmi_loop(void);
void pmi_stub_x2apic(void), pmi_stub_xapic(void);
volatile uint32_t pmi_count;

asm(".text\n"
    ".globl pmi_loop\n"
    "pmi_loop:\n"
    "	pushq %rbx\n"
    "	movl $0x38f, %ecx\n"
    "	movl $1, %eax\n"		/* PMC0 */
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    "	movl $" XSTR(LOOP_N) ", %ebx\n"
    "1:	decl %ebx\n"
    "	jnz 1b\n"
    "	xorl %eax, %eax\n"
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    "	popq %rbx\n"
    "	ret\n"
    ".globl pmi_stub_x2apic\n"
    "pmi_stub_x2apic:\n"
    "	pushq %rax\n"
    "	pushq %rcx\n"
    "	pushq %rdx\n"
    "	movl $0x80b, %ecx\n"		/* IA32_X2APIC_EOI */
    "	xorl %eax, %eax\n"
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    "	popq %rdx\n"
    "	popq %rcx\n"
    "	popq %rax\n"
    "	incl pmi_count(%rip)\n"
    "	iretq\n"
    ".globl pmi_stub_xapic\n"
    "pmi_stub_xapic:\n"
    "	pushq %rax\n"
    "	movabsq $0xfee000b0, %rax\n"	/* the xAPIC EOI register */
    "	movl $0, (%rax)\n"
    "	popq %rax\n"
    "	incl pmi_count(%rip)\n"
    "	iretq\n");

/* Points this CPU's IDT gate for `vector` at `handler` (same selector and type). */
static void idt_set_gate(unsigned int vector, void (*handler)(void))
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) idtr;
	uint64_t a = (uint64_t)handler;
	uint16_t *g;

	asm volatile("sidt %0" : "=m"(idtr));
	g = (uint16_t *)(idtr.base + 16 * vector);
	g[0] = (uint16_t)a;
	g[3] = (uint16_t)(a >> 16);
	g[4] = (uint16_t)(a >> 32);
	g[5] = (uint16_t)(a >> 48);
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	bool x2apic = apic_is_x2apic();
	uint64_t stub = x2apic ? X2APIC_STUB_INSNS : XAPIC_STUB_INSNS;

	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 1);
	idt_set_gate(PMI_VECTOR, x2apic ? pmi_stub_x2apic : pmi_stub_xapic);
	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	wrmsr(MSR_IA32_PMC0, -(uint64_t)PRESET & width_mask(cfg.gp_width));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | EVTSEL_OS | EVTSEL_USR |
				    PMU_EVENT_INSTRUCTIONS);
	asm volatile("sti");
	pmi_loop();
	asm volatile("cli");
	GUEST_VALUE("pmc0", rdmsr(MSR_IA32_PMC0));
	GUEST_VALUE("pmis", pmi_count);
	GUEST_VALUE("x2apic", x2apic);
	GUEST_VALUE("want", LOOP_INSNS - PRESET + stub);
	return 0;
}
