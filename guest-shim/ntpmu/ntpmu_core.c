/* SPDX-License-Identifier: MIT */
/*
 * ntpmu state, platform binding and PMU discovery.
 *
 * "No architectural PMU" is CPUID.0AH:EAX version 0 (or no leaf 0xA, or no
 * GP counter): what plain QEMU/KVM shows on the kvm_pvm hosts.  The kernel
 * configuration calls then answer STATUS_NOT_IMPLEMENTED (docs/windows-api.md 1.2) and the
 * HAL has no profile interface to allocate from (docs/windows-api.md 2.4).
 */
#include "ntpmu_internal.h"
#include "x86-pmu/cpuid.h"

struct ntpmu_state ntpmu;

/* The fixed counters ntpmu serves: 0-15. */
#define NTPMU_FIXED_SERVED	0xffffu

static uint64_t width_mask(unsigned int bits)
{
	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/*
 * AMD: ntpmu drives the core counters through PerfMonV2's global control
 * and status (CPUID 0x80000022; AMD64 APM vol. 2 13.2.3), as overflow
 * handling needs the status register; an AMD PMU without it is treated as
 * no PMU (STATUS_NOT_IMPLEMENTED, as on Intel version 0).
 */
static void ntpmu_init_amd(void)
{
	uint32_t r[4];

	ntpmu.ops->cpuid(ntpmu.ctx, 0x80000000, 0, r);
	if (r[0] < CPUID_LEAF_AMD_PMU)
		return;
	ntpmu.ops->cpuid(ntpmu.ctx, CPUID_LEAF_AMD_PMU, 0, r);
	if (!(r[0] & CPUID_8000_0022_EAX_PERFMON_V2) || !CPUID_8000_0022_EBX_NR_CORE(r[1]))
		return;
	ntpmu.amd = true;
	ntpmu.version = 2;
	ntpmu.nr_gp = CPUID_8000_0022_EBX_NR_CORE(r[1]);
	ntpmu.gp_width = 48;
	ntpmu.gp_mask = width_mask(ntpmu.gp_width);
}

void ntpmu_init(const struct ntpmu_platform_ops *ops, void *ctx)
{
	uint32_t r[4];
	unsigned int i;

	__builtin_memset(&ntpmu, 0, sizeof(ntpmu));
	ntpmu.ops = ops;
	ntpmu.ctx = ctx;
	ntpmu.full_handle = NTPMU_FULL_HANDLE_FIRST - 1;

	ntpmu.nr_cpus = ops->nr_cpus(ctx);
	if (ntpmu.nr_cpus > NTPMU_MAX_CPUS)
		ntpmu.nr_cpus = NTPMU_MAX_CPUS;
	ntpmu.all_cpus = width_mask(ntpmu.nr_cpus);

	ops->cpuid(ctx, 0, 0, r);
	if (r[1] == 0x68747541 && r[3] == 0x69746e65 && r[2] == 0x444d4163) {	/* AuthenticAMD */
		ntpmu_init_amd();
		goto present;
	}
	if (r[0] < CPUID_LEAF_PMU)
		return;
	ops->cpuid(ctx, CPUID_LEAF_PMU, 0, r);
	if (CPUID_0A_EAX_VERSION(r[0]) == 0 || CPUID_0A_EAX_NR_GP(r[0]) == 0)
		return;
	ntpmu.version = CPUID_0A_EAX_VERSION(r[0]);
	ntpmu.nr_gp = CPUID_0A_EAX_NR_GP(r[0]);
	if (ntpmu.nr_gp > 32)
		ntpmu.nr_gp = 32;
	ntpmu.gp_width = CPUID_0A_EAX_GP_WIDTH(r[0]);
	ntpmu.gp_mask = width_mask(ntpmu.gp_width);
	/*
	 * Fixed counters are enumerated from version 2 (SDM 18.2.2), from
	 * version 5 with holes: only those in fixed_counters are in
	 * `present`, which every use of a counter index checks
	 * (ntpmu_counter_bit()).  Counters 16 and up are not served.
	 */
	ntpmu.fixed_counters = cpuid_0a_fixed_counters(r[0], r[2], r[3]) & NTPMU_FIXED_SERVED;
	ntpmu.nr_fixed = cpuid_0a_fixed_span(ntpmu.fixed_counters);
	if (ntpmu.version >= 2) {
		ntpmu.fixed_width = CPUID_0A_EDX_FIXED_WIDTH(r[3]);
		ntpmu.fixed_mask = width_mask(ntpmu.fixed_width);
	}
present:
	for (i = 0; i < ntpmu.nr_gp; i++)
		ntpmu.present |= 1ULL << i;
	ntpmu.present |= (uint64_t)ntpmu.fixed_counters << NTPMU_FIXED_BIT;
}

void ntpmu_exit(void)
{
	if (!ntpmu.ops)
		return;
	ntpmu_perflib_reset();
	ntpmu_etw_reset();
	ntpmu_thread_reset();
	ntpmu_hal_reset();
	ntpmu_pebs_reset();
	__builtin_memset(&ntpmu, 0, sizeof(ntpmu));
}

void ntpmu_pmu_info(struct ntpmu_pmu_info *info)
{
	info->version = ntpmu.version;
	info->nr_gp = ntpmu.nr_gp;
	info->nr_fixed = ntpmu.nr_fixed;
	info->fixed_counters = ntpmu.fixed_counters;
	info->gp_width = ntpmu.gp_width;
	info->fixed_width = ntpmu.fixed_width;
}

int ntpmu_counter_bit(ULONG index)
{
	int bit;

	if (index & NTPMU_RDPMC_FIXED)
		bit = NTPMU_FIXED_BIT + (int)(index & ~NTPMU_RDPMC_FIXED);
	else
		bit = (int)index;
	if (index & ~(NTPMU_RDPMC_FIXED | 0x1f))
		return -1;
	return (ntpmu.present >> bit) & 1 ? bit : -1;
}
