/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Start-up probes of what this host's KVM does, each on a new vCPU of one
 * throwaway VM (struct kvm_probes) booted straight into 64-bit code: does
 * it single-step CPL3; does a guest RDPMC reach pmuvm (a #GP) or does KVM
 * answer it, per counter index; does single-stepping follow an exception
 * into its handler; does it run guest kernel mode natively or emulate it
 * (the same loop timed at CPL3 and at CPL0); what does an exit cost inside
 * KVM_RUN, to userspace and handled by KVM (the clock source takes both off
 * each run); do execution breakpoints set with KVM_GUESTDBG_USE_HW_BP fire;
 * does single-stepping go on after an instruction KVM completes in its own
 * emulator (an MMIO access: on VMX and SVM its write-back of RFLAGS drops
 * the trap flag). The counting sources choose their paths from the
 * answers, never from the host's name: docs/counting.md, "Start-up probes"
 * and "Per host kind".
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kvm/kvm.h"
#include "kvm/msr_filter.h"
#include "kvm/probe.h"

#define PROBE_MEM	0x200000ULL
#define PROBE_PML4	0x1000
#define PROBE_PDPT	0x2000
#define PROBE_PD	0x3000
#define PROBE_CODE	0x4000
#define PROBE_STACK	0x8000
#define PROBE_GDT	0x500
#define PROBE_IDT	0x600
#define PROBE_HANDLER	(PROBE_CODE + 0x40)
#define PROBE_NOPS	4
#define PROBE_MMIO	PROBE_MEM	/* mapped, outside the memory slot */
#define PROBE_LAYOUT_END	0x10000	/* all a probe writes or its guest stores */
#define X86_CR4_PCE_BIT	0x100

#define PTE_P_RW_US	0x7ULL
#define PDE_PS		0x80ULL

struct probe {
	int vm, vcpu;
	uint8_t *mem;
	struct kvm_run *run;
	size_t run_size;
};

void kvm_probes_init(struct kvm_probes *ps, int kvm_fd)
{
	*ps = (struct kvm_probes){ .kvm_fd = kvm_fd, .vm = -1 };
}

void kvm_probes_close(struct kvm_probes *ps)
{
	free(ps->cpuid);
	if (ps->mem)
		munmap(ps->mem, PROBE_MEM);
	if (ps->vm >= 0)
		close(ps->vm);
	kvm_probes_init(ps, ps->kvm_fd);
}

/*
 * The probes' VM, made by the first probe: its memory, its CPUID, and KVM's
 * own vPMU disabled as for pmuvm's own VMs (pmu/pmu.c), so the answers are
 * theirs. Creating and destroying a VM is the dearest part of a probe under
 * nested virtualization (docs/counting.md, "Start-up probes").
 */
static int probes_vm(struct kvm_probes *ps)
{
	struct kvm_userspace_memory_region region = { .memory_size = PROBE_MEM };

	if (ps->vm >= 0)
		return 0;
	ps->vm = ioctl(ps->kvm_fd, KVM_CREATE_VM, 0);
	if (ps->vm < 0)
		return -errno;
	kvm_disable_vpmu(ps->vm);
	ps->mem = mmap(NULL, PROBE_MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ps->cpuid = calloc(1, sizeof(*ps->cpuid) + 256 * sizeof(struct kvm_cpuid_entry2));
	if (ps->mem == MAP_FAILED || !ps->cpuid) {
		if (ps->mem == MAP_FAILED)
			ps->mem = NULL;
		kvm_probes_close(ps);
		return -ENOMEM;
	}
	ps->cpuid->nent = 256;
	region.userspace_addr = (uintptr_t)ps->mem;
	if (ioctl(ps->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0 ||
	    ioctl(ps->kvm_fd, KVM_GET_SUPPORTED_CPUID, ps->cpuid) < 0) {
		int r = -errno;

		kvm_probes_close(ps);
		return r;
	}
	return 0;
}

static void probe_layout(uint8_t *m, const uint8_t *code, size_t len)
{
	static const uint64_t gdt[] = {
		0,
		0x00af9a000000ffffULL,	/* 0x08 kernel code 64 */
		0x00cf92000000ffffULL,	/* 0x10 kernel data */
		0x00affa000000ffffULL,	/* 0x18 user code 64, DPL3 */
		0x00cff2000000ffffULL,	/* 0x20 user data, DPL3 */
	};
	uint64_t e;

	memset(m, 0, PROBE_LAYOUT_END);
	e = PROBE_PDPT | PTE_P_RW_US;
	memcpy(m + PROBE_PML4, &e, 8);
	e = PROBE_PD | PTE_P_RW_US;
	memcpy(m + PROBE_PDPT, &e, 8);
	e = 0 | PTE_P_RW_US | PDE_PS;		/* 2 MiB at 0, user-accessible */
	memcpy(m + PROBE_PD, &e, 8);
	e = PROBE_MMIO | PTE_P_RW_US | PDE_PS;	/* the next 2 MiB: no memory */
	memcpy(m + PROBE_PD + 8, &e, 8);
	memcpy(m + PROBE_GDT, gdt, sizeof(gdt));
	memcpy(m + PROBE_CODE, code, len);
}

static struct kvm_segment flat_seg(uint16_t sel, uint8_t type, bool code, unsigned int dpl)
{
	return (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = sel, .type = type,
		.present = 1, .dpl = dpl, .s = 1, .l = code, .db = !code, .g = 1,
	};
}

/* IOPL 3, so the RDPMC probe's OUT at CPL3 exits instead of faulting. */
#define PROBE_RFLAGS	0x3002

static int probe_setup_vcpu(const struct kvm_probes *ps, struct probe *p, bool step, bool kernel)
{
	struct kvm_guest_debug dbg = {
		.control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_SINGLESTEP,
	};
	struct kvm_regs regs = { .rip = PROBE_CODE, .rsp = PROBE_STACK, .rflags = PROBE_RFLAGS };
	struct kvm_sregs s;

	if (ioctl(p->vcpu, KVM_SET_CPUID2, ps->cpuid) < 0 || ioctl(p->vcpu, KVM_GET_SREGS, &s) < 0)
		return -EIO;
	s.cr0 = 0x80000011;		/* PG | ET | PE */
	s.cr3 = PROBE_PML4;
	s.cr4 = 0x20 | X86_CR4_PCE_BIT;	/* PAE, RDPMC allowed at CPL3 */
	s.efer = 0x500;			/* LMA | LME */
	if (kernel) {
		s.cs = flat_seg(0x08, 0xb, true, 0);
		s.ss = s.ds = s.es = s.fs = s.gs = flat_seg(0x10, 0x3, false, 0);
	} else {
		s.cs = flat_seg(0x18 | 3, 0xb, true, 3);
		s.ss = s.ds = s.es = s.fs = s.gs = flat_seg(0x20 | 3, 0x3, false, 3);
	}
	s.idt.base = PROBE_IDT;
	s.idt.limit = kernel ? 16 * 16 - 1 : 0;
	s.gdt.base = PROBE_GDT;
	s.gdt.limit = 5 * 8 - 1;
	s.tr.type = 0xb;		/* busy 64-bit TSS, never used */
	s.tr.present = 1;
	s.tr.limit = 0x67;
	s.tr.base = 0x6000;
	if (ioctl(p->vcpu, KVM_SET_SREGS, &s) < 0 || ioctl(p->vcpu, KVM_SET_REGS, &regs) < 0 ||
	    (step && ioctl(p->vcpu, KVM_SET_GUEST_DEBUG, &dbg) < 0))
		return -EIO;
	return 0;
}

/*
 * A new vCPU in the probes' VM, which has `code` at PROBE_CODE: a fresh
 * vCPU has none of an earlier probe's state (pending debug traps, DR7).
 */
static int probe_create(struct kvm_probes *ps, struct probe *p, const uint8_t *code, size_t len,
			bool step, bool kernel)
{
	int r = probes_vm(ps);
	long sz;

	if (r)
		return r;
	p->vm = ps->vm;
	p->mem = ps->mem;
	probe_layout(p->mem, code, len);
	p->vcpu = ioctl(p->vm, KVM_CREATE_VCPU, ps->nr_vcpus++);
	sz = ioctl(ps->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (p->vcpu < 0 || sz <= 0)
		return -EIO;
	p->run_size = (size_t)sz;
	p->run = mmap(NULL, p->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, p->vcpu, 0);
	if (p->run == MAP_FAILED) {
		p->run = NULL;
		return -ENOMEM;
	}
	return probe_setup_vcpu(ps, p, step, kernel);
}

/* The vCPU's fd and mapping; KVM frees the vCPU itself with its VM. */
static void probe_destroy(struct probe *p)
{
	if (p->run)
		munmap(p->run, p->run_size);
	if (p->vcpu >= 0)
		close(p->vcpu);
}

/*
 * Each debug exit of the CPL3 stepping probe: a step moves RIP by one NOP
 * at CPL3. An exit that left RIP where it was is no step, and no proof
 * that CPL3 cannot be stepped: a VMX that keeps the single-step trap of an
 * instruction a VM exit interrupted (the EPT violations of the probe's
 * first page-table and code fetches) as a pending debug exception raises
 * it at the next VM entry, before the instruction runs. Hardware saves
 * that field clear for such exits (SDM Vol. 3C 28.3.4, saving non-register
 * state); Bochs 2.7 does not. Anything else ends the walk.
 */
bool kvm_probe_step_seen(struct kvm_probe_step_walk *w, bool debug_exit, unsigned int cpl,
			 uint64_t rip)
{
	if (w->steps == KVM_PROBE_STEP_NOPS || !debug_exit || cpl != 3)
		return false;
	if (rip == w->rip)
		return ++w->stalls <= KVM_PROBE_STEP_STALLS;
	if (rip != w->rip + 1)
		return false;
	w->rip = rip;
	return ++w->steps < KVM_PROBE_STEP_NOPS;
}

static unsigned int probe_count_steps(struct probe *p)
{
	struct kvm_probe_step_walk w = { .rip = PROBE_CODE };
	struct kvm_regs regs;
	struct kvm_sregs s;
	bool debug_exit;

	do {
		if (ioctl(p->vcpu, KVM_RUN, 0) < 0)
			break;
		debug_exit = p->run->exit_reason == KVM_EXIT_DEBUG;
		if (debug_exit && (ioctl(p->vcpu, KVM_GET_REGS, &regs) < 0 ||
				   ioctl(p->vcpu, KVM_GET_SREGS, &s) < 0))
			break;
	} while (kvm_probe_step_seen(&w, debug_exit, debug_exit ? s.cs.dpl : 0,
				     debug_exit ? regs.rip : 0));
	return w.steps;
}

int kvm_probe_user_step(struct kvm_probes *ps, bool *can_step)
{
	/* NOPs, then HLT at CPL3: #GP with no IDT, a shutdown. */
	static const uint8_t code[KVM_PROBE_STEP_NOPS + 1] = { 0x90, 0x90, 0x90, 0x90, 0xf4 };
	struct probe p = { .vm = -1, .vcpu = -1 };
	int r = probe_create(ps, &p, code, sizeof(code), true, false);

	*can_step = false;
	if (!r)
		*can_step = probe_count_steps(&p) == KVM_PROBE_STEP_NOPS;
	probe_destroy(&p);
	return r;
}

/*
 * RDPMC with CR4.PCE set, then an OUT: an I/O exit means KVM answered it;
 * a shutdown (#GP with no IDT) that the #GP came through.
 */
int kvm_probe_rdpmc(struct kvm_probes *ps, uint32_t ecx, bool *answered_by_kvm)
{
	/* mov ecx, imm32; rdpmc; out 0x80, al; hlt */
	uint8_t code[] = { 0xb9, 0, 0, 0, 0, 0x0f, 0x33, 0xe6, 0x80, 0xf4 };
	struct probe p = { .vm = -1, .vcpu = -1 };
	int r;

	memcpy(&code[1], &ecx, sizeof(ecx));
	r = probe_create(ps, &p, code, sizeof(code), false, false);

	*answered_by_kvm = false;
	if (!r) {
		if (ioctl(p.vcpu, KVM_RUN, 0) < 0)
			r = -errno;
		else
			*answered_by_kvm = p.run->exit_reason == KVM_EXIT_IO;
	}
	probe_destroy(&p);
	return r;
}

int kvm_probe_hw_breakpoint(struct kvm_probes *ps, bool *fires)
{
	static const uint8_t code[] = { 0x90, 0x90, 0xe6, 0x80 };	/* nop; nop; out 0x80, al */
	struct kvm_guest_debug dbg = {
		.control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_USE_HW_BP,
		/* DR1 = the second NOP; DR7: L1, GE, R/W1 = LEN1 = 0 (execution). */
		.arch.debugreg = { [1] = PROBE_CODE + 1, [7] = (1u << 2) | (1u << 9) },
	};
	struct probe p = { .vm = -1, .vcpu = -1 };
	int r = probe_create(ps, &p, code, sizeof(code), false, true);

	*fires = false;
	if (!r) {
		if (ioctl(p.vcpu, KVM_SET_GUEST_DEBUG, &dbg) < 0 || ioctl(p.vcpu, KVM_RUN, 0) < 0)
			r = -errno;
		else
			*fires = p.run->exit_reason == KVM_EXIT_DEBUG &&
				 p.run->debug.arch.pc == PROBE_CODE + 1;
	}
	probe_destroy(&p);
	return r;
}

/*
 * One step: KVM_RUN until an exit other than a debug exit that left RIP
 * where it was (kvm_probe_step_seen() says why those are no steps), and
 * the registers there.
 */
static int probe_step(struct probe *p, struct kvm_regs *regs)
{
	uint64_t rip;

	if (ioctl(p->vcpu, KVM_GET_REGS, regs) < 0)
		return -errno;
	rip = regs->rip;
	for (unsigned int i = 0; i <= KVM_PROBE_STEP_STALLS; i++) {
		if (ioctl(p->vcpu, KVM_RUN, 0) < 0 || ioctl(p->vcpu, KVM_GET_REGS, regs) < 0)
			return -errno;
		if (p->run->exit_reason != KVM_EXIT_DEBUG || regs->rip != rip)
			return 0;
	}
	return 0;
}

/* 64-bit interrupt gate (SDM vol. 3A 6.14.1) to `target` in code segment 0x08. */
static void probe_idt_gate(uint8_t *m, unsigned int vec, uint64_t target)
{
	uint8_t *g = m + PROBE_IDT + vec * 16;

	memset(g, 0, 16);
	g[0] = target & 0xff;
	g[1] = (target >> 8) & 0xff;
	g[2] = 0x08;
	g[5] = 0x8e;		/* present, DPL 0, interrupt gate */
	g[6] = (target >> 16) & 0xff;
	g[7] = (target >> 24) & 0xff;
}

/*
 * A division by zero at CPL0 with the #DE gate on NOPs and a HLT: a #DE,
 * because kvm_pvm's emulator fails on a stepped UD2 at CPL0.
 */
int kvm_probe_handler_step(struct kvm_probes *ps, bool *steps_into)
{
	static const uint8_t code[] = { 0x31, 0xc9, 0xf7, 0xf1 };	/* xor ecx, ecx; div ecx */
	static const uint8_t handler[] = { 0x90, 0x90, 0x90, 0xf4 };	/* nops; hlt */
	struct probe p = { .vm = -1, .vcpu = -1 };
	struct kvm_regs regs;
	int r = probe_create(ps, &p, code, sizeof(code), true, true);

	*steps_into = false;
	if (!r) {
		memcpy(p.mem + PROBE_HANDLER, handler, sizeof(handler));
		probe_idt_gate(p.mem, 0, PROBE_HANDLER);
		/* One step over the XOR, one into the #DE. */
		r = probe_step(&p, &regs);
		if (!r)
			r = probe_step(&p, &regs);
		/* Stopped in the handler before its last NOP: it was stepped. */
		*steps_into = !r && p.run->exit_reason == KVM_EXIT_DEBUG &&
			      regs.rip >= PROBE_HANDLER && regs.rip < PROBE_HANDLER + 3;
	}
	probe_destroy(&p);
	return r;
}

/* dec ecx; jnz .-2 from ECX = PROBE_LOOP_N, then out 0x80, al: 2N + 1 instructions. */
#define PROBE_LOOP_N		5000
#define PROBE_LOOP_RUNS		3
/* CPL0 this many times slower than CPL3 is emulation, not noise. */
#define PROBE_EMULATED_RATIO	20

static uint64_t probe_clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The loop's wall time in one KVM_RUN (to its OUT), or 0 if it did not get there. */
static uint64_t probe_loop_once(struct probe *p)
{
	struct kvm_regs regs = { .rip = PROBE_CODE, .rsp = PROBE_STACK, .rflags = PROBE_RFLAGS,
				 .rcx = PROBE_LOOP_N };
	uint64_t t0;

	if (ioctl(p->vcpu, KVM_SET_REGS, &regs) < 0)
		return 0;
	t0 = probe_clock_ns(CLOCK_MONOTONIC);
	if (ioctl(p->vcpu, KVM_RUN, 0) < 0 || p->run->exit_reason != KVM_EXIT_IO)
		return 0;
	return probe_clock_ns(CLOCK_MONOTONIC) - t0 + 1;
}

static int probe_loop_best(struct kvm_probes *ps, bool kernel, uint64_t *best_ns)
{
	static const uint8_t code[] = {
		0xff, 0xc9,		/* dec ecx */
		0x75, 0xfc,		/* jnz .-2 */
		0xe6, 0x80,		/* out 0x80, al */
	};
	struct probe p = { .vm = -1, .vcpu = -1 };
	int r = probe_create(ps, &p, code, sizeof(code), false, kernel);

	*best_ns = UINT64_MAX;
	for (unsigned int i = 0; !r && i < PROBE_LOOP_RUNS; i++) {
		uint64_t ns = probe_loop_once(&p);

		if (!ns)
			r = -EIO;
		else if (ns < *best_ns)
			*best_ns = ns;
	}
	probe_destroy(&p);
	return r;
}

/* Exits a batch of the exit-cost probe makes, and batches. */
#define PROBE_EXIT_BATCH	32
#define PROBE_EXIT_BATCHES	4
/* CPUIDs (each an exit KVM handles itself) before each OUT of the second loop. */
#define PROBE_CPUID_N		32

/* The MSR of the WRMSR exit probe: a PMU MSR, as the guests' MSR exits are. */
#define PROBE_MSR	0x186	/* IA32_PERFEVTSEL0 (SDM Vol. 4, table 2-2) */

static bool probe_msr_mine(const void *ctx, uint32_t msr)
{
	(void)ctx;
	return msr == PROBE_MSR;
}

/* ECX = PROBE_MSR, whose writes exit to userspace (KVM_MSR_EXIT_REASON_FILTER). */
static int probe_msr_setup(struct probe *p)
{
	static const struct kvm_msr_span span = { PROBE_MSR, PROBE_MSR, false };
	struct kvm_regs regs;

	if (ioctl(p->vcpu, KVM_GET_REGS, &regs) < 0)
		return -errno;
	regs.rcx = PROBE_MSR;
	if (ioctl(p->vcpu, KVM_SET_REGS, &regs) < 0)
		return -errno;
	return kvm_msr_filter_install(p->vm, &span, 1, probe_msr_mine, NULL);
}

/*
 * The best mean CPU time of one KVM_RUN of `code`, which ends in an OUT
 * each time at CPL3, or with `msr` in a WRMSR of PROBE_MSR at CPL0 (a
 * write pmuvm accepts: error 0).
 */
static int probe_run_cost(struct kvm_probes *ps, const uint8_t *code, size_t len, bool msr, uint64_t *ns)
{
	const uint32_t want = msr ? KVM_EXIT_X86_WRMSR : KVM_EXIT_IO;
	struct probe p = { .vm = -1, .vcpu = -1 };
	int r = probe_create(ps, &p, code, len, false, msr);

	if (!r && msr)
		r = probe_msr_setup(&p);
	*ns = UINT64_MAX;
	for (unsigned int b = 0; !r && b < PROBE_EXIT_BATCHES; b++) {
		uint64_t t0 = probe_clock_ns(CLOCK_THREAD_CPUTIME_ID), mean;

		for (unsigned int i = 0; !r && i < PROBE_EXIT_BATCH; i++) {
			if (ioctl(p.vcpu, KVM_RUN, 0) < 0 || p.run->exit_reason != want)
				r = -EIO;
			else if (msr)
				p.run->msr.error = 0;
		}
		mean = (probe_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / PROBE_EXIT_BATCH;
		if (!r && mean < *ns)
			*ns = mean;
	}
	probe_destroy(&p);
	return r;
}

int kvm_probe_exit_cost(struct kvm_probes *ps, uint64_t *user_ns, uint64_t *kernel_ns)
{
	static const uint8_t out_loop[] = {
		0xe6, 0x80,		/* out 0x80, al */
		0xeb, 0xfc,		/* jmp .-4 */
	};
	uint8_t cpuid_loop[2 * PROBE_CPUID_N + 4];
	uint64_t with_cpuid;
	int r;

	*user_ns = *kernel_ns = 0;
	for (unsigned int i = 0; i < PROBE_CPUID_N; i++) {
		cpuid_loop[2 * i] = 0x0f;	/* cpuid */
		cpuid_loop[2 * i + 1] = 0xa2;
	}
	cpuid_loop[2 * PROBE_CPUID_N] = 0xe6;	/* out 0x80, al */
	cpuid_loop[2 * PROBE_CPUID_N + 1] = 0x80;
	cpuid_loop[2 * PROBE_CPUID_N + 2] = 0xeb;	/* jmp to the first cpuid */
	cpuid_loop[2 * PROBE_CPUID_N + 3] = (uint8_t)-(int)sizeof(cpuid_loop);
	r = probe_run_cost(ps, out_loop, sizeof(out_loop), false, user_ns);
	if (!r)
		r = probe_run_cost(ps, cpuid_loop, sizeof(cpuid_loop), false, &with_cpuid);
	if (r) {
		*user_ns = 0;
		return r;
	}
	if (with_cpuid > *user_ns)
		*kernel_ns = (with_cpuid - *user_ns) / PROBE_CPUID_N;
	return 0;
}

int kvm_probe_msr_exit_cost(struct kvm_probes *ps, uint64_t *ns)
{
	static const uint8_t wrmsr_loop[] = {
		0x0f, 0x30,		/* wrmsr */
		0xeb, 0xfc,		/* jmp .-4 */
	};
	int r = probe_run_cost(ps, wrmsr_loop, sizeof(wrmsr_loop), true, ns);

	if (r)
		*ns = 0;
	return r;
}

int kvm_probe_kernel_speed(struct kvm_probes *ps, bool *emulated, unsigned int *slowdown)
{
	uint64_t user_ns, kernel_ns;
	int r;

	*emulated = false;
	*slowdown = 0;
	r = probe_loop_best(ps, false, &user_ns);
	if (!r)
		r = probe_loop_best(ps, true, &kernel_ns);
	if (r)
		return r;
	*slowdown = (unsigned int)(kernel_ns / user_ns > 1000000 ? 1000000 : kernel_ns / user_ns);
	*emulated = *slowdown >= PROBE_EMULATED_RATIO;
	return 0;
}

/*
 * KVM_RUN from `rip`, past debug exits that left RIP there: the stale
 * single-step traps kvm_probe_step_seen() describes (here the EPT
 * violations of the first code fetch and of the MMIO load).
 */
static int probe_run_from(struct probe *p, uint64_t rip)
{
	unsigned int stalls = 0;

	do {
		if (ioctl(p->vcpu, KVM_RUN, 0) < 0)
			return -errno;
	} while (p->run->exit_reason == KVM_EXIT_DEBUG && p->run->debug.arch.pc == rip &&
		 ++stalls <= KVM_PROBE_STEP_STALLS);
	return 0;
}

int kvm_probe_step_after_emulation(struct kvm_probes *ps, bool *keeps_stepping)
{
	static const uint8_t code[] = {
		0x8a, 0x04, 0x25, 0, 0, 0x20, 0,	/* mov al, [PROBE_MMIO] */
		0x90, 0x90,				/* nop; nop */
		0xe6, 0x80,				/* out 0x80, al */
	};
	struct probe p = { .vm = -1, .vcpu = -1 };
	int r = probe_create(ps, &p, code, sizeof(code), true, true);

	_Static_assert(PROBE_MMIO == 0x200000, "the load's address");
	*keeps_stepping = false;
	if (r)
		goto out;
	r = probe_run_from(&p, PROBE_CODE);
	if (r)
		goto out;
	if (p.run->exit_reason != KVM_EXIT_MMIO || p.run->mmio.is_write) {
		r = -EIO;
		goto out;
	}
	memset(p.run->mmio.data, 0, sizeof(p.run->mmio.data));
	/* The load's step (KVM's own trap), then the first NOP's or the OUT. */
	if (ioctl(p.vcpu, KVM_RUN, 0) < 0 || p.run->exit_reason != KVM_EXIT_DEBUG) {
		r = -EIO;
		goto out;
	}
	r = probe_run_from(&p, PROBE_CODE + 7);
	if (r)
		goto out;
	*keeps_stepping = p.run->exit_reason == KVM_EXIT_DEBUG &&
			  p.run->debug.arch.pc == PROBE_CODE + 8;
out:
	probe_destroy(&p);
	return r;
}
