/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pebs_records: PEBS from inside a guest, at CPL0 where the
 * exact source steps every instruction (docs/counting.md, "kvm_pvm").
 *
 * A known stream: seq_run() enables GP counter 0 (instructions retired,
 * OS, PEBS) and runs LOOPS iterations of "dec ebx; jnz", so the kth
 * counted instruction is the dec (k odd) or the jnz (k even) and EBX after
 * it is known.  Preset to -N with reset value -N in the DS area, the
 * counter produces a record every N instructions, whose eventing IP, next
 * IP and registers are checked field by field (docs/intel-pmu.md 4.4, 4.5), for the
 * format the command line chose (fmt=3|4|5, matching --pebs-format).
 *
 * Then: enumeration (docs/intel-pmu.md 1.1, 1.4), the threshold PMI with GLOBAL_STATUS
 * bit 62, the absolute-maximum skip, and DS areas or buffers at MMIO,
 * beyond RAM, unmapped and non-canonical, which must change nothing in the
 * guest (the system test checks the report's drop counts).
 */
#include "pmu_common.h"

#define LOOPS		8
#define PERIOD		5		/* records at k = 5, 10, 15 */
#define NR_RECORDS	3
#define CR4_OSFXSR	(1ull << 9)
#define RFLAGS_ZF	(1ull << 6)

#define M_RBP	0xb0b0b0b0b0b0b0b0ull
#define M_RSI	0x5151515151515151ull
#define M_RDI	0xd1d1d1d1d1d1d1d1ull
#define M_R(n)	(0x1000000000000000ull * ((n) - 7) + (n))	/* R8..R15 */

void seq_run(void);
extern char seq_head[];
uint64_t seq_rsp;

asm(".text\n"
    ".globl seq_run\nseq_run:\n"
    "	pushq %rbx\n pushq %rbp\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
    "	movabsq $0xb0b0b0b0b0b0b0b0, %rbp\n"
    "	movabsq $0x5151515151515151, %rsi\n"
    "	movabsq $0xd1d1d1d1d1d1d1d1, %rdi\n"
    "	movabsq $0x1000000000000008, %r8\n"
    "	movabsq $0x2000000000000009, %r9\n"
    "	movabsq $0x300000000000000a, %r10\n"
    "	movabsq $0x400000000000000b, %r11\n"
    "	movabsq $0x500000000000000c, %r12\n"
    "	movabsq $0x600000000000000d, %r13\n"
    "	movabsq $0x700000000000000e, %r14\n"
    "	movabsq $0x800000000000000f, %r15\n"
    "	movq %rsp, seq_rsp(%rip)\n"
    "	movl $8, %ebx\n"			/* LOOPS */
    "	movl $0x38f, %ecx\n"
    "	movl $1, %eax\n"			/* GLOBAL_CTRL = PMC0 */
    "	xorl %edx, %edx\n"
    "	wrmsr\n"
    ".globl seq_head\nseq_head:\n"
    "	decl %ebx\n"				/* 2 bytes */
    "	jnz seq_head\n"				/* 2 bytes */
    "	xorl %eax, %eax\n"
    "	wrmsr\n"
    "	popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbp\n popq %rbx\n"
    "	ret\n");

static uint8_t ds[4096] __attribute__((aligned(4096)));
static uint8_t buf[16384] __attribute__((aligned(4096)));
static uint8_t xmm_pattern[16][16] __attribute__((aligned(16)));

static struct pmu_cfg cfg;
static unsigned int fmt;
static volatile int nr_pmis;
static volatile uint64_t pmi_status;

static void pmi(struct rt_frame *f)
{
	(void)f;
	pmi_status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	nr_pmis++;
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, pmi_status);
	apic_write_lvtpc(PMI_VECTOR);
}

/*
 * Opens the interrupt window for a PMI requested while IF was 0; long
 * enough for one to arrive (the wait ends early when it does).
 */
static void take_pmis(void)
{
	asm volatile("sti");
	wait_flag((volatile int *)&nr_pmis, 20000000);
	asm volatile("cli");
}

static uint64_t q(const uint8_t *p, unsigned int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static void put_ds(unsigned int off, uint64_t v)
{
	memcpy(ds + off, &v, 8);
}

/* DS area for a buffer at `base` of `n` records of `size`, threshold after `thr`. */
static void ds_setup(uint64_t base, uint64_t size, unsigned int n, unsigned int thr)
{
	memset(ds, 0, sizeof(ds));
	put_ds(0x20, base);
	put_ds(0x28, base);
	put_ds(0x30, base + n * size);
	put_ds(0x38, base + thr * size);
	put_ds(0x40, -(uint64_t)PERIOD);	/* PMC0 reset value */
}

/* GP0 on instructions retired (OS) with PEBS, preset to -PERIOD; not yet globally enabled. */
static void arm_counter(bool adaptive)
{
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	wrmsr(MSR_IA32_DS_AREA, (uint64_t)ds);
	wrmsr(MSR_IA32_PMC0, -(uint64_t)PERIOD & width_mask(cfg.gp_width));
	wrmsr(MSR_IA32_PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | PMU_EVENT_INSTRUCTIONS |
				    (adaptive ? EVTSEL_ADAPTIVE : 0));
	wrmsr(MSR_IA32_PEBS_ENABLE, 1);
}

static void disarm(void)
{
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);
}

static void check_enumeration(void)
{
	struct cpuid_regs r = cpuid(1);
	uint64_t caps = cfg.perf_cap, v;

	/*
	 * pmuvm sets CPUID.1:EDX.DS in KVM_SET_CPUID2 (test_vpmu_cpuid), but
	 * this host's KVM (kvm_pvm) hides it from the guest while it keeps
	 * DTES64 and PDCM; so DS is reported here, not asserted.
	 */
	printf("pebs_records: cpuid.1 ds=%d dtes64=%d\n", !!(r.edx & CPUID_1_EDX_DS),
	       !!(r.ecx & CPUID_1_ECX_DTES64));
	GUEST_ASSERT(r.ecx & CPUID_1_ECX_DTES64);
	GUEST_ASSERT_EQ((caps & PERF_CAP_PEBS_FORMAT) >> PERF_CAP_PEBS_FORMAT_SHIFT, fmt);
	GUEST_ASSERT(caps & PERF_CAP_PEBS_TRAP);
	GUEST_ASSERT(caps & PERF_CAP_PEBS_ARCH_REG);
	GUEST_ASSERT_EQ(!!(caps & PERF_CAP_PEBS_BASELINE), fmt >= 4);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_MISC_ENABLE) & MISC_ENABLE_PEBS_UNAVAIL, 0);
	GUEST_ASSERT_EQ(rdmsr_safe(MSR_IA32_DS_AREA, &v), 0);
	GUEST_ASSERT_EQ(rdmsr_safe(MSR_IA32_PEBS_ENABLE, &v), 0);
	GUEST_ASSERT_EQ(rdmsr_safe(MSR_PEBS_LD_LAT_THRESHOLD, &v), 0);
	GUEST_ASSERT_EQ(rdmsr_safe(MSR_PEBS_DATA_CFG, &v), fmt >= 4 ? 0 : VEC_GP);
	/* Non-canonical DS_AREA #GPs (docs/intel-pmu.md 2.10). */
	GUEST_ASSERT_EQ(wrmsr_safe(MSR_IA32_DS_AREA, 0x0000800000000000ull), VEC_GP);
	test_ok("pebs enumeration");
}

/* Expected state after the kth instruction of seq_run's loop. */
static void expect_k(unsigned int k, uint64_t *eventing, uint64_t *next, uint64_t *rbx)
{
	uint64_t head = (uint64_t)seq_head;

	if (k & 1) {
		*eventing = head;
		*rbx = LOOPS - (k + 1) / 2;
		*next = head + 2;
	} else {
		*eventing = head + 2;
		*rbx = LOOPS - k / 2;
		*next = *rbx ? head : head + 4;
	}
}

/* GPRs of the loop in architectural order (RAX RCX RDX RBX RSP RBP RSI RDI R8-R15). */
static void expect_gprs(uint64_t rbx, uint64_t g[16])
{
	g[0] = 1;
	g[1] = MSR_IA32_PERF_GLOBAL_CTRL;
	g[2] = 0;
	g[3] = rbx;
	g[4] = seq_rsp;
	g[5] = M_RBP;
	g[6] = M_RSI;
	g[7] = M_RDI;
	for (unsigned int n = 8; n < 16; n++)
		g[n] = M_R(n);
}

static void check_flags(uint64_t rflags, uint64_t rbx)
{
	GUEST_ASSERT(rflags & 2);
	GUEST_ASSERT_EQ(rflags & RFLAGS_IF, 0);
	GUEST_ASSERT_EQ(rflags & RFLAGS_ZF, rbx ? 0 : RFLAGS_ZF);
}

/* Format 3 (docs/intel-pmu.md 4.4): legacy register order, 0xc8 bytes. */
static void check_fmt3(const uint8_t *rec, unsigned int k, uint64_t tsc_before)
{
	static const unsigned int legacy[16] = { 0, 3, 1, 2, 6, 7, 5, 4,
						 8, 9, 10, 11, 12, 13, 14, 15 };
	uint64_t ev, next, rbx, g[16];

	expect_k(k, &ev, &next, &rbx);
	expect_gprs(rbx, g);
	check_flags(q(rec, 0x00), rbx);
	GUEST_ASSERT_EQ(q(rec, 0x08), next);
	for (unsigned int i = 0; i < 16; i++)
		GUEST_ASSERT_EQ(q(rec, 0x10 + 8 * i), g[legacy[i]]);
	GUEST_ASSERT_EQ(q(rec, 0x90), 1);
	GUEST_ASSERT_EQ(q(rec, 0x98), 0);
	GUEST_ASSERT_EQ(q(rec, 0xa0), 0);
	GUEST_ASSERT_EQ(q(rec, 0xa8), 0);
	GUEST_ASSERT_EQ(q(rec, 0xb0), ev);
	GUEST_ASSERT_EQ(q(rec, 0xb8), 0);
	GUEST_ASSERT(q(rec, 0xc0) > tsc_before);
}

/* PEBS_DATA_CFG values the records are checked with: none, MemInfo+GPR+XMM, and those with 32 LBRs. */
#define GROUPS		0x7ull
#define GROUPS_LBR32	0x1f00000full

static uint64_t record_size(uint64_t data_cfg);

/*
 * Formats 4/5 (docs/intel-pmu.md 4.4): Basic, MemInfo, GPR, XMM, then the
 * LBR entries, all zero (pmuvm keeps no branch records).
 */
static void check_adaptive(const uint8_t *rec, unsigned int k, uint64_t data_cfg,
			   uint64_t tsc_before)
{
	uint64_t ev, next, rbx, g[16], size = record_size(data_cfg);

	expect_k(k, &ev, &next, &rbx);
	expect_gprs(rbx, g);
	GUEST_ASSERT_EQ(q(rec, 0x00), data_cfg | size << 48);
	GUEST_ASSERT_EQ(q(rec, 0x08), ev);
	GUEST_ASSERT_EQ(q(rec, 0x10), 1);
	GUEST_ASSERT(q(rec, 0x18) > tsc_before);
	if (!data_cfg)
		return;
	for (unsigned int off = 0x1d0; off < size; off += 8)
		GUEST_ASSERT_EQ(q(rec, off), 0);	/* LBR entries */
	for (unsigned int off = 0x20; off < 0x40; off += 8)
		GUEST_ASSERT_EQ(q(rec, off), 0);	/* MemInfo: not measured */
	check_flags(q(rec, 0x40), rbx);
	GUEST_ASSERT_EQ(q(rec, 0x48), next);
	for (unsigned int i = 0; i < 16; i++)
		GUEST_ASSERT_EQ(q(rec, 0x50 + 8 * i), g[i]);
	GUEST_ASSERT_EQ(memcmp(rec + 0xd0, xmm_pattern, 0x100), 0);
}

static uint64_t record_size(uint64_t data_cfg)
{
	if (fmt == 3)
		return 0xc8;
	if (data_cfg == GROUPS_LBR32)
		return 0x4d0;	/* 0x20 + 0x20 + 0x90 + 0x100 + 32 * 0x18 */
	return data_cfg ? 0x1d0 : 0x20;
}

/* Loads xmm0..xmm15 with a pattern the XMM group must reproduce. */
static void load_xmm(void)
{
	for (unsigned int i = 0; i < 16; i++)
		for (unsigned int j = 0; j < 16; j++)
			xmm_pattern[i][j] = (uint8_t)(0x10 * i + j + 1);
	write_cr4(read_cr4() | CR4_OSFXSR);
#define LD(n) asm volatile("movdqu %0, %%xmm" #n :: "m"(xmm_pattern[n]))
	LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
	LD(8); LD(9); LD(10); LD(11); LD(12); LD(13); LD(14); LD(15);
#undef LD
}

static void records(uint64_t data_cfg)
{
	uint64_t size = record_size(data_cfg), tsc;
	unsigned int i;

	memset(buf, 0xa5, sizeof(buf));
	ds_setup((uint64_t)buf, size, 8, 8);
	if (fmt >= 4)
		wrmsr(MSR_PEBS_DATA_CFG, data_cfg);
	arm_counter(fmt >= 4 && data_cfg);
	tsc = rdtsc();
	seq_run();
	disarm();
	printf("pebs_records: data_cfg %#llx: index=+%#llx pmc0=%#llx status=%#llx\n",
	       (unsigned long long)data_cfg,
	       (unsigned long long)(q(ds, 0x28) - (uint64_t)buf),
	       (unsigned long long)rdmsr(MSR_IA32_PMC0),
	       (unsigned long long)rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
	GUEST_ASSERT_EQ(q(ds, 0x28), (uint64_t)buf + NR_RECORDS * size);
	/* Reloaded to -PERIOD at k = 15, then k = 16 (JNZ), 17 (XOR), 18 (the WRMSR). */
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0), (3 - (uint64_t)PERIOD) & width_mask(cfg.gp_width));
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
	for (i = 0; i < NR_RECORDS; i++) {
		const uint8_t *rec = buf + i * size;

		if (fmt == 3)
			check_fmt3(rec, PERIOD * (i + 1), tsc);
		else
			check_adaptive(rec, PERIOD * (i + 1), data_cfg, tsc);
		if (i)
			GUEST_ASSERT(q(rec, fmt == 3 ? 0xc0 : 0x18) >=
				     q(rec - size, fmt == 3 ? 0xc0 : 0x18));
	}
	GUEST_ASSERT_EQ(q(buf + NR_RECORDS * size, 0), 0xa5a5a5a5a5a5a5a5ull);
	test_ok(data_cfg == GROUPS_LBR32 ? "pebs records with LBRs" :
		data_cfg ? "pebs records" : "pebs basic records");
}

/* docs/intel-pmu.md 4.2 step 6: the third record reaches the threshold. */
static void threshold(void)
{
	uint64_t size = record_size(GROUPS);

	ds_setup((uint64_t)buf, size, 8, NR_RECORDS);
	if (fmt >= 4)
		wrmsr(MSR_PEBS_DATA_CFG, GROUPS);
	arm_counter(fmt >= 4);
	nr_pmis = 0;
	seq_run();
	disarm();
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_STATUS_BUFFER_OVF);
	take_pmis();
	printf("pebs_records: threshold: pmis=%d status=%#llx\n", nr_pmis,
	       (unsigned long long)pmi_status);
	GUEST_ASSERT_EQ(nr_pmis, 1);
	GUEST_ASSERT_EQ(pmi_status, GLOBAL_STATUS_BUFFER_OVF);
	GUEST_ASSERT_EQ(q(ds, 0x28), (uint64_t)buf + NR_RECORDS * size);
	test_ok("pebs threshold pmi");
}

/* docs/intel-pmu.md 4.2 step 3: room for two records; the third is skipped, nothing else. */
static void absolute_maximum(void)
{
	uint64_t size = record_size(GROUPS);

	memset(buf, 0, sizeof(buf));
	ds_setup((uint64_t)buf, size, 2, 8);
	put_ds(0x38, (uint64_t)buf + 8 * size);
	arm_counter(fmt >= 4);
	nr_pmis = 0;
	seq_run();
	disarm();
	GUEST_ASSERT_EQ(q(ds, 0x28), (uint64_t)buf + 2 * size);
	GUEST_ASSERT_EQ(q(buf + 2 * size, 0), 0);
	/* Not reloaded: wrapped at k = 15, then 3 more. Its overflow bit stays. */
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0), 3);
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 1);
	take_pmis();
	GUEST_ASSERT_EQ(nr_pmis, 0);
	test_ok("pebs absolute maximum");
}

/* A DS area or buffer that is not guest RAM: nothing changes, pmuvm counts it. */
static void bad_pointers(void)
{
	const uint64_t bad_ds[] = {
		APIC_DEFAULT_BASE,			/* MMIO */
		mbi_ram_total() + (64ull << 20),	/* identity-mapped, beyond RAM */
		0x200000000ull,				/* above the 4 GiB identity map */
	};
	const uint64_t bad_buf[] = {
		APIC_DEFAULT_BASE,
		mbi_ram_total() + (64ull << 20),
		0x200000000ull,
		0x0000800000000000ull,			/* non-canonical */
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad_ds) / sizeof(bad_ds[0]); i++) {
		ds_setup((uint64_t)buf, 0x20, 8, 1);
		arm_counter(false);
		wrmsr(MSR_IA32_DS_AREA, bad_ds[i]);
		seq_run();
		disarm();
		GUEST_ASSERT_EQ(q(ds, 0x28), (uint64_t)buf);
		GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 1);
	}
	for (i = 0; i < sizeof(bad_buf) / sizeof(bad_buf[0]); i++) {
		ds_setup(bad_buf[i], 0x20, 8, 1);
		arm_counter(false);
		seq_run();
		disarm();
		GUEST_ASSERT_EQ(q(ds, 0x28), bad_buf[i]);
		GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 1);
	}
	take_pmis();
	GUEST_ASSERT_EQ(nr_pmis, 0);
	printf("pebs_records: bad pointers: %u DS areas, %u buffers\n",
	       (unsigned int)(sizeof(bad_ds) / sizeof(bad_ds[0])),
	       (unsigned int)(sizeof(bad_buf) / sizeof(bad_buf[0])));
	test_ok("pebs bad pointers");
}

int main(void)
{
	uint64_t f = 4;

	mbi_arg_u64("fmt", &f);
	fmt = (unsigned int)f;
	cfg = pmu_cfg_read();
	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 1);
	rt_set_irq_handler(PMI_VECTOR, pmi);
	apic_write_lvtpc(PMI_VECTOR);
	check_enumeration();
	load_xmm();
	records(GROUPS);
	if (fmt >= 4) {
		records(0);
		records(GROUPS_LBR32);
		wrmsr(MSR_PEBS_DATA_CFG, GROUPS);
	}
	threshold();
	absolute_maximum();
	bad_pointers();
	return 0;
}
