/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_kernel_run: user-mode counts stay exact while the kernel runs
 * unstepped (vmm/exact/krun.c).  Fixed counter 0 counts instructions and GP
 * counter 0 branches, both USR only, around CPL3 calls that enter the
 * kernel:
 *   syscalls  user_syscalls makes SYSCALL_N system calls into syscall_entry,
 *             which loops KERNEL_LOOP times before its SYSRETQ;
 *   timer     user_spin loops while a one-shot LAPIC timer interrupts it
 *             (20 ms: after the setup however slowly that is stepped;
 *             SPIN_N iterations: longer than anything runs them in 20 ms);
 *             one that comes before the loop arms the timer again; in it
 *             the handler sets ECX to 1, so that it
 *             ends N - K + 1 iterations in, K being ECX at the interrupt
 *             (the JNZ after it sees the DEC's flags), and the runtime's
 *             handler returns with its IRETQ;
 *   missed    user_syscalls again, into syscall_entry2, whose SYSRETQ pmuvm
 *             has not seen: the first return through it traps (the TF saved
 *             in R11), after the DEC that follows the SYSCALL; pmuvm counts
 *             that DEC from the SYSCALL's return address, counts the miss
 *             and steps the kernel again to learn the site.  Still exact.
 *             pmuvm follows a SYSCALL entry's code from IA32_LSTAR to
 *             its SYSRET: syscall_entry2 reaches its own through an
 *             indirect jump, which is not followed.
 * With "enabled" on the command line, instead of those three:
 *   enabled   counting is enabled inside the kernel, the way Linux's
 *             perf_event_open() enables a counter on its caller:
 *             user_enabled's first SYSCALL (unstepped, nothing counts yet)
 *             enters syscall_entry3, whose WRMSR sets GLOBAL_CTRL, which
 *             returns through a SYSRETQ stepping never saw: pmuvm must
 *             have found it from LSTAR (the report's sysret site, printed
 *             here as "sysret at"). The user code up to and including the
 *             SYSCALL that disables counting again is counted.
 * With "enabled_iret", before the kernel was ever stepped (no return site
 * learned), the same into syscall_entry4, which returns through an IRETQ
 * behind a conditional jump and a UD2, as Linux's execve returns: pmuvm
 * must have found it from LSTAR ("iret at"), and the counts are exact.
 * Each of the first two runs once before with OS counted too, so that the
 * kernel is stepped and pmuvm learns where it returns to user mode (the
 * runtime's IRETQ into user mode, its interrupt return, syscall_entry's
 * SYSRETQ).  Prints each count with what it must be; the system test asserts
 * them where the host steps CPL3 and fires breakpoints.
 */
#include "pmu_common.h"

#define KERNEL_LOOP	1000
#define SPIN_N		500000000
#define IRQ_VECTOR	0x40

/* A SYSCALL entry's WRMSR of GLOBAL_CTRL <- EDX:EAX, then KERNEL_LOOP turns. */
#define SET_GLOBAL_CTRL_ASM					\
	"	movq %rcx, %r9\n"				\
	"	movl $0x38f, %ecx\n"				\
	"	wrmsr\n"					\
	"	movq %r9, %rcx\n"				\
	"	movl $1000, %eax\n"				\
	"1:	decl %eax\n"					\
	"	jnz 1b\n"

uint64_t user_spin(uint64_t arg);
extern char user_spin_loop[], user_spin_end[];
void syscall_entry(void);
void syscall_entry2(void);

asm(".text\n"
    USER_SYSCALLS_ASM
    ".globl user_spin\n"
    "user_spin:\n"
    "	movl $" XSTR(SPIN_N) ", %ecx\n"
    "user_spin_loop:\n"
    "	decl %ecx\n"
    "	jnz user_spin_loop\n"
    "user_spin_end:\n"
    "	ret\n"
    /* IF and TF clear (FMASK); RCX and R11 say where to return. */
    ".globl syscall_entry2\n"
    "syscall_entry2:\n"
    "	movl $1000, %eax\n"
    "1:	decl %eax\n"
    "	jnz 1b\n"
    "	leaq syscall_entry2_ret(%rip), %rax\n"
    "	jmp *%rax\n"
    ".globl syscall_entry\n"
    "syscall_entry:\n"
    "	movl $1000, %eax\n"
    "1:	decl %eax\n"
    "	jnz 1b\n"
    "	sysretq\n"
    "syscall_entry2_ret:\n"
    "	sysretq\n"
    /* User code: GLOBAL_CTRL set to EDX:EAX by a system call, twice. */
    ".globl user_enabled\n"
    "user_enabled:\n"
    "	movl $1, %eax\n"
    "	movl $1, %edx\n"
    "	syscall\n"
    "	movl $1000, %ecx\n"
    "1:	decl %ecx\n"
    "	jnz 1b\n"
    "	xorl %eax, %eax\n"
    "	xorl %edx, %edx\n"
    "	syscall\n"
    "	ret\n"
    /* WRMSR GLOBAL_CTRL <- EDX:EAX, a kernel stretch, back. */
    ".globl syscall_entry3\n"
    "syscall_entry3:\n"
    SET_GLOBAL_CTRL_ASM
    ".globl syscall_entry3_ret\n"
    "syscall_entry3_ret:\n"
    "	sysretq\n"
    /* The same, back through an IRETQ on the user stack (IF from R11). */
    ".globl syscall_entry4\n"
    "syscall_entry4:\n"
    SET_GLOBAL_CTRL_ASM
    "	testl %eax, %eax\n"
    "	jz syscall_entry4_frame\n"
    "	ud2\n"
    "	int3\n"
    "syscall_entry4_frame:\n"
    "	movq %rsp, %r10\n"
    "	pushq $" XSTR(SEG_UDATA) " | 3\n"
    "	pushq %r10\n"
    "	pushq %r11\n"
    "	pushq $" XSTR(SEG_UCODE64) " | 3\n"
    "	pushq %rcx\n"
    ".globl syscall_entry4_ret\n"
    "syscall_entry4_ret:\n"
    "	iretq\n");

uint64_t user_enabled(uint64_t arg);
void syscall_entry3(void);
void syscall_entry3_ret(void);
void syscall_entry4(void);
void syscall_entry4_ret(void);

_Static_assert(SYSCALL_N == 10 && KERNEL_LOOP == 1000,
	       "keep the asm's constants in step");
_Static_assert(MSR_IA32_PERF_GLOBAL_CTRL == 0x38f && GLOBAL_CTRL_FIXED(0) == 1ull << 32,
	       "user_enabled sets fixed counter 0 and GP counter 0");

static volatile uint64_t irq_calls, irq_cs, irq_rcx;

/*
 * In the loop: ends it (ECX 1). Before it (the timer expired while the way
 * into user mode was still stepped): armed again, for the loop.
 */
static void irq_handler(struct rt_frame *f)
{
	if (f->rip < (uint64_t)user_spin_loop || f->rip >= (uint64_t)user_spin_end) {
		apic_write(APIC_TMICT, 20000000);
		return;
	}
	irq_calls++;
	irq_cs = f->cs;
	irq_rcx = f->rcx;
	f->rcx = 1;
}

struct counts {
	uint64_t insns, branches;
};

/* fn at CPL3 with USR counted; with `os`, kernel mode counted as well. */
static struct counts count_user_run(uint64_t (*fn)(uint64_t), bool os)
{
	uint64_t ring = EVTSEL_USR | (os ? EVTSEL_OS : 0);
	struct counts c;

	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(0) | (os ? FIXED_CTRL_OS(0) : 0));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | ring | PMU_EVENT_BRANCHES);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(0) | 1);
	rt_run_user(fn, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	c.insns = rdmsr(MSR_IA32_FIXED_CTR0);
	c.branches = rdmsr(MSR_IA32_PMC0);
	return c;
}

/* user_spin with a 20 ms one-shot LAPIC timer (divide by 1) armed. */
static struct counts count_spin_with_timer(bool os)
{
	struct counts c;

	irq_calls = 0;
	apic_write(APIC_TDCR, 0xb);
	apic_write(APIC_LVTT, IRQ_VECTOR);
	apic_write(APIC_TMICT, 20000000);
	c = count_user_run(user_spin, os);
	apic_write(APIC_LVTT, IRQ_VECTOR | APIC_LVT_MASKED);
	return c;
}

/* Counters set up, GLOBAL_CTRL left to user_enabled's system calls into `entry`. */
static void count_enabled_inside(void (*entry)(void))
{
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);	/* its GP enables are set at reset */
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_PMC0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(0));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | PMU_EVENT_BRANCHES);
	wrmsr(MSR_LSTAR, (uint64_t)entry);
	rt_run_user(user_enabled, 0);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
}

/* MOV, 1000 x (DEC, JNZ), XOR, XOR, SYSCALL; the JNZs and the SYSCALL. */
static void print_enabled_counts(void)
{
	printf("exact_kernel_run: enabled usr=%llu br=%llu want %d %d\n",
	       (unsigned long long)rdmsr(MSR_IA32_FIXED_CTR0),
	       (unsigned long long)rdmsr(MSR_IA32_PMC0), 1 + 2 * 1000 + 3, 1000 + 1);
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	struct counts nop, sc, spin;
	uint64_t want_insns, want_br;

	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0) && cfg.nr_gp >= 1);
	rt_set_irq_handler(IRQ_VECTOR, irq_handler);
	syscall_setup(syscall_entry);

	if (mbi_arg("enabled_iret")) {
		count_enabled_inside(syscall_entry4);
		printf("exact_kernel_run: iret at %#llx\n",
		       (unsigned long long)(uintptr_t)syscall_entry4_ret);
		print_enabled_counts();
		return 0;
	}

	/* The runtime's own CALL into fn and RET (user_nop is only the RET). */
	count_user_run(user_nop, true);
	nop = count_user_run(user_nop, false);
	nop.insns -= 1;
	nop.branches -= 1;

	if (mbi_arg("enabled")) {
		count_user_run(user_nop, false);
		count_enabled_inside(syscall_entry3);
		printf("exact_kernel_run: sysret at %#llx\n",
		       (unsigned long long)(uintptr_t)syscall_entry3_ret);
		print_enabled_counts();
		return 0;
	}

	/* MOV, 10 x (SYSCALL, DEC, JNZ), RET; branches: the SYSCALLs, JNZs, RET. */
	count_user_run(user_syscalls, true);
	sc = count_user_run(user_syscalls, false);
	printf("exact_kernel_run: syscalls usr=%llu br=%llu want %llu %llu\n",
	       (unsigned long long)sc.insns, (unsigned long long)sc.branches,
	       (unsigned long long)(nop.insns + 1 + 3 * SYSCALL_N + 1),
	       (unsigned long long)(nop.branches + 2 * SYSCALL_N + 1));

	/* MOV, N - K + 1 x (DEC, JNZ), RET. */
	count_spin_with_timer(true);
	spin = count_spin_with_timer(false);
	printf("exact_kernel_run: timer usr=%llu br=%llu want %llu %llu irqs=%llu from_user=%d "
	       "in_loop=%d\n",
	       (unsigned long long)spin.insns, (unsigned long long)spin.branches,
	       (unsigned long long)(nop.insns + 1 + 2 * (SPIN_N - irq_rcx + 1) + 1),
	       (unsigned long long)(nop.branches + (SPIN_N - irq_rcx + 1) + 1),
	       (unsigned long long)irq_calls, irq_cs == RT_USER_CS,
	       irq_rcx > 0 && irq_rcx <= SPIN_N);

	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry2);
	sc = count_user_run(user_syscalls, false);
	want_insns = nop.insns + 1 + 3 * SYSCALL_N + 1;
	want_br = nop.branches + 2 * SYSCALL_N + 1;
	printf("exact_kernel_run: missed usr=%llu br=%llu want %llu %llu\n",
	       (unsigned long long)sc.insns, (unsigned long long)sc.branches,
	       (unsigned long long)want_insns, (unsigned long long)want_br);
	return 0;
}
