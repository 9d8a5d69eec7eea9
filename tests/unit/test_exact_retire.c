/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * retire_decide(): did a single-stepped instruction retire, and
 * retire_events(): what a retired one counts (vmm/exact/retire.c)?
 */
#include "exact/retire.h"
#include "model/vpmu.h"
#include "suite.h"

#define RIP	0x100000ULL
#define CS	0x8

static struct insn decode(const uint8_t *b, size_t n)
{
	struct insn in;

	ck_assert_int_eq(insn_decode(b, n, INSN_MODE_64, &in), 0);
	return in;
}

static enum retire step(const struct insn *in, uint64_t new_rip)
{
	struct step_result r = { .new_rip = new_rip };

	return retire_decide(in, RIP, CS, &r);
}

/* The step ended in a handler whose frame is at the new RSP. */
static enum retire step_frame(const struct insn *in, uint64_t new_rip, uint64_t f0,
			      uint64_t f1, uint64_t f2, bool *event)
{
	struct step_result r = { .new_rip = new_rip, .frame = { f0, f1, f2 },
				 .frame_valid = true };
	enum retire how = retire_decide(in, RIP, CS, &r);

	*event = r.event;
	return how;
}

START_TEST(test_plain_and_faulting)
{
	static const uint8_t nop[] = { 0x90 };
	struct insn in = decode(nop, sizeof(nop));
	bool ev;

	ck_assert_int_eq(step(&in, RIP + 1), RETIRE_YES);
	ck_assert(!retire_needs_frame(&in, RIP, RIP + 1));
	ck_assert(retire_needs_frame(&in, RIP, 0x200000));
	/* Fault or interrupt before it: the frame names its RIP (no error code). */
	ck_assert_int_eq(step_frame(&in, 0x200000, RIP, CS, 0x2, &ev), RETIRE_NO);
	ck_assert(ev);
	/* ...with an error code below the frame. */
	ck_assert_int_eq(step_frame(&in, 0x200000, 0, RIP, CS, &ev), RETIRE_NO);
	ck_assert(ev);
	/* ...and the handler's first PUSH run in the same step (kvm_pvm). */
	{
		struct step_result r = { .new_rip = 0x200002, .frame = { 14, 0, RIP, CS },
					 .frame_valid = true };

		ck_assert_int_eq(retire_decide(&in, RIP, CS, &r), RETIRE_NO);
		ck_assert(r.event);
		r = (struct step_result){ .new_rip = 0x200002, .frame = { 14, 0, RIP, 0x2b },
					  .frame_valid = true };
		ck_assert_int_eq(retire_decide(&in, RIP, CS, &r), RETIRE_NO);
		ck_assert(!r.event);
	}
	ck_assert(ev);
	/* Same RIP but another CS: not this instruction's frame. */
	ck_assert_int_eq(step_frame(&in, 0x200000, RIP, 0x2b, 0x2, &ev), RETIRE_NO);
	ck_assert(!ev);
	/* An interrupt after it retired: the frame names the next RIP. */
	ck_assert_int_eq(step_frame(&in, 0x200000, RIP + 1, CS, 0x202, &ev), RETIRE_YES);
	ck_assert(ev);
	/* Diverted somewhere with no readable frame: not retired. */
	ck_assert_int_eq(step(&in, 0x200000), RETIRE_NO);
}
END_TEST

START_TEST(test_rep_string)
{
	static const uint8_t rep_movsb[] = { 0xf3, 0xa4 };
	struct insn in = decode(rep_movsb, sizeof(rep_movsb));
	bool ev;

	ck_assert_int_eq(step(&in, RIP), RETIRE_NO);	/* one iteration */
	ck_assert(!retire_needs_frame(&in, RIP, RIP));
	ck_assert_int_eq(step(&in, RIP + 2), RETIRE_YES);	/* the last one */
	ck_assert_int_eq(step_frame(&in, 0x200000, 0, RIP, CS, &ev), RETIRE_NO);	/* #PF */
}
END_TEST

START_TEST(test_branches)
{
	static const uint8_t je[] = { 0x74, 0x10 };
	static const uint8_t jmp_self[] = { 0xeb, 0xfe };
	static const uint8_t je_next[] = { 0x74, 0x00 };
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t iretq[] = { 0x48, 0xcf };
	struct insn in;
	bool ev;

	in = decode(je, sizeof(je));
	ck_assert_int_eq(step(&in, RIP + 2), RETIRE_YES);
	ck_assert_int_eq(step(&in, RIP + 0x12), RETIRE_TAKEN);
	ck_assert_int_eq(step_frame(&in, 0x200000, RIP + 0x12, CS, 0x202, &ev), RETIRE_TAKEN);
	ck_assert_int_eq(step_frame(&in, 0x200000, RIP + 2, CS, 0x202, &ev), RETIRE_YES);
	ck_assert_int_eq(step_frame(&in, 0x200000, RIP, CS, 0x202, &ev), RETIRE_NO);
	ck_assert_int_eq(step(&in, 0x200000), RETIRE_NO);

	in = decode(jmp_self, sizeof(jmp_self));
	ck_assert_int_eq(step(&in, RIP), RETIRE_TAKEN);

	in = decode(je_next, sizeof(je_next));	/* taken or not, it lands on RIP + 2 */
	ck_assert_int_eq(step(&in, RIP + 2), RETIRE_YES);

	in = decode(ret, sizeof(ret));
	ck_assert_int_eq(step(&in, 0x123456), RETIRE_TAKEN);
	ck_assert_int_eq(step_frame(&in, 0x200000, RIP, CS, 0x2, &ev), RETIRE_NO);

	in = decode(iretq, sizeof(iretq));
	ck_assert_int_eq(step(&in, 0x400000), RETIRE_TAKEN);
}
END_TEST

/*
 * A step that ended where it began with RSP where it was: a CALL, RET,
 * IRET or INT n did not run (a debug exit before it), a JMP may have gone
 * to itself.
 */
START_TEST(test_did_not_run)
{
	static const struct {
		uint8_t b[2];
		size_t n;
		enum retire kept;	/* RSP where it was */
	} c[] = {
		{ { 0xcc }, 1, RETIRE_NO },		/* int3 */
		{ { 0xcd, 0x80 }, 2, RETIRE_NO },	/* int 0x80 */
		{ { 0xff, 0xd0 }, 2, RETIRE_NO },	/* call rax */
		{ { 0xc3 }, 1, RETIRE_NO },		/* ret */
		{ { 0x48, 0xcf }, 2, RETIRE_NO },	/* iretq */
		{ { 0xcb }, 1, RETIRE_NO },		/* retf */
		{ { 0xff, 0xe0 }, 2, RETIRE_TAKEN },	/* jmp rax */
		{ { 0xff, 0x28 }, 2, RETIRE_TAKEN },	/* jmp far [rax] */
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct insn in = decode(c[i].b, c[i].n);
		struct step_result r = { .new_rip = RIP, .rsp_kept = true };

		ck_assert_msg(retire_decide(&in, RIP, CS, &r) == c[i].kept, "case %zu", i);
		ck_assert(!r.event);
		r = (struct step_result){ .new_rip = RIP };
		ck_assert_msg(retire_decide(&in, RIP, CS, &r) == RETIRE_TAKEN, "case %zu moved", i);
	}
}
END_TEST

#define EV(e)	(1u << PMU_EV_##e)

/* The events each retired instruction raises: BR_INST_RETIRED's umasks, AMD's taken branches. */
START_TEST(test_events)
{
	static const uint8_t nop[] = { 0x90 }, je[] = { 0x74, 0x10 }, call[] = { 0xe8, 0, 0, 0, 0 },
			     ret[] = { 0xc3 }, jmp_rax[] = { 0xff, 0xe0 }, iretq[] = { 0x48, 0xcf };
	struct insn in;

	in = decode(nop, sizeof(nop));
	ck_assert_uint_eq(retire_events(&in, RETIRE_YES), EV(INSTRUCTIONS));
	in = decode(je, sizeof(je));
	ck_assert_uint_eq(retire_events(&in, RETIRE_YES),
			  EV(INSTRUCTIONS) | EV(BRANCHES) | EV(BR_COND) | EV(BR_COND_NTAKEN));
	ck_assert_uint_eq(retire_events(&in, RETIRE_TAKEN),
			  EV(INSTRUCTIONS) | EV(BRANCHES) | EV(BR_COND) | EV(BR_COND_TAKEN) |
			  EV(BR_NEAR_TAKEN) | EV(BR_TAKEN));
	in = decode(call, sizeof(call));
	ck_assert_uint_eq(retire_events(&in, RETIRE_TAKEN),
			  EV(INSTRUCTIONS) | EV(BRANCHES) | EV(BR_NEAR_CALL) | EV(BR_NEAR_TAKEN) |
			  EV(BR_TAKEN));
	in = decode(ret, sizeof(ret));
	ck_assert_uint_eq(retire_events(&in, RETIRE_TAKEN),
			  EV(INSTRUCTIONS) | EV(BRANCHES) | EV(BR_NEAR_RETURN) | EV(BR_NEAR_TAKEN) |
			  EV(BR_TAKEN));
	in = decode(jmp_rax, sizeof(jmp_rax));
	ck_assert_uint_eq(retire_events(&in, RETIRE_TAKEN),
			  EV(INSTRUCTIONS) | EV(BRANCHES) | EV(BR_NEAR_TAKEN) | EV(BR_TAKEN));
	in = decode(iretq, sizeof(iretq));
	ck_assert_uint_eq(retire_events(&in, RETIRE_TAKEN),
			  EV(INSTRUCTIONS) | EV(BRANCHES) | EV(BR_FAR) | EV(BR_TAKEN));
}
END_TEST

/*
 * What a retired JNZ raises, counted by the model of the part each PMU
 * version shows, on BR_INST_RETIRED umasks 0x01, 0x10 and 0x11 (at OS, GP
 * counters 0-2): 4 taken and 3 not taken make COND 7, COND_TAKEN 4 and
 * COND_NTAKEN 3 where the core has those encodings (Intel's perfmon
 * files); an encoding the core lacks counts nothing.
 */
START_TEST(test_cond_umasks_per_part)
{
	static const struct {
		unsigned int version;
		uint64_t c4_01, c4_10, c4_11;
	} parts[] = {
		{ 5, 4, 3, 7 },		/* Ice Lake-SP: COND_TAKEN, COND_NTAKEN, COND */
		{ 4, 7, 3, 0 },		/* Skylake-SP: CONDITIONAL, NOT_TAKEN, - */
		{ 3, 7, 0, 0 },		/* Nehalem-EP: CONDITIONAL, -, - */
		{ 2, 0, 0, 0 },		/* Core 2: architectural events only */
	};
	static const uint8_t jnz[] = { 0x75, 0xfc };
	static const uint64_t umask[3] = { 0x01, 0x10, 0x11 };
	struct insn in = decode(jnz, sizeof(jnz));
	struct vpmu_config cfg;
	struct vpmu pmu;
	uint64_t v[3];

	vpmu_config_default(&cfg, parts[_i].version);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&pmu, &cfg);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERFEVTSEL0 + i,
					    PMU_RAW_EVENT(0xc4, umask[i]) | EVTSEL_EN | EVTSEL_OS),
				 VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 7), VPMU_OK);
	for (int i = 0; i < 4; i++)
		vpmu_count_each(&pmu, retire_events(&in, RETIRE_TAKEN), 0);
	for (int i = 0; i < 3; i++)
		vpmu_count_each(&pmu, retire_events(&in, RETIRE_YES), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(vpmu_rdmsr(&pmu, MSR_IA32_PMC0 + i, &v[i]), VPMU_OK);
	ck_assert_uint_eq(v[0], parts[_i].c4_01);
	ck_assert_uint_eq(v[1], parts[_i].c4_10);
	ck_assert_uint_eq(v[2], parts[_i].c4_11);
}
END_TEST

static Suite *exact_retire_suite(void)
{
	Suite *s = suite_create("exact_retire");
	TCase *tc = tcase_create("retire");

	tcase_add_test(tc, test_plain_and_faulting);
	tcase_add_test(tc, test_rep_string);
	tcase_add_test(tc, test_branches);
	tcase_add_test(tc, test_did_not_run);
	tcase_add_test(tc, test_events);
	tcase_add_loop_test(tc, test_cond_umasks_per_part, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(exact_retire_suite)
