/*
 * The CPL3 stepping probe's walk (vmm/kvm/probe.c): which debug exits are
 * steps, which are stalls that left RIP where it was, and which end it.
 */
#include "kvm/probe.h"
#include "suite.h"

#define CODE 0x4000

struct exit_seen {
	bool debug;
	unsigned int cpl;
	uint64_t rip;
};

/* Feeds `n` exits; how many of them the walk took before it ended. */
static unsigned int walk(struct kvm_probe_step_walk *w, const struct exit_seen *e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!kvm_probe_step_seen(w, e[i].debug, e[i].cpl, e[i].rip))
			return i + 1;
	return n;
}

/* A host that steps CPL3 (SVM, VMX hardware, kvm_amd in the lab): one NOP each exit. */
START_TEST(test_steps_each_nop)
{
	static const struct exit_seen e[] = {
		{ true, 3, CODE + 1 }, { true, 3, CODE + 2 }, { true, 3, CODE + 3 },
		{ true, 3, CODE + 4 },
	};
	struct kvm_probe_step_walk w = { .rip = CODE };

	ck_assert_uint_eq(walk(&w, e, 4), 4);
	ck_assert_uint_eq(w.steps, KVM_PROBE_STEP_NOPS);
	ck_assert_uint_eq(w.stalls, 0);
}
END_TEST

/*
 * Bochs 2.7's VMX: a debug exit at the first NOP for each EPT violation of
 * the first fetches (the page tables, the code), then one NOP each.
 */
START_TEST(test_stalls_before_steps)
{
	static const struct exit_seen e[] = {
		{ true, 3, CODE }, { true, 3, CODE }, { true, 3, CODE }, { true, 3, CODE },
		{ true, 3, CODE + 1 }, { true, 3, CODE + 2 }, { true, 3, CODE + 2 },
		{ true, 3, CODE + 3 }, { true, 3, CODE + 4 },
	};
	struct kvm_probe_step_walk w = { .rip = CODE };

	ck_assert_uint_eq(walk(&w, e, 9), 9);
	ck_assert_uint_eq(w.steps, KVM_PROBE_STEP_NOPS);
	ck_assert_uint_eq(w.stalls, 5);
}
END_TEST

/* kvm_pvm: CPL3 runs free to the HLT, whose #GP with no IDT shuts the VM down. */
START_TEST(test_no_debug_exit)
{
	static const struct exit_seen e[] = { { false, 0, 0 }, { true, 3, CODE + 1 } };
	struct kvm_probe_step_walk w = { .rip = CODE };

	ck_assert_uint_eq(walk(&w, e, 2), 1);
	ck_assert_uint_eq(w.steps, 0);
}
END_TEST

/* A step over more than one NOP, a debug exit at CPL0, or after a step: the walk ends short. */
START_TEST(test_ends_short)
{
	static const struct exit_seen ran_two[] = { { true, 3, CODE + 1 }, { true, 3, CODE + 3 } };
	static const struct exit_seen cpl0[] = { { true, 3, CODE + 1 }, { true, 0, CODE + 2 } };
	static const struct exit_seen back[] = { { true, 3, CODE + 1 }, { true, 3, CODE } };
	struct kvm_probe_step_walk w = { .rip = CODE };

	ck_assert_uint_eq(walk(&w, ran_two, 2), 2);
	ck_assert_uint_eq(w.steps, 1);
	w = (struct kvm_probe_step_walk){ .rip = CODE };
	ck_assert_uint_eq(walk(&w, cpl0, 2), 2);
	ck_assert_uint_eq(w.steps, 1);
	w = (struct kvm_probe_step_walk){ .rip = CODE };
	ck_assert_uint_eq(walk(&w, back, 2), 2);
	ck_assert_uint_eq(w.steps, 1);
}
END_TEST

/* Stalls are bounded: a vCPU that never moves is not stepped. */
START_TEST(test_stalls_bounded)
{
	struct kvm_probe_step_walk w = { .rip = CODE };
	unsigned int n = 0;

	while (n < 1000 && kvm_probe_step_seen(&w, true, 3, CODE))
		n++;
	ck_assert_uint_eq(n, KVM_PROBE_STEP_STALLS);
	ck_assert_uint_eq(w.steps, 0);
}
END_TEST

static Suite *probe_step_suite(void)
{
	Suite *s = suite_create("probe_step");
	TCase *tc = tcase_create("walk");

	tcase_add_test(tc, test_steps_each_nop);
	tcase_add_test(tc, test_stalls_before_steps);
	tcase_add_test(tc, test_no_debug_exit);
	tcase_add_test(tc, test_ends_short);
	tcase_add_test(tc, test_stalls_bounded);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(probe_step_suite)
