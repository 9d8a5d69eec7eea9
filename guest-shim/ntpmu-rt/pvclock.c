/* SPDX-License-Identifier: MIT */
/*
 * The TSC frequency under KVM, from its paravirtual clock (Linux
 * Documentation/virt/kvm/x86/msr.rst, MSR_KVM_SYSTEM_TIME_NEW; cpuid.rst
 * for the signature leaf and KVM_FEATURE_CLOCKSOURCE2).  KVM fills
 * pvclock_vcpu_time_info with the TSC-to-nanoseconds scale:
 * ns = ((tsc << shift, or >> -shift) * mul) >> 32, so
 * Hz = 10^9 * 2^(32 - shift) / mul.  The area is registered only while
 * read, then disabled again.  pmuvm's guests have no CPUID 15H/16H on
 * hosts whose leaf maximum is below them, so this is what ntpmu's tsc_hz op
 * reports (platform_rt.c).
 */
#include <rt.h>
#include <rt/x86.h>

#include "ntpmu_rt.h"

#define KVM_CPUID_SIGNATURE		0x40000000u
#define KVM_CPUID_FEATURES		0x40000001u
#define KVM_FEATURE_CLOCKSOURCE2	(1u << 3)
#define MSR_KVM_SYSTEM_TIME_NEW		0x4b564d01u

struct pvclock_vcpu_time_info {
	uint32_t version;
	uint32_t pad0;
	uint64_t tsc_timestamp;
	uint64_t system_time;
	uint32_t tsc_to_system_mul;
	int8_t tsc_shift;
	uint8_t flags;
	uint8_t pad[2];
} __attribute__((aligned(32)));

_Static_assert(sizeof(struct pvclock_vcpu_time_info) == 32, "pvclock size");

/* Read once, by ntpmu_rt_init() before other CPUs use ntpmu (rt is identity-mapped). */
static struct pvclock_vcpu_time_info pv;

static bool kvm_clocksource2(void)
{
	struct cpuid_regs r = cpuid(KVM_CPUID_SIGNATURE);

	/* "KVMKVMKVM\0\0\0" */
	if (r.ebx != 0x4b4d564b || r.ecx != 0x564b4d56 || r.edx != 0x4d)
		return false;
	if (r.eax < KVM_CPUID_FEATURES)
		return false;
	return cpuid(KVM_CPUID_FEATURES).eax & KVM_FEATURE_CLOCKSOURCE2;
}

uint64_t ntpmu_rt_pvclock_hz(void)
{
	uint32_t ver, mul;
	int8_t shift;
	uint64_t n, q, r;

	if (!kvm_clocksource2())
		return 0;
	pv = (struct pvclock_vcpu_time_info){ 0 };
	if (wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, (uint64_t)(uintptr_t)&pv | 1))
		return 0;
	/* An odd version means KVM is updating the area. */
	do {
		ver = __atomic_load_n(&pv.version, __ATOMIC_ACQUIRE);
		mul = pv.tsc_to_system_mul;
		shift = pv.tsc_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((ver & 1) || ver != __atomic_load_n(&pv.version, __ATOMIC_ACQUIRE));
	wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, 0);
	if (!ver || !mul || shift <= -32 || shift >= 32)
		return 0;
	/* 10^9 * n / mul without overflow: r < mul < 2^32. */
	n = 1ull << (32 - shift);
	q = n / mul;
	r = n % mul;
	if (q > UINT64_MAX / 1000000000u - 1)
		return 0;
	return q * 1000000000u + r * 1000000000u / mul;
}
