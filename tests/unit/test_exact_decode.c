/* SPDX-License-Identifier: GPL-2.0-only */
/* Instruction classification (vmm/x86/decode.c) and the decode cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "x86/decode.h"
#include "exact/icache.h"
#include "suite.h"

struct decode_case {
	const char *name;
	enum insn_mode mode;
	uint8_t bytes[INSN_MAX_LEN];
	uint8_t len;
	uint32_t flags;
	int64_t rel;
};

#define B	INSN_BRANCH
#define S	INSN_SYSTEM
#define K	INSN_STACK_BRANCH
#define F	INSN_FPU
static const struct decode_case decode_cases[] = {
	{ "nop", INSN_MODE_64, { 0x90 }, 1, 0, 0 },
	{ "wrmsr", INSN_MODE_64, { 0x0f, 0x30 }, 2, INSN_WRMSR | S, 0 },
	{ "rdpmc", INSN_MODE_64, { 0x0f, 0x33 }, 2, INSN_RDPMC | S, 0 },
	{ "hlt", INSN_MODE_64, { 0xf4 }, 1, INSN_HLT | S, 0 },
	{ "rep movsb", INSN_MODE_64, { 0xf3, 0xa4 }, 2, INSN_REP, 0 },
	{ "repne scasb", INSN_MODE_64, { 0xf2, 0xae }, 2, INSN_REP, 0 },
	{ "movsb", INSN_MODE_64, { 0xa4 }, 1, 0, 0 },
	{ "pause (F3 on a non-string)", INSN_MODE_64, { 0xf3, 0x90 }, 2, 0, 0 },
	{ "ud2", INSN_MODE_64, { 0x0f, 0x0b }, 2, S, 0 },
	{ "je +5", INSN_MODE_64, { 0x74, 0x05 }, 2, B | INSN_COND | INSN_RELATIVE, 5 },
	{ "jne rel32", INSN_MODE_64, { 0x0f, 0x85, 0xf0, 0xff, 0xff, 0xff }, 6,
	  B | INSN_COND | INSN_RELATIVE, -16 },
	{ "loop", INSN_MODE_64, { 0xe2, 0xfe }, 2, B | INSN_COND | INSN_RELATIVE, -2 },
	{ "jrcxz", INSN_MODE_64, { 0xe3, 0x10 }, 2, B | INSN_COND | INSN_RELATIVE, 16 },
	{ "jmp $", INSN_MODE_64, { 0xeb, 0xfe }, 2, B | INSN_NEAR_UNCOND | INSN_RELATIVE, -2 },
	{ "call rel32", INSN_MODE_64, { 0xe8, 0x00, 0x01, 0x00, 0x00 }, 5,
	  B | K | INSN_NEAR_CALL | INSN_NEAR_UNCOND | INSN_RELATIVE, 0x100 },
	{ "call rax", INSN_MODE_64, { 0xff, 0xd0 }, 2, B | K | INSN_NEAR_CALL | INSN_NEAR_UNCOND, 0 },
	{ "jmp [rax]", INSN_MODE_64, { 0xff, 0x20 }, 2, B | INSN_NEAR_UNCOND, 0 },
	{ "ret", INSN_MODE_64, { 0xc3 }, 1, B | K | INSN_NEAR_RET | INSN_NEAR_UNCOND, 0 },
	{ "ret 8", INSN_MODE_64, { 0xc2, 0x08, 0x00 }, 3, B | K | INSN_NEAR_RET | INSN_NEAR_UNCOND, 0 },
	{ "retf", INSN_MODE_64, { 0xcb }, 1, B | K | INSN_FAR | S, 0 },
	{ "iretq", INSN_MODE_64, { 0x48, 0xcf }, 2, B | K | INSN_FAR | INSN_IRET | INSN_LOADS_RFLAGS | S, 0 },
	{ "iretd", INSN_MODE_32, { 0xcf }, 1, B | K | INSN_FAR | INSN_IRET | INSN_LOADS_RFLAGS | S, 0 },
	{ "int 0x80", INSN_MODE_64, { 0xcd, 0x80 }, 2, B | K | INSN_FAR | S, 0 },
	{ "int3", INSN_MODE_64, { 0xcc }, 1, B | K | INSN_FAR | S, 0 },
	{ "syscall", INSN_MODE_64, { 0x0f, 0x05 }, 2,
	  B | INSN_FAR | INSN_LOADS_RFLAGS | INSN_SAVES_RFLAGS | S, 0 },
	{ "sysretq", INSN_MODE_64, { 0x48, 0x0f, 0x07 }, 3, B | INSN_FAR | INSN_LOADS_RFLAGS | INSN_SYSRET | S, 0 },
	{ "popfq", INSN_MODE_64, { 0x9d }, 1, INSN_LOADS_RFLAGS | S, 0 },
	{ "popfd", INSN_MODE_32, { 0x9d }, 1, INSN_LOADS_RFLAGS | S, 0 },
	{ "pushfq", INSN_MODE_64, { 0x9c }, 1, INSN_SAVES_RFLAGS, 0 },
	{ "pushfd", INSN_MODE_32, { 0x9c }, 1, INSN_SAVES_RFLAGS, 0 },
	{ "jmp far [rax]", INSN_MODE_64, { 0xff, 0x28 }, 2, B | INSN_FAR | S, 0 },
	{ "jmp far ptr16:32", INSN_MODE_32, { 0xea, 0, 0, 0x10, 0, 0x08, 0 }, 7, B | INSN_FAR | S, 0 },
	{ "je in 16-bit mode", INSN_MODE_16, { 0x74, 0xfe }, 2, B | INSN_COND | INSN_RELATIVE, -2 },
	/* What an emulator with only the general registers and memory may run (INSN_SYSTEM). */
	{ "mov rax, [rbx]", INSN_MODE_64, { 0x48, 0x8b, 0x03 }, 3, 0, 0 },
	{ "add [rbx], eax", INSN_MODE_64, { 0x01, 0x03 }, 2, 0, 0 },
	{ "xchg eax, ebx", INSN_MODE_64, { 0x93 }, 1, 0, 0 },
	{ "xchg [rbx], eax", INSN_MODE_64, { 0x87, 0x03 }, 2, INSN_LOCKED, 0 },
	{ "lock add [rbx], eax", INSN_MODE_64, { 0xf0, 0x01, 0x03 }, 3, INSN_LOCKED, 0 },
	{ "lock cmpxchg [rbx], ecx", INSN_MODE_64, { 0xf0, 0x0f, 0xb1, 0x0b }, 4, INSN_LOCKED, 0 },
	{ "cld", INSN_MODE_64, { 0xfc }, 1, 0, 0 },
	{ "lea rax, [rip+0]", INSN_MODE_64, { 0x48, 0x8d, 0x05, 0, 0, 0, 0 }, 7, 0, 0 },
	{ "cli", INSN_MODE_64, { 0xfa }, 1, S, 0 },
	{ "sti", INSN_MODE_64, { 0xfb }, 1, INSN_STI | S, 0 },
	{ "stac", INSN_MODE_64, { 0x0f, 0x01, 0xcb }, 3, S, 0 },
	{ "swapgs", INSN_MODE_64, { 0x0f, 0x01, 0xf8 }, 3, S, 0 },
	{ "cpuid", INSN_MODE_64, { 0x0f, 0xa2 }, 2, S, 0 },
	{ "rdtsc", INSN_MODE_64, { 0x0f, 0x31 }, 2, INSN_RDTSC | S, 0 },
	{ "rdtscp", INSN_MODE_64, { 0x0f, 0x01, 0xf9 }, 3, S, 0 },
	{ "in al, dx", INSN_MODE_64, { 0xec }, 1, S, 0 },
	{ "rep outsb", INSN_MODE_64, { 0xf3, 0x6e }, 2, S, 0 },
	{ "mov ds, ax", INSN_MODE_64, { 0x8e, 0xd8 }, 2, S, 0 },
	{ "mov eax, fs", INSN_MODE_64, { 0x8c, 0xe0 }, 2, S, 0 },
	{ "push fs", INSN_MODE_64, { 0x0f, 0xa0 }, 2, S, 0 },
	{ "mov cr3, rax", INSN_MODE_64, { 0x0f, 0x22, 0xd8 }, 3, S, 0 },
	/* ...and what it may run given the x87, MMX and SSE state too (INSN_FPU). */
	{ "movaps xmm0, [rax]", INSN_MODE_64, { 0x0f, 0x28, 0x00 }, 3, F, 0 },
	{ "fld1", INSN_MODE_64, { 0xd9, 0xe8 }, 2, F, 0 },
	{ "fldcw [rax]", INSN_MODE_64, { 0xd9, 0x28 }, 2, F, 0 },
	{ "ldmxcsr [rax]", INSN_MODE_64, { 0x0f, 0xae, 0x10 }, 3, F, 0 },
	{ "paddd mm0, mm1", INSN_MODE_64, { 0x0f, 0xfe, 0xc1 }, 3, F, 0 },
	{ "pshufb xmm0, xmm1", INSN_MODE_64, { 0x66, 0x0f, 0x38, 0x00, 0xc1 }, 5, F, 0 },
	{ "pcmpistri xmm0, xmm1, 0", INSN_MODE_64, { 0x66, 0x0f, 0x3a, 0x63, 0xc1, 0x00 }, 6, F, 0 },
	{ "cvtsi2sd xmm0, rax", INSN_MODE_64, { 0xf2, 0x48, 0x0f, 0x2a, 0xc0 }, 5, F, 0 },
	{ "fnstenv [rax]", INSN_MODE_64, { 0xd9, 0x30 }, 2, S, 0 },
	{ "fnsave [rax]", INSN_MODE_64, { 0xdd, 0x30 }, 2, S, 0 },
	{ "fxsave [rax]", INSN_MODE_64, { 0x0f, 0xae, 0x00 }, 3, S, 0 },
	{ "fxrstor64 [rax]", INSN_MODE_64, { 0x48, 0x0f, 0xae, 0x08 }, 4, S, 0 },
	{ "vzeroupper", INSN_MODE_64, { 0xc5, 0xf8, 0x77 }, 3, S, 0 },
	{ "vaddps xmm0, xmm1, xmm2", INSN_MODE_64, { 0xc5, 0xf0, 0x58, 0xc2 }, 4, S, 0 },
	{ "xsave [rax]", INSN_MODE_64, { 0x0f, 0xae, 0x20 }, 3, S, 0 },
	{ "invlpg [rax]", INSN_MODE_64, { 0x0f, 0x01, 0x38 }, 3, INSN_TLB | S, 0 },
	{ "mov eax, fs:[rbx] (a segment override)", INSN_MODE_64, { 0x64, 0x8b, 0x03 }, 3, 0, 0 },
};

START_TEST(test_decode_classes)
{
	const struct decode_case *c = &decode_cases[_i];
	struct insn in;

	ck_assert_msg(insn_decode(c->bytes, sizeof(c->bytes), c->mode, &in) == 0, "%s", c->name);
	ck_assert_msg(in.len == c->len, "%s: len %u", c->name, in.len);
	ck_assert_msg(in.flags == c->flags, "%s: flags 0x%x, want 0x%x", c->name, in.flags,
		      c->flags);
	if (c->flags & INSN_RELATIVE)
		ck_assert_msg(in.rel == c->rel, "%s: rel %lld", c->name, (long long)in.rel);
}
END_TEST

START_TEST(test_decode_invalid)
{
	static const uint8_t push_es[] = { 0x06 };	/* invalid in 64-bit mode */
	static const uint8_t truncated[] = { 0x0f, 0x85, 0x00 };
	struct insn in;

	ck_assert_int_eq(insn_decode(push_es, sizeof(push_es), INSN_MODE_64, &in), -EINVAL);
	ck_assert_int_eq(insn_decode(truncated, sizeof(truncated), INSN_MODE_64, &in), -EINVAL);
	ck_assert_int_eq(insn_decode(push_es, sizeof(push_es), 7, &in), -EINVAL);
	ck_assert_int_eq(insn_decode(push_es, sizeof(push_es), INSN_MODE_32, &in), 0);
}
END_TEST

/* The vector each instruction raises by what it is (x86/decode.h: INSN_NO_FAULT_VEC if none). */
static const struct {
	const char *name;
	uint8_t bytes[4];
	int fault_vec;
} fault_cases[] = {
	{ "div ecx", { 0xf7, 0xf1 }, 0 },
	{ "idiv byte [rax]", { 0xf6, 0x38 }, 0 },
	{ "int3", { 0xcc }, 3 },
	{ "int 0x80", { 0xcd, 0x80 }, 0x80 },
	{ "int 0xfe", { 0xcd, 0xfe }, 0xfe },
	{ "ud2", { 0x0f, 0x0b }, 6 },
	{ "rdpmc", { 0x0f, 0x33 }, 13 },
	{ "rdmsr", { 0x0f, 0x32 }, 13 },
	{ "wrmsr", { 0x0f, 0x30 }, 13 },
	{ "hlt (privileged)", { 0xf4 }, 13 },
	{ "mov cr3, rax (privileged)", { 0x0f, 0x22, 0xd8 }, 13 },
	{ "nop", { 0x90 }, INSN_NO_FAULT_VEC },
	{ "mov eax, [rbx]", { 0x8b, 0x03 }, INSN_NO_FAULT_VEC },
	{ "syscall", { 0x0f, 0x05 }, INSN_NO_FAULT_VEC },
};

START_TEST(test_decode_fault_vector)
{
	struct insn in;

	ck_assert_msg(insn_decode(fault_cases[_i].bytes, sizeof(fault_cases[_i].bytes),
				  INSN_MODE_64, &in) == 0, "%s", fault_cases[_i].name);
	ck_assert_msg(in.fault_vec == fault_cases[_i].fault_vec, "%s: vector %d, want %d",
		      fault_cases[_i].name, in.fault_vec, fault_cases[_i].fault_vec);
}
END_TEST

START_TEST(test_rel_target_wraps_to_operand_size)
{
	static const uint8_t je16[] = { 0x74, 0x10 };
	static const uint8_t jmp64[] = { 0xeb, 0xfe };
	struct insn in;

	ck_assert_int_eq(insn_decode(je16, sizeof(je16), INSN_MODE_16, &in), 0);
	ck_assert_uint_eq(insn_rel_target(&in, 0xfff0), 0x0002);
	ck_assert_int_eq(insn_decode(jmp64, sizeof(jmp64), INSN_MODE_64, &in), 0);
	ck_assert_uint_eq(insn_rel_target(&in, 0xffffffff80001000ULL), 0xffffffff80001000ULL);
}
END_TEST

/* The cache, over paging-off guest memory (linear == physical). */
#define RAM	(1u << 20)

static uint8_t *ram;
static struct guest_mem mem;
static struct icache *cache;
static const struct paging_state flat = { 0 };

static void cache_setup(void)
{
	ram = calloc(1, RAM);
	cache = malloc(sizeof(*cache));
	ck_assert(ram && cache);
	guest_mem_layout(&mem, ram, RAM);
	icache_init(cache);
}

static void cache_teardown(void)
{
	free(ram);
	free(cache);
}

START_TEST(test_cache_hit_and_stale)
{
	struct insn in;

	ram[0x1000] = 0x90;
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, 0x1000, false, INSN_MODE_64, &in), 0);
	ck_assert_uint_eq(in.len, 1);
	ck_assert_uint_eq(cache->misses, 1);
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, 0x1000, false, INSN_MODE_64, &in), 0);
	ck_assert_uint_eq(cache->hits, 1);

	/* The guest rewrites the byte: the old decode must not be used. */
	ram[0x1000] = 0xf4;
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, 0x1000, false, INSN_MODE_64, &in), 0);
	ck_assert_uint_eq(in.flags, INSN_HLT | INSN_SYSTEM);
	ck_assert_uint_eq(cache->stale, 1);
	ck_assert_uint_eq(cache->misses, 2);

	/* Same bytes, other mode: decoded again, not taken from the cache. */
	ram[0x2000] = 0x48;
	ram[0x2001] = 0x90;	/* REX.W nop in 64-bit mode, DEC EAX + NOP in 32-bit */
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, 0x2000, false, INSN_MODE_64, &in), 0);
	ck_assert_uint_eq(in.len, 2);
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, 0x2000, false, INSN_MODE_32, &in), 0);
	ck_assert_uint_eq(in.len, 1);
}
END_TEST

START_TEST(test_cache_page_crossing)
{
	struct insn in;

	/* call rel32 whose last bytes are on the next page */
	memcpy(ram + 0x2ffe, (uint8_t[]){ 0xe8, 0x10, 0x00, 0x00, 0x00 }, 5);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(icache_fetch(cache, &mem, &flat, 0x2ffe, false, INSN_MODE_64, &in),
				 0);
		ck_assert_uint_eq(in.len, 5);
		ck_assert_int_eq(in.rel, 0x10);
	}
	ck_assert_uint_eq(cache->hits, 0);	/* never cached */

	/* A one-byte instruction at the end of RAM needs no byte beyond it. */
	ram[RAM - 1] = 0xc3;
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, RAM - 1, false, INSN_MODE_64, &in), 0);
	ck_assert_uint_eq(in.flags & INSN_NEAR_RET, INSN_NEAR_RET);
	/* An instruction cut by the end of RAM cannot be fetched. */
	ram[RAM - 1] = 0xe8;
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, RAM - 1, false, INSN_MODE_64, &in),
			 -EFAULT);
	ck_assert_int_eq(icache_fetch(cache, &mem, &flat, RAM + 0x1000, false, INSN_MODE_64, &in),
			 -EFAULT);
}
END_TEST

static Suite *exact_decode_suite(void)
{
	Suite *s = suite_create("exact_decode");
	TCase *tc = tcase_create("decode");
	TCase *tc2 = tcase_create("icache");

	tcase_add_loop_test(tc, test_decode_classes, 0,
			    sizeof(decode_cases) / sizeof(decode_cases[0]));
	tcase_add_test(tc, test_decode_invalid);
	tcase_add_loop_test(tc, test_decode_fault_vector, 0,
			    (int)(sizeof(fault_cases) / sizeof(fault_cases[0])));
	tcase_add_test(tc, test_rel_target_wraps_to_operand_size);
	tcase_add_checked_fixture(tc2, cache_setup, cache_teardown);
	tcase_add_test(tc2, test_cache_hit_and_stale);
	tcase_add_test(tc2, test_cache_page_crossing);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tc2);
	return s;
}

TEST_SUITE(exact_decode_suite)
