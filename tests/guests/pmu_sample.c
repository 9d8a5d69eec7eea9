/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmu_sample: sample a CPL3 busy loop on core cycles.  Fixed counter 1
 * (core cycles) counts at USR only with PMI enabled, preset to -P; the PMI
 * handler counts, records the interrupted RIP/CS, re-arms the counter to -P,
 * acks GLOBAL_STATUS and unmasks LVTPC.  The loop (user_spin, in asm below)
 * runs until it has really run SPIN_TICKS TSC ticks, measured with RDTSC at
 * CPL3 (see below), or 4 * SPIN_TICKS passed: on a loaded host the vCPU
 * thread may get well under half of a core.
 *
 * The loop also sums the TSC ticks it really ran: consecutive RDTSCs more
 * than GAP_TICKS apart mean it was interrupted (the emulated CPL0 PMI
 * handler, a host exit, the host scheduler), which a USR-only counter must
 * not count.  Cycles run at the TSC rate under pmuvm's default --cpu-mhz,
 * so the programmed rate is one PMI per PERIOD ticks the loop ran.
 *
 * Precision (vmm/clock/clock.c): the interval from the handler's last WRMSR
 * exit to the next exit ends at CPL3, so the emulated tail of the handler
 * (~100 us on a kvm_pvm host) counts as user time.  PERIOD is long enough
 * (~4 ms) for that to stay a few percent.
 *
 * The last overflow can come as the loop's UD2 back to CPL0 faults: the
 * PMI then waits in IRR behind the #UD, whose handler and main() run with
 * interrupts off (an interrupt arriving while an exception is delivered
 * waits for IF, SDM vol. 3A 6.9). So the guest counts such a PMI as
 * pending: GLOBAL_STATUS still has the counter's overflow bit, which only
 * the handler clears, and the PMI's vector is in IRR. pmuvm's
 * pmis_delivered is the PMIs handled plus that one.
 *
 * Asserts: PMIs == ran / PERIOD within 20%, every sampled RIP is inside
 * user_spin with a CPL3 CS, and a pending overflow bit comes with a
 * pending PMI.
 */
#include "pmu_common.h"

#define PERIOD		10000000ull	/* ~4 ms: see the precision note above */
#define SPIN_TICKS	2000000000ull	/* ~0.8 s */
#define GAP_TICKS	2000		/* one loop iteration is ~40 ticks */
#define MAX_SAMPLES	4096

struct spin {
	uint64_t ticks;		/* in: how long to run */
	uint64_t elapsed;	/* out: TSC ticks from start to end */
	uint64_t ran;		/* out: ticks not lost to interruptions */
};

uint64_t user_spin(uint64_t spin);
extern char user_spin_start[], user_spin_end[];

/* user_spin(struct spin *s), all of it at CPL3. */
asm(".text\n"
    ".globl user_spin\n"
    ".type user_spin, @function\n"	/* STT_FUNC: --profile names it */
    "user_spin:\n"
    "user_spin_start:\n"
    "	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	movq %rax, %r8\n"		/* start */
    "	movq %rax, %r9\n"		/* previous RDTSC */
    "	movq (%rdi), %rsi\n"		/* ticks to run */
    "	leaq (%r8,%rsi,4), %r11\n"	/* give up at start + 4 * ticks */
    "	xorl %r10d, %r10d\n"		/* ran */
    "1:	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	movq %rax, %rcx\n"
    "	subq %r9, %rcx\n"
    "	movq %rax, %r9\n"
    "	cmpq $" "2000" ", %rcx\n"
    "	jae 2f\n"
    "	addq %rcx, %r10\n"
    "2:	cmpq %rsi, %r10\n"
    "	jae 3f\n"
    "	cmpq %r11, %rax\n"
    "	jb 1b\n"
    "3:	subq %r8, %rax\n"
    "	movq %rax, 8(%rdi)\n"
    "	movq %r10, 16(%rdi)\n"
    "	ret\n"
    "user_spin_end:\n"
    ".size user_spin, . - user_spin\n");

_Static_assert(GAP_TICKS == 2000, "keep the asm's constant in step");

static struct pmu_cfg cfg;
static volatile int nr_pmis, nr_outside;
static uint64_t samples[MAX_SAMPLES];
static volatile uint64_t bad_rip, bad_cs;

static uint64_t preset(void)
{
	return -PERIOD & width_mask(cfg.fixed_width);
}

static void pmi(struct rt_frame *f)
{
	int n = nr_pmis;

	if (n < MAX_SAMPLES)
		samples[n] = f->rip;
	if (f->rip < (uint64_t)user_spin_start || f->rip > (uint64_t)user_spin_end ||
	    f->cs != RT_USER_CS) {
		nr_outside++;
		bad_rip = f->rip;
		bad_cs = f->cs;
	}
	nr_pmis = n + 1;
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_CTRL_FIXED(1));
	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset());
}

int main(void)
{
	struct spin spin = { .ticks = SPIN_TICKS };
	uint64_t expect, in_loop = 0;
	int pending, irr;

	cfg = pmu_cfg_read();
	printf("pmu_sample: version=%u fixed=%u\n", cfg.version, cfg.nr_fixed);
	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 1));

	rt_set_irq_handler(PMI_VECTOR, pmi);
	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset());
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(1) | FIXED_CTRL_PMI(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));

	rt_run_user(user_spin, (uint64_t)&spin);

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	pending = !!(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_CTRL_FIXED(1));
	irr = apic_irr_test(PMI_VECTOR);
	expect = spin.ran / PERIOD;
	for (int i = 0; i < nr_pmis && i < MAX_SAMPLES; i++)
		if (samples[i] >= (uint64_t)user_spin_start && samples[i] <= (uint64_t)user_spin_end)
			in_loop++;
	printf("pmu_sample: elapsed_tsc=%llu ran_tsc=%llu period=%llu expected=%llu pmis=%d "
	       "in_loop=%llu outside=%d pending=%d\n",
	       (unsigned long long)spin.elapsed, (unsigned long long)spin.ran, PERIOD,
	       (unsigned long long)expect, nr_pmis, (unsigned long long)in_loop, nr_outside,
	       pending);
	if (nr_outside)
		printf("pmu_sample: last outside rip=0x%llx cs=0x%llx (loop 0x%llx-0x%llx)\n",
		       (unsigned long long)bad_rip, (unsigned long long)bad_cs,
		       (unsigned long long)(uint64_t)user_spin_start,
		       (unsigned long long)(uint64_t)user_spin_end);
	GUEST_ASSERT(spin.elapsed >= SPIN_TICKS);
	GUEST_ASSERT(expect >= 100);
	GUEST_ASSERT((uint64_t)nr_pmis * 100 >= expect * 80);
	GUEST_ASSERT((uint64_t)nr_pmis * 100 <= expect * 120);
	GUEST_ASSERT_EQ(nr_outside, 0);
	GUEST_ASSERT_EQ(irr, pending);
	test_ok("pmu_sample");
	return 0;
}
