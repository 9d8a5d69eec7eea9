/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CPUID features the emulation engine cannot run, hidden from a guest it
 * counts: Unicorn 2.0 (QEMU 5.0's TCG) has no AVX, so VEX and EVEX code
 * would be stepped an instruction at a time, where a guest shown none
 * picks the SSE code the emulator runs (glibc's ifuncs, compilers'
 * dispatch). The XSAVE components of the hidden state leave CPUID.0DH too,
 * so the guest cannot enable them in XCR0. --exact step shows them all
 * (docs/counting.md, "The emulation engine").
 */
#include <stddef.h>

#include "exact/engine.h"
#include "exact/exact.h"
#include "machine/cpuid.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"

enum { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

/* SDM vol. 2A CPUID, Table 3-8 and leaf 07H; named as Linux's /proc/cpuinfo names them. */
static const struct exact_cpuid_bit {
	uint32_t fn, idx;
	uint8_t reg, bit;
	const char *name;
} exact_cpuid_hidden[EXACT_CPUID_HIDDEN_NR] = {
	{ 0x01, 0, CPUID_ECX, 12, "fma" },
	{ 0x01, 0, CPUID_ECX, 28, "avx" },
	{ 0x01, 0, CPUID_ECX, 29, "f16c" },
	{ 0x07, 0, CPUID_EBX, 5, "avx2" },
	{ 0x07, 0, CPUID_EBX, 16, "avx512f" },
	{ 0x07, 0, CPUID_EBX, 17, "avx512dq" },
	{ 0x07, 0, CPUID_EBX, 21, "avx512ifma" },
	{ 0x07, 0, CPUID_EBX, 26, "avx512pf" },
	{ 0x07, 0, CPUID_EBX, 27, "avx512er" },
	{ 0x07, 0, CPUID_EBX, 28, "avx512cd" },
	{ 0x07, 0, CPUID_EBX, 30, "avx512bw" },
	{ 0x07, 0, CPUID_EBX, 31, "avx512vl" },
	{ 0x07, 0, CPUID_ECX, 1, "avx512vbmi" },
	{ 0x07, 0, CPUID_ECX, 6, "avx512_vbmi2" },
	{ 0x07, 0, CPUID_ECX, 9, "vaes" },
	{ 0x07, 0, CPUID_ECX, 10, "vpclmulqdq" },
	{ 0x07, 0, CPUID_ECX, 11, "avx512_vnni" },
	{ 0x07, 0, CPUID_ECX, 12, "avx512_bitalg" },
	{ 0x07, 0, CPUID_ECX, 14, "avx512_vpopcntdq" },
	{ 0x07, 0, CPUID_EDX, 2, "avx512_4vnniw" },
	{ 0x07, 0, CPUID_EDX, 3, "avx512_4fmaps" },
	{ 0x07, 0, CPUID_EDX, 8, "avx512_vp2intersect" },
	{ 0x07, 0, CPUID_EDX, 22, "amx_bf16" },
	{ 0x07, 0, CPUID_EDX, 23, "avx512_fp16" },
	{ 0x07, 0, CPUID_EDX, 24, "amx_tile" },
	{ 0x07, 0, CPUID_EDX, 25, "amx_int8" },
	{ 0x07, 1, CPUID_EAX, 4, "avx_vnni" },
	{ 0x07, 1, CPUID_EAX, 5, "avx512_bf16" },
};

/*
 * XCR0's components of that state (SDM vol. 1 13.1): AVX's upper halves
 * (2), AVX-512's opmask and upper registers (5-7), AMX's (17, 18).
 */
#define EXACT_XCR0_HIDDEN	((1u << 2) | (1u << 5) | (1u << 6) | (1u << 7) | \
				 (1u << 17) | (1u << 18))

static uint32_t *cpuid_reg(struct kvm_cpuid_entry2 *e, uint8_t reg)
{
	switch (reg) {
	case CPUID_EAX:
		return &e->eax;
	case CPUID_EBX:
		return &e->ebx;
	case CPUID_ECX:
		return &e->ecx;
	default:
		return &e->edx;
	}
}

void exact_cpuid(struct vcpu *vcpu, struct kvm_cpuid2 *c)
{
	struct exact_state *x = vcpu->pmu->exact;
	struct kvm_cpuid_entry2 *e;

	if (!x || x->engine != &exact_emulate_engine)
		return;
	for (unsigned int i = 0; i < EXACT_CPUID_HIDDEN_NR; i++) {
		const struct exact_cpuid_bit *b = &exact_cpuid_hidden[i];
		uint32_t *r;

		e = cpuid_find(c, b->fn, b->idx);
		if (!e || !(*(r = cpuid_reg(e, b->reg)) & (1u << b->bit)))
			continue;
		*r &= ~(1u << b->bit);
		x->cpuid_hidden |= 1ull << i;
	}
	e = cpuid_find(c, 0x0d, 0);
	if (e)
		e->eax &= ~EXACT_XCR0_HIDDEN;
}

const char *exact_cpuid_hidden_name(unsigned int i)
{
	return i < EXACT_CPUID_HIDDEN_NR ? exact_cpuid_hidden[i].name : NULL;
}
