/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest's CPUID as the PMU configuration needs it: the CPU vendor and a
 * signature (family, model, stepping) of a real part whose PMU the model
 * matches, the chosen vendor's PMU leaves, and nothing that advertises the
 * other vendor's PMU (docs/machine.md, "CPU vendor and PMU"). All PMU policy
 * is here; none of it comes from the host (KVM reports leaf 0xA as zero
 * when it has no vPMU, and leaf 0x80000022 only for a host PerfMonV2).
 */
#include <stdio.h>
#include <string.h>

#include "machine/cpuid.h"
#include "machine/vm.h"
#include "x86-pmu/cpuid.h"
#include "x86-pmu/events.h"
#include "pmu/pmu.h"

#define CPUID_LEAF_PMU_EXT	0x23	/* architectural perfmon extension (docs/intel-pmu.md 1.3) */
#define CPUID_EXT_MAX		0x80000000

/* CPUID.1:EAX of a family/model/stepping (SDM vol. 2A CPUID, AMD APM vol. 3 E.3.2). */
static uint32_t signature(unsigned int family, unsigned int model, unsigned int stepping)
{
	uint32_t base_family = family > 0xf ? 0xf : family;
	uint32_t ext_family = family > 0xf ? family - 0xf : 0;

	return (stepping & 0xf) | (model & 0xf) << 4 | base_family << 8 |
	       (model >> 4) << 16 | ext_family << 20;
}

/*
 * A real part per PMU (docs/counting.md, "CPU models"): an Intel core with
 * each architectural PMU version (SDM vol. 3B 20.2), from the event table's
 * parts, whose cores also give the model its model-specific encodings
 * (include/x86-pmu/events.h: Core Duo, Core 2 Penryn, Nehalem, Skylake-SP,
 * Ice Lake-SP); AMD's K10 (legacy counters), Zen 2 Rome (core extension)
 * and Zen 4 Genoa (PerfMonV2).  Each from 2 on is one rr's CPU table knows
 * and none kvm-unit-tests treats as an erratum part.
 */
static uint32_t cpu_signature(const struct pmuvm_config *cfg)
{
	const struct vpmu_config *pmu = &cfg->pmu;

	/* An Intel CPU without an Intel PMU shows the default (version 5) part. */
	if (cfg->cpu_vendor == CPU_VENDOR_INTEL)
		return pmu_intel_part_signature(pmu->version && pmu->vendor == VPMU_VENDOR_INTEL ?
						pmu->version : 5);
	if (pmu->version == 1 && pmu->nr_gp == AMD_NR_LEGACY_COUNTERS)
		return signature(0x10, 0x02, 2);	/* K10 Barcelona */
	if (pmu->version == 1)
		return signature(0x17, 0x31, 0);	/* Zen 2 Rome */
	return signature(0x19, 0x11, 1);		/* Zen 4 Genoa */
}

/*
 * The processor brand string of the part cpu_signature() shows (SDM vol. 2A
 * and APM vol. 3, CPUID 80000002H-80000004H). Intel's ends in the nominal
 * frequency, which tools read as the TSC's (perf takes it from
 * /proc/cpuinfo's "model name"): the guest's own TSC rate. AMD's has none.
 */
static void cpu_brand(const struct pmuvm_config *cfg, uint64_t tsc_khz, char *out, size_t len)
{
	const struct vpmu_config *pmu = &cfg->pmu;
	uint64_t centi_ghz = (tsc_khz + 5000) / 10000;

	if (cfg->cpu_vendor == CPU_VENDOR_INTEL)
		snprintf(out, len, "%s @ %u.%02uGHz",
			 pmu_intel_part_brand(pmu->version && pmu->vendor == VPMU_VENDOR_INTEL ?
					      pmu->version : 5),
			 (unsigned int)(centi_ghz / 100), (unsigned int)(centi_ghz % 100));
	else if (pmu->version == 1 && pmu->nr_gp == AMD_NR_LEGACY_COUNTERS)
		snprintf(out, len, "Quad-Core AMD Opteron(tm) Processor 2350");
	else if (pmu->version == 1)
		snprintf(out, len, "AMD EPYC 7502 32-Core Processor");
	else
		snprintf(out, len, "AMD EPYC 9654 96-Core Processor");
}

/* "GenuineIntel" / "AuthenticAMD" in EBX, EDX, ECX. */
static void vendor_string(struct kvm_cpuid_entry2 *e, const char *name)
{
	memcpy(&e->ebx, name, 4);
	memcpy(&e->edx, name + 4, 4);
	memcpy(&e->ecx, name + 8, 4);
}

/* The brand string in 80000002H-80000004H: 16 bytes each, NUL-padded. */
static void cpuid_brand(const struct pmuvm_config *cfg, uint64_t tsc_khz, struct kvm_cpuid2 *c)
{
	char brand[48] = { 0 };
	struct kvm_cpuid_entry2 *e;
	unsigned int i;

	cpu_brand(cfg, tsc_khz, brand, sizeof(brand));
	for (i = 0; i < 3; i++) {
		e = cpuid_find(c, 0x80000002 + i, 0);
		if (!e)
			return;
		memcpy(&e->eax, brand + 16 * i, 4);
		memcpy(&e->ebx, brand + 16 * i + 4, 4);
		memcpy(&e->ecx, brand + 16 * i + 8, 4);
		memcpy(&e->edx, brand + 16 * i + 12, 4);
	}
}

static void cpuid_identity(const struct pmuvm_config *cfg, uint64_t tsc_khz,
			   struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *e;
	bool amd = cfg->cpu_vendor == CPU_VENDOR_AMD;

	if (cfg->cpu_vendor == CPU_VENDOR_HOST)
		return;
	e = cpuid_find(c, 0, 0);
	if (e)
		vendor_string(e, amd ? "AuthenticAMD" : "GenuineIntel");
	/* AMD repeats the vendor in 0x80000000; Intel reserves those registers. */
	e = cpuid_find(c, CPUID_EXT_MAX, 0);
	if (e) {
		if (amd)
			vendor_string(e, "AuthenticAMD");
		else
			e->ebx = e->ecx = e->edx = 0;
	}
	e = cpuid_find(c, 1, 0);
	if (e)
		e->eax = cpu_signature(cfg);
	cpuid_brand(cfg, tsc_khz, c);
}

/* Leaf 0x80000022 exists only where the AMD PMU has PerfMonV2. */
static void cpuid_amd_pmu(const struct vpmu_config *pc, struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, 0x80000001, 0);
	uint32_t eax, ebx, ecx, edx;

	if (e)
		vpmu_cpuid_80000001(pc, &e->ecx);
	vpmu_cpuid_80000022(pc, &eax, &ebx, &ecx, &edx);
	e = cpuid_find(c, CPUID_LEAF_AMD_PMU, 0);
	if (!e && !eax)
		return;
	if (!e) {
		struct kvm_cpuid_entry2 *max = cpuid_find(c, CPUID_EXT_MAX, 0);

		if (!max)
			return;
		if (max->eax < CPUID_LEAF_AMD_PMU)
			max->eax = CPUID_LEAF_AMD_PMU;
		e = cpuid_add(c, CPUID_LEAF_AMD_PMU);
	}
	e->eax = eax;
	e->ebx = ebx;
	e->ecx = ecx;
	e->edx = edx;
}

void pmu_cpuid(struct vcpu *vcpu, struct kvm_cpuid2 *c)
{
	const struct pmuvm_config *cfg = vcpu->vm->cfg;
	const struct vpmu_config *pc = &cfg->pmu;
	struct kvm_cpuid_entry2 *e;
	uint32_t i;

	cpuid_identity(cfg, vcpu->vm->tsc_khz, c);
	e = cpuid_add(c, CPUID_LEAF_PMU);
	vpmu_cpuid_0a(pc, &e->eax, &e->ebx, &e->ecx, &e->edx);
	e = cpuid_find(c, 1, 0);
	if (e)
		vpmu_cpuid_01(pc, &e->ecx, &e->edx);
	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == CPUID_LEAF_PMU_EXT)
			c->entries[i].eax = c->entries[i].ebx = c->entries[i].ecx =
				c->entries[i].edx = 0;
	cpuid_amd_pmu(pc, c);
}
