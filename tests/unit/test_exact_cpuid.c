/* SPDX-License-Identifier: GPL-2.0-only */
/* CPUID under the emulation engine (vmm/exact/cpuid.c): AVX and its kin hidden, the rest kept. */
#include <stdlib.h>
#include <string.h>

#include "exact/engine.h"
#include "exact/exact.h"
#include "machine/vcpu.h"
#include "pmu/vcpu_pmu.h"
#include "suite.h"

#define ECX1_SSE42	(1u << 20)
#define ECX1_FMA	(1u << 12)
#define ECX1_AVX	(1u << 28)
#define EBX7_BMI2	(1u << 8)
#define EBX7_AVX2	(1u << 5)

/* Leaves 1, 7.0 and 0DH.0 of a host with AVX2, FMA, BMI2 and XCR0's x87, SSE, AVX, AVX-512, PKRU. */
static struct kvm_cpuid2 *host_cpuid(void)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + 3 * sizeof(c->entries[0]));

	ck_assert_ptr_nonnull(c);
	c->nent = 3;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 1,
						   .ecx = ECX1_SSE42 | ECX1_FMA | ECX1_AVX };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = 7,
						   .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
						   .ebx = EBX7_BMI2 | EBX7_AVX2 };
	c->entries[2] = (struct kvm_cpuid_entry2){ .function = 0xd,
						   .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
						   .eax = 0x2e7 };
	return c;
}

START_TEST(test_exact_cpuid_hides_avx)
{
	struct exact_state x = { .engine = &exact_emulate_engine };
	struct vcpu_pmu pmu = { .exact = &x };
	struct vcpu vcpu = { .pmu = &pmu };
	struct kvm_cpuid2 *c = host_cpuid();
	const char *names[3];
	unsigned int n = 0;

	exact_cpuid(&vcpu, c);
	ck_assert_uint_eq(c->entries[0].ecx, ECX1_SSE42);
	ck_assert_uint_eq(c->entries[1].ebx, EBX7_BMI2);
	ck_assert_uint_eq(c->entries[2].eax, 0x203);	/* x87, SSE and PKRU left in XCR0 */
	for (unsigned int i = 0; i < EXACT_CPUID_HIDDEN_NR; i++)
		if (x.cpuid_hidden & (1ull << i)) {
			ck_assert_uint_lt(n, 3);
			names[n++] = exact_cpuid_hidden_name(i);
		}
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(names[0], "fma");
	ck_assert_str_eq(names[1], "avx");
	ck_assert_str_eq(names[2], "avx2");
	ck_assert_ptr_null(exact_cpuid_hidden_name(EXACT_CPUID_HIDDEN_NR));
	free(c);
}
END_TEST

/* Stepping runs every instruction in KVM: the guest sees the host's features. */
START_TEST(test_exact_cpuid_step_keeps_all)
{
	struct exact_state x = { .engine = &exact_step_engine };
	struct vcpu_pmu pmu = { .exact = &x };
	struct vcpu vcpu = { .pmu = &pmu };
	struct kvm_cpuid2 *c = host_cpuid(), *host = host_cpuid();

	exact_cpuid(&vcpu, c);
	ck_assert_int_eq(memcmp(c->entries, host->entries, 3 * sizeof(c->entries[0])), 0);
	ck_assert_uint_eq(x.cpuid_hidden, 0);
	free(c);
	free(host);
}
END_TEST

static Suite *exact_cpuid_suite(void)
{
	Suite *s = suite_create("exact_cpuid");
	TCase *tc = tcase_create("features");

	tcase_add_test(tc, test_exact_cpuid_hides_avx);
	tcase_add_test(tc, test_exact_cpuid_step_keeps_all);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(exact_cpuid_suite)
