/* SPDX-License-Identifier: MIT */
/*
 * User mode (rt/usermode.h): the TSS per CPU, a writable GDT that holds
 * their descriptors, and the C side of rt_run_user().
 */
#include <stddef.h>
#include <rt/idt.h>
#include <rt/layout.h>
#include <rt/smp.h>
#include <rt/spinlock.h>
#include <rt/panic.h>
#include <rt/x86.h>
#include <rt/printf.h>
#include <rt/exit.h>
#include <rt/alloc.h>
#include <rt/usermode.h>
#include "internal.h"
#include "sched.h"

/* 64-bit TSS (SDM vol. 3A 8.7, figure 8-11). */
struct tss64 {
	uint32_t reserved0;
	uint64_t rsp0, rsp1, rsp2;
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iopb;
} __attribute__((packed));

#define SEG_TSS0	0x30	/* CPU n's TSS: SEG_TSS0 + 16 * n */
#define GDT_BASE_ENTRIES 6

/*
 * Same first entries as boot_gdt (boot.S), so the selectors loaded in
 * CS/SS/DS stay valid when a CPU switches to this table; then a 16-byte
 * TSS descriptor per CPU.  Writable: LTR sets the busy bit.
 */
static uint64_t user_gdt[GDT_BASE_ENTRIES + 2 * RT_MAX_CPUS] __attribute__((aligned(16))) = {
	0,
	0x00af9a000000ffff,	/* SEG_KCODE64 */
	0x00cf92000000ffff,	/* SEG_KDATA */
	0x00cf9a000000ffff,	/* SEG_KCODE32 */
	0x00cff2000000ffff,	/* SEG_UDATA */
	0x00affa000000ffff,	/* SEG_UCODE64 */
};

static struct tss64 tss[RT_MAX_CPUS] __attribute__((aligned(16)));
static volatile int tss_loaded[RT_MAX_CPUS];
/* The user stack of rt_run_user() outside threads: the BSP's here, the APs' from the heap. */
static uint8_t bsp_user_stack[RT_USER_STACK_SIZE] __attribute__((aligned(16)));
static void *user_stack_top[RT_MAX_CPUS] = { [0] = bsp_user_stack + RT_USER_STACK_SIZE };

uint64_t rt_enter_user(uint64_t (*fn)(uint64_t), uint64_t arg, uint64_t user_rsp,
		       uint64_t rsp0_addr, uint64_t *ksp);	/* usermode_entry.S */
uint64_t rt_user_ksp[RT_MAX_CPUS];	/* K of the active rt_run_user() per CPU */

extern char rt_user_trap[], rt_user_resume[];


/*
 * The user side ends with UD2 at rt_user_trap: turn that #UD into an IRET
 * to rt_user_resume at CPL0 on this CPU's saved kernel stack.  Any other
 * #UD is fatal, as without the hook.
 */
static void user_ud_hook(struct rt_frame *f)
{
	if (syscall_dispatch(f))
		return;
	if (f->rip == (uint64_t)rt_user_trap && f->cs == RT_USER_CS) {
		f->rip = (uint64_t)rt_user_resume;
		f->cs = SEG_KCODE64;
		f->ss = SEG_KDATA;
		f->rsp = rt_user_ksp[rt_cpu_id()];
		f->rflags = 0x2;	/* IF = 0; rt_user_resume restores the caller's */
		return;
	}
	console_break_lock();
	printf("FAIL: unexpected exception 6 (#UD) on cpu %d\n", rt_cpu_id());
	rt_dump_frame(f);
	rt_report_fatal(f, 6, "#UD");
	rt_exit(RT_EXIT_FAIL);
}

static void user_cpu_init(int cpu)
{
	uint64_t base = (uint64_t)&tss[cpu];
	uint64_t limit = sizeof(struct tss64) - 1;
	int slot = GDT_BASE_ENTRIES + 2 * cpu;
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) desc = { sizeof(user_gdt) - 1, (uint64_t)user_gdt };
	uint16_t sel = (uint16_t)(SEG_TSS0 + 16 * cpu);

	tss[cpu].iopb = sizeof(struct tss64);	/* no I/O bitmap */
	/* Available 64-bit TSS (type 9), P=1, DPL0 (SDM 8.2.3, figure 8-4). */
	user_gdt[slot] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
			 (0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
			 (((base >> 24) & 0xff) << 56);
	user_gdt[slot + 1] = base >> 32;
	asm volatile("lgdt %0" : : "m"(desc) : "memory");
	asm volatile("ltr %0" : : "r"(sel) : "memory");
	usermode_install_ud_hook();
	tss_loaded[cpu] = 1;
}

void usermode_install_ud_hook(void)
{
	rt_set_exception_hook(VEC_UD, user_ud_hook);
}

/*
 * At a thread switch (interrupts off): TSS.RSP0 and the saved kernel stack
 * belong to the thread that entered user mode, so they go with it.
 */
void usermode_switch(struct user_ctx *prev, const struct user_ctx *next)
{
	int cpu = rt_cpu_id();

	prev->rsp0 = tss[cpu].rsp0;
	prev->ksp = rt_user_ksp[cpu];
	tss[cpu].rsp0 = next->rsp0;
	rt_user_ksp[cpu] = next->ksp;
}

uint64_t usermode_run(uint64_t (*fn)(uint64_t), uint64_t arg, void *stack_top)
{
	int cpu = rt_cpu_id();

	if (cpu < 0 || cpu >= RT_MAX_CPUS)
		rt_panic("rt_run_user() on cpu %d", cpu);
	if (!tss_loaded[cpu]) {
		/* Two threads of this CPU must not both LTR: the second would #GP (busy TSS). */
		uint64_t flags = local_irq_save();

		if (!tss_loaded[cpu])
			user_cpu_init(cpu);
		local_irq_restore(flags);
	}
	return rt_enter_user(fn, arg, (uint64_t)stack_top,
			     (uint64_t)&tss[cpu] + offsetof(struct tss64, rsp0), &rt_user_ksp[cpu]);
}

/*
 * Threads other than the boot ones get a user stack of their own, so two
 * threads of one CPU in rt_run_user() at once do not share one.
 */
uint64_t rt_run_user(uint64_t (*fn)(uint64_t), uint64_t arg)
{
	struct rt_thread *t = rt_this_cpu()->current;

	if (t && !t->is_boot && !t->is_idle) {
		if (!t->user_stack)
			t->user_stack = rt_alloc(RT_USER_STACK_SIZE, 16);
		if (!t->user_stack)
			rt_panic("thread %lu: no memory for its user stack", t->id);
		return usermode_run(fn, arg, (char *)t->user_stack + RT_USER_STACK_SIZE);
	}
	return usermode_run(fn, arg, user_stack_top[rt_cpu_id()]);
}

void usermode_set_cpu_stack(int cpu, void *top)
{
	user_stack_top[cpu] = top;
}
