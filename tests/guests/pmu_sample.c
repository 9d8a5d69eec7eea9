/*
 * pmu_sample: sample a CPL3 busy loop on core cycles.  Fixed counter 1
 * (core cycles) counts at USR only with PMI enabled, preset to -P; the PMI
 * handler counts, records the interrupted RIP/CS, re-arms the counter to -P,
 * acks GLOBAL_STATUS and unmasks LVTPC.  The loop (user_spin, in asm below)
 * runs for SPIN_TICKS TSC ticks measured with RDTSC at CPL3.
 *
 * Asserts: PMIs == elapsed_tsc / P within 20% (cycles run at the TSC rate
 * under pmuvm's default --cpu-mhz), and every sampled RIP is inside
 * user_spin with a CPL3 CS.
 */
#include "pmu_common.h"

#define PERIOD		2000000ull
#define SPIN_TICKS	1000000000ull	/* ~0.3-0.5 s */
#define MAX_SAMPLES	4096

uint64_t user_spin(uint64_t ticks);
extern char user_spin_start[], user_spin_end[];

/* Returns the elapsed TSC ticks; all of it runs at CPL3. */
asm(".text\n"
    ".globl user_spin\n"
    "user_spin:\n"
    "user_spin_start:\n"
    "	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	movq %rax, %r8\n"		/* start */
    "	leaq (%rax,%rdi), %rsi\n"	/* deadline */
    "1:	rdtsc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	cmpq %rsi, %rax\n"
    "	jb 1b\n"
    "	subq %r8, %rax\n"
    "	ret\n"
    "user_spin_end:\n");

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
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset());
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_CTRL_FIXED(1));
	apic_write_lvtpc(PMI_VECTOR);
}

int main(void)
{
	uint64_t elapsed, expect, in_loop = 0;

	cfg = pmu_cfg_read();
	printf("pmu_sample: version=%u fixed=%u\n", cfg.version, cfg.nr_fixed);
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_fixed >= 2);

	rt_set_irq_handler(PMI_VECTOR, pmi);
	apic_write_lvtpc(PMI_VECTOR);
	wrmsr(MSR_IA32_FIXED_CTR0 + 1, preset());
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(1) | FIXED_CTRL_PMI(1));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_FIXED(1));

	elapsed = rt_run_user(user_spin, SPIN_TICKS);

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	expect = elapsed / PERIOD;
	for (int i = 0; i < nr_pmis && i < MAX_SAMPLES; i++)
		if (samples[i] >= (uint64_t)user_spin_start && samples[i] <= (uint64_t)user_spin_end)
			in_loop++;
	printf("pmu_sample: elapsed_tsc=%llu period=%llu expected=%llu pmis=%d in_loop=%llu outside=%d\n",
	       (unsigned long long)elapsed, PERIOD, (unsigned long long)expect, nr_pmis,
	       (unsigned long long)in_loop, nr_outside);
	if (nr_outside)
		printf("pmu_sample: last outside rip=0x%llx cs=0x%llx (loop 0x%llx-0x%llx)\n",
		       (unsigned long long)bad_rip, (unsigned long long)bad_cs,
		       (unsigned long long)(uint64_t)user_spin_start,
		       (unsigned long long)(uint64_t)user_spin_end);
	GUEST_ASSERT(elapsed >= SPIN_TICKS);
	GUEST_ASSERT(expect > 0);
	GUEST_ASSERT((uint64_t)nr_pmis * 100 >= expect * 80);
	GUEST_ASSERT((uint64_t)nr_pmis * 100 <= expect * 120);
	GUEST_ASSERT_EQ(nr_outside, 0);
	test_ok("pmu_sample");
	return 0;
}
