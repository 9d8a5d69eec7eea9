/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_count: retired instructions and branches counted exactly at CPL0.
 * Each sequence below, in asm so its instructions are
 * known, enables GLOBAL_CTRL with one WRMSR (which must not be counted) and
 * disables it with another (which must be), with fixed counter 0 and GP
 * counter 0 counting instructions, GP counter 1 all branches and GP
 * counters 2-7 the BR_INST_RETIRED umasks of the core CPUID.1 names
 * (include/x86-pmu/events.h), at OS.
 */
#include "pmu_common.h"

enum { BR_ALL, BR_COND, BR_CALL, BR_RET, BR_NOT_TAKEN, BR_TAKEN, BR_FAR, NR_BR };

/* GP counter 1 + i counts branch event i, encoded for the guest's core (pmu_model_event()). */
static const enum pmu_arch_event br_class[NR_BR] = {
	PMU_EV_BRANCHES, PMU_EV_BR_COND, PMU_EV_BR_NEAR_CALL, PMU_EV_BR_NEAR_RETURN,
	PMU_EV_BR_COND_NTAKEN, PMU_EV_BR_NEAR_TAKEN, PMU_EV_BR_FAR,
};
static uint64_t br_event[NR_BR];

/* GP0-7 and FIXED0 count each sequence (pmu_common.h). */
#define SEQ_BEGIN(name)	PMU_SEQ_BEGIN(name, 0xff, 1)
#define SEQ_END		PMU_SEQ_END
#define SEQ_END_INSNS	PMU_SEQ_END_INSNS

void seq_nops(void), seq_fences(void), seq_mmio(void), seq_loop(void), seq_rep(void), seq_call(void), seq_div(void),
	seq_intn(void), seq_hlt(void), seq_nop_irq(void), seq_popf(void), seq_iret_ret(void),
	seq_pushf(void), seq_gp(void), seq_pf(void), seq_err_by_hand(void), seq_timer_loop(void),
	seq_ud(void), seq_bp(void), nest_none(void), nest_pf(void), nest_hlt(void);
extern char nest_pf_resume[], seq_div_resume[], seq_intn_resume[], seq_gp_resume[], seq_pf_resume[],
	seq_err_by_hand_resume[], seq_timer_loop_end[], seq_ud_resume[], seq_bp_resume[];
/* Long enough for any engine: the timer's handler ends it (irq_ends_loop). */
#define TIMER_LOOP_N	500000000

uint8_t rep_src[256], rep_dst[256];
uint64_t de_stub;		/* IDT vector 0's entry stub, for seq_intn */
uint64_t err_stub;		/* #GP's or #PF's, for seq_err_by_hand */
uint64_t saved_rflags;		/* seq_pushf's PUSHF image */

asm(".text\n"
    SEQ_BEGIN(seq_nops)
    "	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n	nop\n"
    SEQ_END
    /* Fences retire like any instruction (SDM vol. 3B 20.2, INST_RETIRED). */
    SEQ_BEGIN(seq_fences)
    "	nop\n	mfence\n	nop\n	lfence\n	nop\n	sfence\n	nop\n"
    "	mfence\n	mfence\n	lfence\n	sfence\n	nop\n"
    SEQ_END
    SEQ_BEGIN(seq_loop)
    "	movl $5, %ebx\n"
    "1:	decl %ebx\n"
    "	jnz 1b\n"
    SEQ_END
    SEQ_BEGIN(seq_rep)
    "	movl $200, %ecx\n"
    "	leaq rep_src(%rip), %rsi\n"
    "	leaq rep_dst(%rip), %rdi\n"
    "	rep movsb\n"
    SEQ_END
    /*
     * POPF loads RFLAGS with TF clear (IF stays clear, as around every
     * sequence): a single-stepping VMM must set TF again after it.
     */
    SEQ_BEGIN(seq_popf)
    "	pushq $0x2\n"
    "	popfq\n"
    "	nop\n	nop\n	nop\n"
    SEQ_END
    /*
     * IRETQ (a far branch) returning onto a RET: where KVM's IRETQ drops the
     * trap flag, the RET runs in the IRETQ's step (kvm_pvm), and only the
     * stack tells where it went.
     */
    SEQ_BEGIN(seq_iret_ret)
    "	leaq 4f(%rip), %rax\n"
    "	pushq %rax\n"			/* the RET's return address */
    "	movq %rsp, %rax\n"
    "	pushq $0x10\n"
    "	pushq %rax\n"
    "	pushfq\n"
    "	pushq $0x8\n"
    "	leaq 5f(%rip), %rax\n"
    "	pushq %rax\n"
    "	iretq\n"
    "5:	ret\n"
    "4:\n"
    SEQ_END
    /*
     * PUSHF while counted: the image it saves must not hold the trap flag
     * a single-stepping VMM runs with (checked after the sequences, and
     * POPF'd once counting is off: a leftover TF would trap).
     */
    SEQ_BEGIN(seq_pushf)
    "	pushfq\n"
    "	popq saved_rflags(%rip)\n"
    SEQ_END
    /*
     * A store and a load where no memory is (an MMIO exit each): KVM's
     * emulator completes the store before it exits, and no single-step
     * trap follows it.
     */
    SEQ_BEGIN(seq_mmio)
    "	movl $0xd0000000, %ebx\n"
    "	movl $0, (%rbx)\n"
    "	movl (%rbx), %eax\n"
    "	nop\n"
    SEQ_END
    SEQ_BEGIN(seq_call)
    "	call 2f\n"
    "	jmp 3f\n"
    "2:	ret\n"
    "3:\n"
    SEQ_END
    SEQ_BEGIN(seq_div)
    "	xorl %ebx, %ebx\n"
    "	divl %ebx\n"
    ".globl seq_div_resume\nseq_div_resume:\n"
    SEQ_END
    SEQ_BEGIN(seq_intn)
    "	movq %rsp, %rax\n"		/* the frame #DE would push, by hand */
    "	pushq $0x10\n"
    "	pushq %rax\n"
    "	pushfq\n"
    "	pushq $0x8\n"
    "	leaq seq_intn_resume(%rip), %rax\n"
    "	pushq %rax\n"
    "	jmp *de_stub(%rip)\n"
    ".globl seq_intn_resume\nseq_intn_resume:\n"
    SEQ_END
    /*
     * #GP (a non-canonical load) and #PF (a load above the 4 GiB identity
     * map) against the frame each pushes, with its error code, made by
     * hand: the faulting load does not retire, the hand-made frame is 8
     * instructions and a JMP more than the MOVABS before the load.
     */
    SEQ_BEGIN(seq_gp)
    "	movabsq $0x8000000000000000, %rbx\n"
    "	movq (%rbx), %rax\n"
    ".globl seq_gp_resume\nseq_gp_resume:\n"
    SEQ_END
    SEQ_BEGIN(seq_pf)
    "	movabsq $0x100000000, %rbx\n"
    "	movq (%rbx), %rax\n"
    ".globl seq_pf_resume\nseq_pf_resume:\n"
    SEQ_END
    SEQ_BEGIN(seq_err_by_hand)
    "	movq %rsp, %rax\n"
    "	pushq $0x10\n"
    "	pushq %rax\n"
    "	pushfq\n"
    "	pushq $0x8\n"
    "	leaq seq_err_by_hand_resume(%rip), %rax\n"
    "	pushq %rax\n"
    "	pushq $0\n"			/* the error code */
    "	jmp *err_stub(%rip)\n"
    ".globl seq_err_by_hand_resume\nseq_err_by_hand_resume:\n"
    SEQ_END
    /* #UD (a fault: UD2 does not retire) and #BP (a trap: INT3 does). */
    SEQ_BEGIN(seq_ud)
    "	ud2\n"
    ".globl seq_ud_resume\nseq_ud_resume:\n"
    SEQ_END
    SEQ_BEGIN(seq_bp)
    "	int3\n"
    ".globl seq_bp_resume\nseq_bp_resume:\n"
    SEQ_END
    SEQ_BEGIN(seq_hlt)
    "	sti\n"
    "	hlt\n"
    "	cli\n"
    SEQ_END
    /* A loop the LAPIC timer interrupts (TIMER_LOOP_N iterations). */
    SEQ_BEGIN(seq_timer_loop)
    "	sti\n"
    "	movl $" XSTR(TIMER_LOOP_N) ", %ebx\n"
    "1:	decl %ebx\n"
    "	jnz 1b\n"
    "	cli\n"
    ".globl seq_timer_loop_end\nseq_timer_loop_end:\n"
    SEQ_END
    SEQ_BEGIN(seq_nop_irq)
    "	sti\n"
    "	nop\n"
    "	cli\n"
    SEQ_END
    /*
     * What the handlers below call last, to nest a second event in them:
     * nothing (1 instruction), a #PF (MOVABS, the faulting load, its
     * handler, RET), or an interrupt pending at a HLT (as seq_hlt).
     */
    ".globl nest_none\nnest_none:\n"
    "	ret\n"
    ".globl nest_pf\nnest_pf:\n"
    "	movabsq $0x100000000, %rax\n"
    "	movq (%rax), %rax\n"
    ".globl nest_pf_resume\nnest_pf_resume:\n"
    "	ret\n"
    ".globl nest_hlt\nnest_hlt:\n"
    "	sti\n"
    "	hlt\n"
    "	cli\n"
    "	ret\n"
);

struct expect {
	const char *name;
	void (*seq)(void);
	uint64_t insns;
	uint64_t br[NR_BR];
};

static const struct expect expects[] = {
	{ "nops", seq_nops, 10 + SEQ_END_INSNS, { 0 } },
	{ "fences", seq_fences, 12 + SEQ_END_INSNS, { 0 } },
	/* 5 JNZ: 4 taken, the last one not */
	{ "loop", seq_loop, 1 + 5 * 2 + SEQ_END_INSNS,
	  { [BR_ALL] = 5, [BR_COND] = 5, [BR_NOT_TAKEN] = 1, [BR_TAKEN] = 4 } },
	{ "rep movsb (retires once)", seq_rep, 4 + SEQ_END_INSNS, { 0 } },
	{ "mmio store and load", seq_mmio, 4 + SEQ_END_INSNS, { 0 } },
	{ "call/jmp/ret", seq_call, 3 + SEQ_END_INSNS,
	  { [BR_ALL] = 3, [BR_CALL] = 1, [BR_RET] = 1, [BR_TAKEN] = 3 } },
	{ "popf clearing TF", seq_popf, 5 + SEQ_END_INSNS, { 0 } },
	{ "pushfq saves no trap flag", seq_pushf, 2 + SEQ_END_INSNS, { 0 } },
	{ "iretq onto a ret", seq_iret_ret, 11 + SEQ_END_INSNS,
	  { [BR_ALL] = 2, [BR_RET] = 1, [BR_TAKEN] = 1, [BR_FAR] = 1 } },
};

static struct pmu_cfg cfg;

/* Fixed counter 0 and GP counter 0 start `below` short of their wrap (0: at 0). */
static void count_reset(uint64_t below)
{
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	wrmsr(MSR_IA32_FIXED_CTR0, -below & width_mask(cfg.fixed_width));
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	wrmsr(MSR_IA32_PMC0, -below & width_mask(cfg.gp_width));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_INSTRUCTIONS);
	for (int i = 0; i < NR_BR; i++) {
		wrmsr(MSR_IA32_PMC0 + 1 + i, 0);
		wrmsr(MSR_IA32_PERFEVTSEL0 + 1 + i, EVTSEL_EN | EVTSEL_OS | br_event[i]);
	}
}

struct counts {
	uint64_t fixed0, gp0, gp1;
	uint64_t br[NR_BR];
};

static struct counts run_seq_from(void (*seq)(void), uint64_t below)
{
	struct counts c;

	count_reset(below);
	seq();
	c.fixed0 = rdmsr(MSR_IA32_FIXED_CTR0);
	c.gp0 = rdmsr(MSR_IA32_PMC0);
	for (int i = 0; i < NR_BR; i++)
		c.br[i] = rdmsr(MSR_IA32_PMC0 + 1 + i);
	c.gp1 = c.br[BR_ALL];
	return c;
}

static struct counts run_seq(void (*seq)(void))
{
	return run_seq_from(seq, 0);
}

/*
 * #DE from seq_div and the hand-made #DE frame + JMP of seq_intn run the
 * same handler path (the same instructions), each to its resume point.
 * seq_intn retires 8 instructions (one a branch) before it, seq_div 1
 * (XOR) and, if it retired, the DIV.  (INT n would be the natural
 * comparison, but KVM's emulator fails on INT n and UD2 at CPL0 on kvm_pvm
 * hosts while stepping.)
 */
static volatile uint64_t resume_to;
static volatile bool de_stops_counting;
static void (*volatile fault_nest)(void) = nest_none;

static void de_hook(struct rt_frame *f)
{
	f->rip = resume_to;
	if (de_stops_counting)
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	fault_nest();
}

/* The #PF a nest_pf raises inside another handler, or seq_pf to measure it. */
static volatile uint64_t pf_resume_to;

static void pf_hook(struct rt_frame *f)
{
	f->rip = pf_resume_to;
}

/*
 * `seq` raises the exception (its hook resumes at `resume`), `hand` enters
 * the same stub through a hand-made frame (resuming at `hand_resume`): the
 * counts of both, printed as "name: fault, by hand".
 */
static void fault_and_by_hand(const char *name, void (*seq)(void), const char *resume,
			      void (*hand)(void), const char *hand_resume, struct counts *fault,
			      struct counts *by_hand)
{
	resume_to = (uint64_t)resume;
	*fault = run_seq(seq);
	resume_to = (uint64_t)hand_resume;
	*by_hand = run_seq(hand);
	printf("exact_count: %s: %llu/%llu, by hand: %llu/%llu\n", name,
	       (unsigned long long)fault->fixed0, (unsigned long long)fault->gp1,
	       (unsigned long long)by_hand->fixed0, (unsigned long long)by_hand->gp1);
}

#define IRQ_VECTOR	0x40

static volatile bool irq_stops_counting;

/* Where and how often it ran: the same instructions every time. */
static volatile uint64_t irq_rip, irq_rbx, irq_calls;
/* ~0: the handler sets the interrupted RBX to 1, so seq_timer_loop ends (no branch: same path either way). */
static volatile uint64_t irq_ends_loop;
static void (*volatile irq_nest)(void) = nest_none;

static void irq_handler(struct rt_frame *f)
{
	irq_rip = f->rip;
	irq_rbx = f->rbx;
	f->rbx = (f->rbx & ~irq_ends_loop) | (1 & irq_ends_loop);
	irq_calls++;
	if (irq_stops_counting)
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	irq_nest();
}

/*
 * The LAPIC timer (LVTT `lvtt`; one-shot: TMICT = `count`, TSC-deadline:
 * the deadline `count` TSC cycles on) interrupts seq_timer_loop in its
 * middle, as EBX in its frame shows (K iterations to go), whatever the
 * engine's speed: the loop is longer than anything runs it in that time,
 * and the handler sets EBX to 1, so that it ends after one more DEC and
 * JNZ wherever the interrupt came (between them the JNZ still sees the
 * DEC's flags). So N - K + 1 iterations: their 3 + 2(N - K + 1)
 * instructions and N - K + 1 branches, plus the handler's as `sti_nop`
 * (STI; NOP) counted them (its 3 + SEQ_END_INSNS instructions and no
 * branches aside).
 */
static void timer_loop(const char *name, uint32_t lvtt, uint64_t count,
		       const struct counts *sti_nop)
{
	struct counts t;

	irq_calls = 0;
	irq_ends_loop = ~0ULL;
	apic_write(APIC_LVTT, lvtt);
	if (lvtt & APIC_LVTT_TSC_DEADLINE)
		wrmsr(MSR_IA32_TSC_DEADLINE, rdtsc() + count);
	else
		apic_write(APIC_TMICT, (uint32_t)count);
	t = run_seq(seq_timer_loop);
	apic_write(APIC_LVTT, IRQ_VECTOR | APIC_LVT_MASKED);
	irq_ends_loop = 0;
	printf("exact_count: %s in a loop: %llu/%llu, %llu interrupt(s) at %#llx, %llu "
	       "iterations to go\n", name, (unsigned long long)t.fixed0,
	       (unsigned long long)t.gp1, (unsigned long long)irq_calls,
	       (unsigned long long)irq_rip, (unsigned long long)irq_rbx);
	GUEST_ASSERT_EQ(irq_calls, 1);
	GUEST_ASSERT(irq_rip > (uint64_t)seq_timer_loop && irq_rip < (uint64_t)seq_timer_loop_end);
	/* K = N: the timer expired before STI, and came right after its shadow. */
	GUEST_ASSERT(irq_rbx > 0 && irq_rbx <= TIMER_LOOP_N);
	GUEST_ASSERT_EQ(t.fixed0, 3 + 2 * (TIMER_LOOP_N - irq_rbx + 1) + sti_nop->fixed0 - 3);
	GUEST_ASSERT_EQ(t.gp1, TIMER_LOOP_N - irq_rbx + 1 + sti_nop->gp1);
}

static void self_ipi(void)
{
	apic_send_ipi(apic_id(), IRQ_VECTOR | (1u << 14));	/* fixed, assert */
}

/*
 * Events inside handlers, against the same handlers without them (a
 * nest_none call where the nest_* call is).  pf: seq_pf's count is its
 * MOVABS, the #PF path and SEQ_END, so a nest_pf adds pf.fixed0 - 4
 * instructions (its MOVABS and the #PF path) and pf's branches.  An
 * interrupt at nest_hlt adds STI, HLT, CLI and the interrupt's path, which
 * `hlt` (seq_hlt: STI, HLT, CLI, the path, SEQ_END) counted: hlt.fixed0 - 4.
 * HLT lets the interrupt in at once, where an interrupt pending at an STI
 * may wait while stepping (docs/counting.md, "Following events into handlers").
 */
/* seq_div with `nest` called from its #DE handler, printed beside `base` (without). */
static struct counts div_nesting(void (*nest)(void), const char *what,
				 const struct counts *base)
{
	struct counts n;

	fault_nest = nest;
	n = run_seq(seq_div);
	fault_nest = nest_none;
	printf("exact_count: %s in the #DE handler: %llu/%llu, without: %llu/%llu\n", what,
	       (unsigned long long)n.fixed0, (unsigned long long)n.gp1,
	       (unsigned long long)base->fixed0, (unsigned long long)base->gp1);
	return n;
}

static void nested_events(const struct counts *hlt)
{
	struct counts pf, base, n;

	rt_set_exception_hook(VEC_PF, pf_hook);
	pf_resume_to = (uint64_t)seq_pf_resume;
	pf = run_seq(seq_pf);
	pf_resume_to = (uint64_t)nest_pf_resume;

	self_ipi();
	irq_nest = nest_pf;
	n = run_seq(seq_hlt);
	irq_nest = nest_none;
	printf("exact_count: #PF in an interrupt handler: %llu/%llu, without: %llu/%llu, "
	       "#PF alone: %llu/%llu\n", (unsigned long long)n.fixed0, (unsigned long long)n.gp1,
	       (unsigned long long)hlt->fixed0, (unsigned long long)hlt->gp1,
	       (unsigned long long)pf.fixed0, (unsigned long long)pf.gp1);
	GUEST_ASSERT_EQ(n.fixed0, hlt->fixed0 + pf.fixed0 - 4);
	GUEST_ASSERT_EQ(n.gp0, hlt->gp0 + pf.gp0 - 4);
	GUEST_ASSERT_EQ(n.gp1, hlt->gp1 + pf.gp1);
	GUEST_ASSERT_EQ(n.br[BR_FAR], hlt->br[BR_FAR] + 1);	/* the #PF's IRETQ */
	test_ok("a #PF in an interrupt handler counted");

	resume_to = (uint64_t)seq_div_resume;
	base = run_seq(seq_div);
	n = div_nesting(nest_pf, "#PF", &base);
	GUEST_ASSERT_EQ(n.fixed0, base.fixed0 + pf.fixed0 - 4);
	GUEST_ASSERT_EQ(n.gp1, base.gp1 + pf.gp1);
	test_ok("a #PF in the #DE handler counted");

	self_ipi();
	n = div_nesting(nest_hlt, "interrupt", &base);
	GUEST_ASSERT_EQ(n.fixed0, base.fixed0 + hlt->fixed0 - 4);
	GUEST_ASSERT_EQ(n.gp1, base.gp1 + hlt->gp1);
	GUEST_ASSERT_EQ(n.br[BR_FAR], base.br[BR_FAR] + hlt->br[BR_FAR]);
	test_ok("an interrupt in the #DE handler counted");
	rt_set_exception_hook(VEC_PF, NULL);
}

int main(void)
{
	struct counts c, ud, in, hlt;

	cfg = pmu_cfg_read();
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0) && cfg.nr_gp >= 1 + NR_BR);
	for (int i = 0; i < NR_BR; i++)
		br_event[i] = pmu_model_event(br_class[i]);
	for (unsigned int i = 0; i < sizeof(expects) / sizeof(expects[0]); i++) {
		const struct expect *e = &expects[i];

		c = run_seq(e->seq);
		printf("exact_count: %s: fixed0=%llu gp0=%llu branches=%llu (want %llu, %llu)\n",
		       e->name, (unsigned long long)c.fixed0, (unsigned long long)c.gp0,
		       (unsigned long long)c.gp1, (unsigned long long)e->insns,
		       (unsigned long long)e->br[BR_ALL]);
		GUEST_ASSERT_EQ(c.fixed0, e->insns);
		GUEST_ASSERT_EQ(c.gp0, e->insns);
		for (int b = 0; b < NR_BR; b++) {
			if (c.br[b] != e->br[b])
				printf("exact_count: %s: branch event %#llx: %llu, want %llu\n",
				       e->name, (unsigned long long)br_event[b],
				       (unsigned long long)c.br[b], (unsigned long long)e->br[b]);
			GUEST_ASSERT_EQ(c.br[b], e->br[b]);
		}
	}

	printf("exact_count: pushfq saved rflags %#llx\n", (unsigned long long)saved_rflags);
	GUEST_ASSERT_EQ(saved_rflags & RFLAGS_TF, 0);
	asm volatile("pushq %0; popfq; nop" : : "m"(saved_rflags) : "cc", "memory");
	test_ok("no trap flag in saved rflags");

	/*
	 * Counters preset 3 short of their wrap count on through it: the
	 * 14 instructions of seq_nops leave them at 11, with the overflow
	 * in GLOBAL_STATUS (no PMI: neither counter has it enabled).
	 */
	c = run_seq_from(seq_nops, 3);
	printf("exact_count: across the wrap: fixed0=%llu gp0=%llu status=%#llx (want %llu)\n",
	       (unsigned long long)c.fixed0, (unsigned long long)c.gp0,
	       (unsigned long long)rdmsr(MSR_IA32_PERF_GLOBAL_STATUS),
	       (unsigned long long)expects[0].insns - 3);
	GUEST_ASSERT_EQ(c.fixed0, expects[0].insns - 3);
	GUEST_ASSERT_EQ(c.gp0, expects[0].insns - 3);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & ((1ull << 32) | 1), (1ull << 32) | 1);
	test_ok("exact counting across the counter wrap");

	/* A faulting instruction does not retire; a trapping one (INT n, a far branch) does. */
	rt_set_exception_hook(VEC_DE, de_hook);
	de_stub = idt_stub_addr(VEC_DE);
	fault_and_by_hand("div by 0", seq_div, seq_div_resume, seq_intn, seq_intn_resume, &ud, &in);
	GUEST_ASSERT_EQ(in.fixed0, ud.fixed0 + 7);
	GUEST_ASSERT_EQ(in.gp0, ud.gp0 + 7);
	GUEST_ASSERT_EQ(in.gp1, ud.gp1 + 1);
	GUEST_ASSERT_EQ(in.br[BR_TAKEN], ud.br[BR_TAKEN] + 1);	/* the JMP */
	GUEST_ASSERT_EQ(in.br[BR_FAR], ud.br[BR_FAR]);		/* one IRETQ each */
	GUEST_ASSERT(ud.br[BR_FAR] >= 1);
	test_ok("the #DE handler counted");

	/* #GP and #PF handlers, entered by the fault and by hand, counted alike. */
	for (int v = 0; v < 2; v++) {
		int vec = v ? VEC_PF : VEC_GP;

		rt_set_exception_hook(vec, de_hook);
		err_stub = idt_stub_addr(vec);
		fault_and_by_hand(v ? "#PF" : "#GP", v ? seq_pf : seq_gp,
				  v ? seq_pf_resume : seq_gp_resume, seq_err_by_hand,
				  seq_err_by_hand_resume, &ud, &in);
		rt_set_exception_hook(vec, NULL);
		GUEST_ASSERT_EQ(in.fixed0, ud.fixed0 + 8);
		GUEST_ASSERT_EQ(in.gp0, ud.gp0 + 8);
		GUEST_ASSERT_EQ(in.gp1, ud.gp1 + 1);
		GUEST_ASSERT_EQ(in.br[BR_TAKEN], ud.br[BR_TAKEN] + 1);
		GUEST_ASSERT_EQ(in.br[BR_FAR], ud.br[BR_FAR]);
		GUEST_ASSERT(ud.fixed0 > 1 + SEQ_END_INSNS + 10);	/* the handler's own */
	}
	test_ok("the #GP and #PF handlers counted");

	/*
	 * With "traps" on the command line (where KVM runs guest kernel mode
	 * natively: its instruction emulator, as on kvm_pvm, fails on UD2 and
	 * INT3 at CPL0 while stepping): #UD and #BP against seq_intn's frame.
	 * UD2 faults: 8 fewer than by hand.  INT3 traps and retires, a far
	 * branch where seq_intn has a near JMP: 7 fewer instructions.
	 */
	if (mbi_arg("traps")) {
		struct counts bp;

		rt_set_exception_hook(VEC_UD, de_hook);
		rt_set_exception_hook(VEC_BP, de_hook);
		de_stub = idt_stub_addr(VEC_UD);
		fault_and_by_hand("#UD", seq_ud, seq_ud_resume, seq_intn, seq_intn_resume, &ud, &in);
		GUEST_ASSERT_EQ(in.fixed0, ud.fixed0 + 8);
		GUEST_ASSERT_EQ(in.gp1, ud.gp1 + 1);
		de_stub = idt_stub_addr(VEC_BP);
		fault_and_by_hand("#BP", seq_bp, seq_bp_resume, seq_intn, seq_intn_resume, &bp, &in);
		GUEST_ASSERT_EQ(in.fixed0, bp.fixed0 + 7);
		GUEST_ASSERT_EQ(in.gp1, bp.gp1);
		GUEST_ASSERT_EQ(bp.br[BR_FAR], in.br[BR_FAR] + 1);
		GUEST_ASSERT_EQ(in.br[BR_TAKEN], bp.br[BR_TAKEN] + 1);
		rt_set_exception_hook(VEC_BP, NULL);
		rt_set_exception_hook(VEC_DE, de_hook);
		de_stub = idt_stub_addr(VEC_DE);
		test_ok("the #UD and #BP handlers counted");
	}


	/*
	 * HLT retires: with an interrupt pending, STI; HLT and STI; NOP take
	 * it at the same point, right after the HLT or NOP.
	 */
	rt_set_irq_handler(IRQ_VECTOR, irq_handler);
	self_ipi();
	c = run_seq(seq_nop_irq);
	self_ipi();
	hlt = run_seq(seq_hlt);
	printf("exact_count: sti;nop: %llu, sti;hlt: %llu\n", (unsigned long long)c.fixed0,
	       (unsigned long long)hlt.fixed0);
	GUEST_ASSERT(c.fixed0 > 3 + SEQ_END_INSNS);	/* the handler ran and counted */
	GUEST_ASSERT_EQ(hlt.fixed0, c.fixed0);
	GUEST_ASSERT_EQ(hlt.gp1, c.gp1);

	/* One-shot, 20 ms at divide by 1: after the setup, however slowly that is stepped. */
	apic_write(APIC_TDCR, 0xb);
	timer_loop("timer", IRQ_VECTOR, 20000000, &c);
	test_ok("a timer interrupt in a stepped loop counted");

	/*
	 * The same in TSC-deadline mode (SDM vol. 3A 10.5.4.1), whose
	 * interrupt KVM raises only as it enters the guest: an emulator's
	 * stretch must end at the deadline by itself. 2^26 TSC cycles: a few
	 * tens of ms.
	 */
	GUEST_ASSERT(cpuid(1).ecx & CPUID_1_ECX_TSC_DEADLINE);
	timer_loop("TSC-deadline timer", IRQ_VECTOR | APIC_LVTT_TSC_DEADLINE, 1ULL << 26, &c);
	test_ok("a TSC-deadline timer interrupt in a counted loop counted");

	/*
	 * Handlers that stop counting return through frames pushed while the
	 * vCPU was stepped: they must hold no trap flag, or their IRETQ would
	 * trap (#DB, an unexpected exception here) once stepping has ended.
	 */
	irq_stops_counting = de_stops_counting = true;
	self_ipi();
	(void)run_seq(seq_nop_irq);
	resume_to = (uint64_t)seq_div_resume;
	(void)run_seq(seq_div);
	irq_stops_counting = de_stops_counting = false;
	test_ok("no trap flag in a stepped event's frame");

	nested_events(&hlt);
	test_ok("exact_count");
	return 0;
}
