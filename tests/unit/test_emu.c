/* SPDX-License-Identifier: GPL-2.0-only */
/* The Unicorn wrapper (vmm/emu/emu.c): state in and out, stops, faults, mapping changes. */
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "suite.h"

#define CODE_LA		0x10000ULL
#define RAM_LEN		0x10000ULL

static uint8_t *ram;
static struct emu *e;
static uint64_t seen[64];
static unsigned int nr_seen;
static uint64_t stop_at;

static bool count_insn(void *opaque, uint64_t rip)
{
	(void)opaque;
	if (nr_seen < 64)
		seen[nr_seen] = rip;
	nr_seen++;
	return rip != stop_at;
}

static const struct emu_ops ops = { .insn = count_insn };

static void setup(void)
{
	struct va_run run;

	ram = aligned_alloc(4096, RAM_LEN);
	ck_assert_ptr_nonnull(ram);
	memset(ram, 0x90, RAM_LEN);
	ck_assert_int_eq(emu_open(&e), 0);
	run = (struct va_run){ CODE_LA, RAM_LEN, ram, VA_READ | VA_WRITE | VA_EXEC };
	ck_assert_int_eq(emu_map(e, &run, 1), 1);
	ck_assert_int_eq(emu_map(e, &run, 1), 0);	/* nothing changed */
	nr_seen = 0;
}

static void teardown(void)
{
	emu_close(e);
	free(ram);
}

static void load(const uint8_t *code, size_t len, struct kvm_regs *r)
{
	memcpy(ram, code, len);
	r->rip = CODE_LA;
	r->rsp = CODE_LA + RAM_LEN;
	r->rflags = 0x2 | (1u << 8);	/* TF: never the emulator's */
	ck_assert_int_eq(emu_set_state(e, r, 0, 0), 0);
}

START_TEST(test_emu_stop_before)
{
	/* mov ecx, 3; l: inc rax; dec ecx; jnz l; inc rbx */
	static const uint8_t code[] = { 0xb9, 3, 0, 0, 0, 0x48, 0xff, 0xc0, 0xff, 0xc9, 0x75, 0xf9,
					0x48, 0xff, 0xc3 };
	struct kvm_regs r = { .rax = 10, .rbx = 20 };

	load(code, sizeof(code), &r);
	stop_at = CODE_LA + 12;
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_STOPPED);
	ck_assert_int_eq(emu_get_state(e, &r), 0);
	ck_assert_uint_eq(r.rip, CODE_LA + 12);	/* stopped before it: not run */
	ck_assert_uint_eq(r.rax, 13);
	ck_assert_uint_eq(r.rbx, 20);
	ck_assert_uint_eq(r.rflags & (1u << 8), 0);
	ck_assert_uint_eq(nr_seen, 1 + 3 * 3 + 1);
	ck_assert_uint_eq(seen[1], CODE_LA + 5);
	ck_assert_uint_eq(seen[4], CODE_LA + 5);	/* the taken JNZ went back */
}
END_TEST

START_TEST(test_emu_fault_and_rep)
{
	/* mov ecx, 4; rep stosb (RDI in the run); mov [rsi], eax (RSI outside it) */
	static const uint8_t code[] = { 0xb9, 4, 0, 0, 0, 0xf3, 0xaa, 0x89, 0x06 };
	struct kvm_regs r = { .rdi = CODE_LA + 0x8000, .rsi = 0x1000, .rax = 0x55 };

	load(code, sizeof(code), &r);
	stop_at = 0;
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_FAULT);
	ck_assert_int_eq(emu_get_state(e, &r), 0);
	ck_assert_uint_eq(r.rip, CODE_LA + 7);	/* the faulting store did not run */
	ck_assert_uint_eq(r.rcx, 0);
	ck_assert_uint_eq(ram[0x8003], 0x55);
	/* MOV, REP STOSB once per iteration and once more as it ends (RCX 0), the store. */
	ck_assert_uint_eq(nr_seen, 1 + 5 + 1);
	ck_assert_uint_eq(seen[4], CODE_LA + 5);
}
END_TEST

/*
 * A fault after a flag-setting instruction in the same block: RFLAGS as
 * that instruction left them (SDM vol. 1 3.4.3.1), for KVM to go on with.
 * Unicorn computes flags lazily; only a hook on each instruction makes it
 * keep them at a fault (docs/counting.md, "The emulation engine").
 */
START_TEST(test_emu_fault_flags)
{
	/* cmp rax, rbx (equal); mov ecx, [rsi] (RSI outside the run) */
	static const uint8_t code[] = { 0x48, 0x39, 0xd8, 0x8b, 0x0e };
	struct kvm_regs r = { .rip = CODE_LA, .rax = 5, .rbx = 5, .rsi = 0x1000, .rflags = 0x3 };

	memcpy(ram, code, sizeof(code));
	stop_at = 0;
	ck_assert_int_eq(emu_set_state(e, &r, 0, 0), 0);
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_FAULT);
	ck_assert_int_eq(emu_get_state(e, &r), 0);
	ck_assert_uint_eq(r.rip, CODE_LA + 3);
	/* ZF and PF set, CF, SF, OF and AF clear. */
	ck_assert_uint_eq(r.rflags & 0x8d5, 0x44);
}
END_TEST

START_TEST(test_emu_remap_and_flush)
{
	/* inc rax; nop... : then the same address maps other code (inc rbx). */
	static const uint8_t code[] = { 0x48, 0xff, 0xc0 };
	uint8_t *other = aligned_alloc(4096, RAM_LEN);
	struct kvm_regs r = { 0 };
	struct va_run run = { CODE_LA, RAM_LEN, other, VA_READ | VA_EXEC };

	ck_assert_ptr_nonnull(other);
	memset(other, 0x90, RAM_LEN);
	other[0] = 0x48, other[1] = 0xff, other[2] = 0xc3;
	load(code, sizeof(code), &r);
	stop_at = CODE_LA + 3;
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_STOPPED);
	ck_assert_int_eq(emu_map(e, &run, 1), 2);	/* the old run unmapped, the new one mapped */
	ck_assert_int_eq(emu_set_state(e, &(struct kvm_regs){ .rip = CODE_LA, .rflags = 2 }, 0, 0), 0);
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_STOPPED);
	ck_assert_int_eq(emu_get_state(e, &r), 0);
	ck_assert_uint_eq(r.rax, 0);
	ck_assert_uint_eq(r.rbx, 1);

	/* Code changed behind its back, then its translations dropped: the new code runs. */
	other[2] = 0xc1;	/* inc rcx */
	emu_flush_code(e, CODE_LA, 4096);
	ck_assert_int_eq(emu_set_state(e, &(struct kvm_regs){ .rip = CODE_LA, .rflags = 2 }, 0, 0), 0);
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_STOPPED);
	ck_assert_int_eq(emu_get_state(e, &r), 0);
	ck_assert_uint_eq(r.rcx, 1);

	/* A read-only run: a write faults. */
	static const uint8_t store[] = { 0x88, 0x00 };	/* mov [rax], al */
	memcpy(other, store, sizeof(store));
	emu_flush_code(e, CODE_LA, 4096);
	ck_assert_int_eq(emu_set_state(e, &(struct kvm_regs){ .rip = CODE_LA, .rax = CODE_LA + 0x100,
							      .rflags = 2 }, 0, 0), 0);
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_FAULT);
	emu_close(e);
	e = NULL;
	free(other);
}
END_TEST

/* An 80-bit value into an FXSAVE image's ST(i) slot: mantissa, then sign and exponent. */
static void fx_st(uint8_t *fx, unsigned int i, uint64_t mant, uint16_t se)
{
	memcpy(fx + 32 + 16 * i, &mant, 8);
	memcpy(fx + 32 + 16 * i + 8, &se, 2);
}

START_TEST(test_emu_fpu)
{
	/* faddp st(1), st; addsd xmm1, xmm1; fldcw [rax] */
	static const uint8_t code[] = { 0xde, 0xc1, 0xf2, 0x0f, 0x58, 0xc9, 0xd9, 0x28 };
	uint8_t fx[EMU_FXSAVE_SIZE] = { 0 }, out[EMU_FXSAVE_SIZE];
	uint16_t fcw = 0x37f, fsw = 6u << 11, cw = 0x27f, v16;
	uint32_t mxcsr = 0x1f80;
	uint64_t xmm1 = 0x3ff8000000000000ULL;	/* 1.5 */
	uint64_t v64;
	struct kvm_regs r = { .rax = CODE_LA + 0x800 };

	memcpy(fx + 0, &fcw, 2);
	memcpy(fx + 2, &fsw, 2);
	fx[4] = 0xc0;				/* physical registers 6 and 7 valid */
	memset(fx + 6, 0xa5, 18);		/* FOP, FIP, FDP: kept as they are */
	memcpy(fx + 24, &mxcsr, 4);
	fx_st(fx, 0, 0x8000000000000000ULL, 0x4000);	/* ST(0) = 2.0 */
	fx_st(fx, 1, 0xc000000000000000ULL, 0x4000);	/* ST(1) = 3.0 */
	memcpy(fx + 160 + 16, &xmm1, 8);
	memcpy(fx + 160 + 16 * 15 + 8, &xmm1, 8);	/* XMM15's high half */
	memcpy(ram + 0x800, &cw, 2);

	load(code, sizeof(code), &r);
	ck_assert_int_eq(emu_set_fpu(e, fx), 0);
	memcpy(out, fx, sizeof(out));
	memset(out, 0, 6);
	ck_assert_int_eq(emu_get_fpu(e, out), 0);
	ck_assert_int_eq(memcmp(out, fx, sizeof(fx)), 0);	/* in and out unchanged */

	stop_at = CODE_LA + sizeof(code);
	ck_assert_int_eq(emu_run(e, &ops, NULL), EMU_END_STOPPED);
	ck_assert_int_eq(emu_get_state(e, &r), 0);
	ck_assert_uint_eq(r.rip, CODE_LA + sizeof(code));
	ck_assert_int_eq(emu_get_fpu(e, out), 0);
	memcpy(&v16, out + 2, 2);
	ck_assert_uint_eq((v16 >> 11) & 7, 7);			/* popped: TOP 7 */
	ck_assert_uint_eq(out[4], 0x80);			/* only physical 7 valid */
	memcpy(&v64, out + 32, 8);
	ck_assert_uint_eq(v64, 0xa000000000000000ULL);		/* ST(0) = 5.0 */
	memcpy(&v16, out + 32 + 8, 2);
	ck_assert_uint_eq(v16, 0x4001);
	memcpy(&v64, out + 160 + 16, 8);
	ck_assert_uint_eq(v64, 0x4008000000000000ULL);		/* XMM1 = 3.0 */
	memcpy(&v64, out + 160 + 16 * 15 + 8, 8);
	ck_assert_uint_eq(v64, xmm1);
	memcpy(&v16, out + 0, 2);
	ck_assert_uint_eq(v16, cw);				/* FLDCW */
	for (unsigned int i = 6; i < 24; i++)
		ck_assert_uint_eq(out[i], 0xa5);
}
END_TEST

static Suite *emu_suite(void)
{
	Suite *s = suite_create("emu");
	TCase *tc = tcase_create("unicorn");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_emu_stop_before);
	tcase_add_test(tc, test_emu_fault_and_rep);
	tcase_add_test(tc, test_emu_fault_flags);
	tcase_add_test(tc, test_emu_remap_and_flush);
	tcase_add_test(tc, test_emu_fpu);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(emu_suite)
