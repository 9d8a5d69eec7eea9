/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_diff: a generated instruction sequence, counted, for the
 * differential test of the counting engines (tests/system/test_exact.c):
 * the same seed run under --exact step and --exact emulate must print the
 * same line: instructions, each BR_INST_RETIRED class, and a hash of the
 * registers and memory the sequence left.
 *
 * From the seed (seed=N on the command line), code is generated into a
 * buffer from templates: ALU, shifts, IMUL, LEA, MOV of immediates, loads and
 * stores, PUSH/POP, PUSHF/POPF, conditional jumps of every condition
 * (taken or not as the flags fall), short loops, near CALL/RET, REP MOVSB and
 * STOSB, LOCK XADD and XCHG with memory, CPUID, a #DE whose handler skips
 * the DIV, an IRETQ to the next instruction (a far branch), MFENCE. It
 * runs at CPL0 with every counter counting OS; GLOBAL_CTRL is enabled and
 * disabled inside it (the enabling WRMSR not counted, the disabling one
 * counted).
 */
#include "pmu_common.h"

enum { BR_ALL, BR_COND, BR_CALL, BR_RET, BR_NOT_TAKEN, BR_TAKEN, BR_FAR, NR_BR };

/* GP counter i counts branch event i, encoded for the guest's core (pmu_model_event()). */
static const enum pmu_arch_event br_class[NR_BR] = {
	PMU_EV_BRANCHES, PMU_EV_BR_COND, PMU_EV_BR_NEAR_CALL, PMU_EV_BR_NEAR_RETURN,
	PMU_EV_BR_COND_NTAKEN, PMU_EV_BR_NEAR_TAKEN, PMU_EV_BR_FAR,
};
static uint64_t br_event[NR_BR];

#define GEN_MAX		(64 * 1024)
#define DATA_LEN	4096
#define TEMPLATES	400

static uint8_t gen[GEN_MAX] __attribute__((aligned(4096)));
static uint8_t data[DATA_LEN] __attribute__((aligned(64)));
static uint8_t *p;
static uint64_t rng;

/* The registers templates use: RAX, RBX, RDX, RSI, RDI (no REX.R/B needed). */
static const uint8_t regs[] = { 0, 3, 2, 6, 7 };

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint8_t reg(void)
{
	return regs[rnd(sizeof(regs))];
}

static void b(uint8_t v)
{
	*p++ = v;
}

static void d32(uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b((uint8_t)(v >> (8 * i)));
}

static void modrm_rr(uint8_t r, uint8_t rm)
{
	b(0xc0 | r << 3 | rm);
}

/* [R15 + disp32], R15 holding `data`: a qword slot in 128..1023. */
static void mem_r15(uint8_t r)
{
	b(0x80 | r << 3 | 7);
	d32(128 + 8 * rnd(112));
}

static void t_alu(void)
{
	static const uint8_t ops[] = { 0x01, 0x09, 0x11, 0x19, 0x21, 0x29, 0x31, 0x39, 0x85 };

	b(0x48);
	b(ops[rnd(sizeof(ops))]);
	modrm_rr(reg(), reg());
}

static void t_mov_imm(void)
{
	b(0x48);
	b(0xc7);
	modrm_rr(0, reg());
	d32((uint32_t)rng);
}

static void t_shift(void)
{
	static const uint8_t ext[] = { 0, 1, 4, 5, 7 };	/* ROL ROR SHL SHR SAR */

	b(0x48);
	b(0xc1);
	modrm_rr(ext[rnd(sizeof(ext))], reg());
	b((uint8_t)rnd(64));
}

static void t_imul(void)
{
	b(0x48);
	b(0x0f);
	b(0xaf);
	modrm_rr(reg(), reg());
}

static void t_lea(void)
{
	uint8_t base = reg(), index = reg();

	b(0x48);
	b(0x8d);
	b(0x44 | reg() << 3);			/* mod 01, SIB follows */
	b((uint8_t)(rnd(4) << 6 | index << 3 | base));
	b((uint8_t)rnd(256));
}

static void t_store(void)
{
	b(0x49);
	b(0x89);
	mem_r15(reg());
}

static void t_load(void)
{
	b(0x49);
	b(0x8b);
	mem_r15(reg());
}

static void t_push_pop(void)
{
	b(0x50 + reg());
	t_alu();
	b(0x58 + reg());
}

static void t_pushf_popf(void)
{
	b(0x9c);
	t_alu();
	b(0x9d);
}

static void t_simple(void);

/* Jcc over one or two templates, on a flag state the last ALU left. */
static void t_jcc(void)
{
	uint8_t *rel;

	t_alu();
	b(0x0f);
	b((uint8_t)(0x80 + rnd(16)));
	rel = p;
	d32(0);
	for (uint32_t i = rnd(2) + 1; i; i--)
		t_simple();
	for (int i = 0; i < 4; i++)
		rel[i] = (uint8_t)((uint32_t)(p - rel - 4) >> (8 * i));
}

static void t_loop(void)
{
	uint8_t *top;

	b(0xb9);			/* mov ecx, n */
	d32(rnd(20) + 1);
	top = p;
	t_alu();
	b(0xff);			/* dec ecx */
	b(0xc9);
	b(0x75);			/* jnz top */
	b((uint8_t)(top - (p + 1)));
}

/* call L; jmp M; L: ALU; ret; M: */
static void t_call(void)
{
	b(0xe8);
	d32(2);
	b(0xeb);
	b(4);
	t_alu();
	b(0xc3);
}

static void t_rep(void)
{
	b(0x49);			/* lea rsi, [r15 + 1024 + x] */
	b(0x8d);
	b(0xb7);
	d32(1024 + rnd(512));
	b(0x49);			/* lea rdi, [r15 + 2048 + y] */
	b(0x8d);
	b(0xbf);
	d32(2048 + rnd(512));
	b(0xb9);			/* mov ecx, n */
	d32(rnd(65));
	b(0xf3);
	b(rnd(2) ? 0xa4 : 0xaa);	/* rep movsb / rep stosb */
}

static void t_locked(void)
{
	if (rnd(2)) {
		b(0xf0);		/* lock xadd [r15+d], r */
		b(0x49);
		b(0x0f);
		b(0xc1);
	} else {
		b(0x49);		/* xchg [r15+d], r */
		b(0x87);
	}
	mem_r15(reg());
}

static void t_cpuid(void)
{
	b(0x31);			/* xor eax, eax */
	b(0xc0);
	b(0x0f);
	b(0xa2);
}

/* xor edx, edx; mov eax, imm; xor ecx, ecx; div ecx: #DE, whose handler skips the DIV. */
static void t_div0(void)
{
	b(0x31);
	b(0xd2);
	b(0xb8);
	d32((uint32_t)rng);
	b(0x31);
	b(0xc9);
	b(0xf7);
	b(0xf1);
}

/* An IRETQ to the next instruction: SS, RSP, RFLAGS, CS, RIP pushed by hand. */
static void t_iret(void)
{
	b(0x48);			/* mov rcx, rsp */
	b(0x89);
	b(0xe1);
	b(0x6a);			/* push SEG_KDATA */
	b(SEG_KDATA);
	b(0x51);			/* push rcx */
	b(0x9c);			/* pushfq */
	b(0x6a);			/* push SEG_KCODE64 */
	b(SEG_KCODE64);
	b(0x48);			/* lea rcx, [rip + 3] */
	b(0x8d);
	b(0x0d);
	d32(3);
	b(0x51);			/* push rcx */
	b(0x48);			/* iretq */
	b(0xcf);
}

static void t_mfence(void)
{
	b(0x0f);
	b(0xae);
	b(0xf0);
}

/* Templates without control flow of their own, for inside a Jcc's shadow. */
static void t_simple(void)
{
	static void (*const simple[])(void) = { t_alu, t_mov_imm, t_shift, t_imul, t_lea,
						 t_store, t_load };

	simple[rnd(sizeof(simple) / sizeof(simple[0]))]();
}

static void generate(void)
{
	static void (*const all[])(void) = {
		t_alu, t_alu, t_mov_imm, t_shift, t_imul, t_lea, t_store, t_load, t_push_pop,
		t_pushf_popf, t_jcc, t_jcc, t_loop, t_call, t_rep, t_locked, t_cpuid, t_div0,
		t_iret, t_mfence,
	};
	static const uint8_t prologue[] = {
		0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57,	/* push rbx..r15 */
		0x49, 0x89, 0xff,						/* mov r15, rdi */
		0x31, 0xc0, 0x31, 0xdb, 0x31, 0xd2, 0x31, 0xf6, 0x31, 0xff,	/* zero the five */
		0xb9, 0x8f, 0x03, 0, 0, 0xb8, 0xff, 0, 0, 0, 0xba, 1, 0, 0, 0,	/* GLOBAL_CTRL */
		0x0f, 0x30,							/* wrmsr */
	};
	static const uint8_t epilogue[] = {
		0x49, 0x89, 0x07, 0x49, 0x89, 0x5f, 0x08, 0x49, 0x89, 0x57, 0x10,	/* rax rbx rdx */
		0x49, 0x89, 0x77, 0x18, 0x49, 0x89, 0x7f, 0x20,			/* rsi rdi */
		0x48, 0x39, 0xd8,	/* cmp rax, rbx: flags defined (IMUL, shifts leave some undefined) */
		0x9c, 0x41, 0x8f, 0x47, 0x28,					/* pushfq; pop [r15+40] */
		0xb9, 0x8f, 0x03, 0, 0, 0x31, 0xc0, 0x31, 0xd2, 0x0f, 0x30,	/* GLOBAL_CTRL = 0 */
		0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5d, 0x5b, 0xc3,	/* pop; ret */
	};

	p = gen;
	for (unsigned int i = 0; i < sizeof(prologue); i++)
		b(prologue[i]);
	for (unsigned int i = 0; i < TEMPLATES; i++)
		all[rnd(sizeof(all) / sizeof(all[0]))]();
	for (unsigned int i = 0; i < sizeof(epilogue); i++)
		b(epilogue[i]);
	GUEST_ASSERT(p - gen < GEN_MAX);
}

static void de_skip(struct rt_frame *f)
{
	f->rip += 2;	/* DIV ECX */
}

static uint64_t fnv(const uint8_t *s, uint64_t n, uint64_t h)
{
	for (uint64_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t seed = 1, br[NR_BR], insns;
	void (*fn)(uint8_t *) = (void (*)(uint8_t *))(uintptr_t)gen;

	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0) && cfg.nr_gp >= NR_BR);
	for (int i = 0; i < NR_BR; i++)
		br_event[i] = pmu_model_event(br_class[i]);
	mbi_arg_u64("seed", &seed);
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	generate();
	rt_set_exception_hook(VEC_DE, de_skip);

	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	for (int i = 0; i < NR_BR; i++) {
		wrmsr(MSR_IA32_PMC0 + i, 0);
		wrmsr(MSR_IA32_PERFEVTSEL0 + i, EVTSEL_EN | EVTSEL_OS | br_event[i]);
	}
	asm volatile("cli");	/* no interrupt handler in the counts */
	fn(data);
	insns = rdmsr(MSR_IA32_FIXED_CTR0);
	for (int i = 0; i < NR_BR; i++)
		br[i] = rdmsr(MSR_IA32_PMC0 + i);
	printf("exact_diff: seed=%llu insns=%llu br=%llu,%llu,%llu,%llu,%llu,%llu,%llu "
	       "hash=%016llx\n", (unsigned long long)seed, (unsigned long long)insns,
	       (unsigned long long)br[0], (unsigned long long)br[1], (unsigned long long)br[2],
	       (unsigned long long)br[3], (unsigned long long)br[4], (unsigned long long)br[5],
	       (unsigned long long)br[6],
	       (unsigned long long)fnv(data, DATA_LEN, 0xcbf29ce484222325ULL));
	GUEST_ASSERT(insns > TEMPLATES);
	return 0;
}
