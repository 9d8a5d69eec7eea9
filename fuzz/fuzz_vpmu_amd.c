/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: random operation sequences against the AMD model
 * (vmm/model/amd.c).
 *
 * Input: a configuration, then operations until the input runs out:
 *   config  version % 3, nr_gp
 *   op 0    RDMSR  msr
 *   op 1    WRMSR  msr, value
 *   op 2    vpmu_count(ev, n, cpl)
 *   op 3    take_pmi / take_overflows
 *   op 4    RDPMC  ecx
 * MSR operands name one of AMD's PMU MSRs (and the number past each
 * range), one of Intel's, or any 32-bit MSR number.
 *
 * The oracle is written from the AMD64 APM vol. 2 13.2 and KVM's AMD rules
 * (arch/x86/kvm/svm/pmu.c), never from the model's own masks: every MSR the
 * configuration enumerates (CPUID 0x80000001 ECX[23], 0x80000022) can be read
 * and written without #GP (reserved bits and read-only MSRs are dropped);
 * every other one, Intel's PMU MSRs included, #GPs and changes nothing.
 * After every operation: counters hold 48 bits, PERF_CTL holds no reserved
 * bit, GLOBAL_CTL and GLOBAL_STATUS only counter bits, STATUS_CLR and
 * STATUS_SET read 0, and RDPMC agrees with the counter MSRs.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "model/vpmu.h"
#include "x86-pmu/cpuid.h"

#define MASK48		((1ULL << 48) - 1)

static void check(bool ok, const char *what, uint32_t msr)
{
	if (!ok) {
		fprintf(stderr, "fuzz_vpmu_amd: invariant violated: %s (msr 0x%x)\n", what, msr);
		abort();
	}
}

/* What the guest enumerates, from CPUID alone. */
struct enumeration {
	unsigned int nr;	/* counters */
	bool core, v2;		/* PerfCtrExtCore, PerfMonV2 */
};

static void enumerate(const struct vpmu_config *cfg, struct enumeration *e)
{
	uint32_t a, b, c, d, ecx = 0;

	vpmu_cpuid_80000001(cfg, &ecx);
	vpmu_cpuid_80000022(cfg, &a, &b, &c, &d);
	e->core = ecx & CPUID_8000_0001_ECX_PERFCTR_CORE;
	e->v2 = a & CPUID_8000_0022_EAX_PERFMON_V2;
	e->nr = e->v2 ? CPUID_8000_0022_EBX_NR_CORE(b) : e->core ? 6 : cfg->version ? 4 : 0;
}

/* Which MSRs exist for the enumeration (APM 13.2; KVM amd_is_valid_msr()). */
static bool amd_msr_exists(const struct enumeration *e, uint32_t msr)
{
	if (msr >= MSR_K7_EVNTSEL0 && msr < MSR_K7_EVNTSEL0 + 4)
		return msr - MSR_K7_EVNTSEL0 < e->nr;
	if (msr >= MSR_K7_PERFCTR0 && msr < MSR_K7_PERFCTR0 + 4)
		return msr - MSR_K7_PERFCTR0 < e->nr;
	if (msr >= MSR_F15H_PERF_CTL0 && msr < MSR_F15H_PERF_CTL0 + 12)
		return e->core && (msr - MSR_F15H_PERF_CTL0) / 2 < e->nr;
	if (msr >= MSR_AMD64_PERF_CNTR_GLOBAL_STATUS && msr <= MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET)
		return e->v2;
	return false;
}

static const uint32_t msrs[] = {
	MSR_K7_EVNTSEL0, MSR_K7_EVNTSEL0 + 3, MSR_K7_PERFCTR0, MSR_K7_PERFCTR0 + 3,
	MSR_F15H_PERF_CTL0, MSR_F15H_PERF_CTR0, MSR_F15H_PERF_CTL0 + 10, MSR_F15H_PERF_CTR0 + 10,
	MSR_F15H_PERF_CTL0 + 12, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS,
	MSR_AMD64_PERF_CNTR_GLOBAL_CTL, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR,
	MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET + 1,
	MSR_IA32_PMC0, MSR_IA32_PERFEVTSEL0, MSR_IA32_PERF_GLOBAL_CTRL, MSR_IA32_FIXED_CTR0,
	MSR_IA32_A_PMC0, MSR_IA32_DS_AREA,
};
#define NR_MSRS	(sizeof(msrs) / sizeof(msrs[0]))

static uint32_t pick_msr(struct cursor *c)
{
	uint8_t sel = u8(c);

	if (sel < 0xf0)
		return msrs[sel % NR_MSRS];
	return (uint32_t)u64(c, 4);
}

static void check_all(struct vpmu *pmu, const struct enumeration *e)
{
	uint64_t counters = (1ULL << e->nr) - 1, v, r;
	unsigned int i;

	for (i = 0; i < e->nr; i++) {
		uint32_t ctl = e->core ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i;
		uint32_t ctr = e->core ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_K7_PERFCTR0 + i;

		check(vpmu_rdmsr(pmu, ctl, &v) == VPMU_OK, "PERF_CTL unreadable", ctl);
		check(!(v & AMD_EVTSEL_RSVD), "PERF_CTL holds a reserved bit", ctl);
		check(vpmu_rdmsr(pmu, ctr, &v) == VPMU_OK, "PERF_CTR unreadable", ctr);
		check(!(v & ~MASK48), "PERF_CTR wider than 48 bits", ctr);
		check(vpmu_rdpmc(pmu, i, &r) == VPMU_OK && r == v, "RDPMC disagrees", ctr);
		if (i < 4) {
			check(vpmu_rdmsr(pmu, MSR_K7_PERFCTR0 + i, &r) == VPMU_OK && r == v,
			      "legacy PERF_CTR disagrees", MSR_K7_PERFCTR0 + i);
		}
	}
	check(vpmu_rdpmc(pmu, e->nr, &v) == VPMU_GP, "RDPMC past the last counter", 0);
	if (!e->v2)
		return;
	check(vpmu_rdmsr(pmu, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, &v) == VPMU_OK && !(v & ~counters),
	      "GLOBAL_CTL", MSR_AMD64_PERF_CNTR_GLOBAL_CTL);
	check(vpmu_rdmsr(pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, &v) == VPMU_OK && !(v & ~counters),
	      "GLOBAL_STATUS", MSR_AMD64_PERF_CNTR_GLOBAL_STATUS);
	check(vpmu_rdmsr(pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, &v) == VPMU_OK && !v,
	      "STATUS_CLR reads 0", MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR);
	check(vpmu_rdmsr(pmu, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, &v) == VPMU_OK && !v,
	      "STATUS_SET reads 0", MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET);
}

static void run_op(struct vpmu *pmu, const struct enumeration *e, struct cursor *c)
{
	static struct vpmu before;
	uint32_t msr;
	uint64_t v;
	int r;

	switch (u8(c) % 5) {
	case 0:
		msr = pick_msr(c);
		before = *pmu;
		r = vpmu_rdmsr(pmu, msr, &v);
		check(r == (amd_msr_exists(e, msr) ? VPMU_OK : VPMU_GP), "RDMSR existence", msr);
		check(!memcmp(&before, pmu, sizeof(before)), "RDMSR changed the model", msr);
		break;
	case 1:
		msr = pick_msr(c);
		v = u64(c, 8);
		before = *pmu;
		r = vpmu_wrmsr(pmu, msr, v);
		/* AMD never #GPs an MSR it has: reserved bits are dropped. */
		check(r == (amd_msr_exists(e, msr) ? VPMU_OK : VPMU_GP), "WRMSR #GP", msr);
		if (r)
			check(!memcmp(&before, pmu, sizeof(before)), "a #GP WRMSR changed the model", msr);
		break;
	case 2:
		vpmu_count(pmu, (enum pmu_arch_event)(u8(c) % PMU_EV_NR), u64(c, 3), u8(c) % 4);
		break;
	case 3:
		vpmu_take_pmi(pmu);
		vpmu_take_overflows(pmu);
		break;
	default:
		before = *pmu;
		vpmu_rdpmc(pmu, (uint32_t)u64(c, 4), &v);
		check(!memcmp(&before, pmu, sizeof(before)), "RDPMC changed the model", 0);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vpmu pmu;
	struct cursor c = { data, size };
	struct vpmu_config cfg;
	struct enumeration e;

	vpmu_config_default_amd(&cfg, u8(&c) % 3);
	cfg.nr_gp = u8(&c) % 8;
	if (vpmu_config_validate(&cfg))
		return 0;
	vpmu_init(&pmu, &cfg);
	enumerate(&cfg, &e);
	check_all(&pmu, &e);
	while (c.left) {
		run_op(&pmu, &e, &c);
		check_all(&pmu, &e);
	}
	return 0;
}
