/* SPDX-License-Identifier: MIT */
/*
 * ntpmu_counters: the Windows kernel's counter configuration calls on the
 * virtual PMU (ntpmu; Windows Driver Kit, KeSetHardwareCounterConfiguration
 * and KeQueryHardwareCounterConfiguration): the query returns what the set
 * installed, and STATUS_BUFFER_TOO_SMALL with the count needed when the
 * array is too short.  General-purpose counters only, so it runs on an
 * Intel and an AMD PMU alike (AMD has no fixed counters).
 *
 *	pmuvm --pmu intel ntpmu_counters.elf    status 1
 *	pmuvm --pmu amd ntpmu_counters.elf      status 1
 */
#include <rt.h>
#include <ntpmu/ntpmu.h>
#include <nt/ntddk.h>

int main(void)
{
	HARDWARE_COUNTER set[2] = {
		{ .Type = PMCCounter, .Index = 0 },
		{ .Type = PMCCounter, .Index = 1 },
	};
	HARDWARE_COUNTER got[4] = { 0 };
	struct ntpmu_pmu_info info;
	unsigned int nr_fixed = 0;
	ULONG n = 99;

	ntpmu_rt_init();
	ntpmu_pmu_info(&info);
	/* Version 5's fixed counters may have holes: count those there are. */
	for (uint32_t f = info.fixed_counters; f; f &= f - 1)
		nr_fixed++;
	printf("ntpmu_counters: pmu version %u, %u gp counters, %u fixed counters\n",
	       info.version, info.nr_gp, nr_fixed);
	GUEST_ASSERT(info.version >= 2 && info.nr_gp >= 2);

	GUEST_ASSERT_EQ(KeQueryHardwareCounterConfiguration(got, 4, &n), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(n, 0);
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(set, 2), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(KeQueryHardwareCounterConfiguration(got, 1, &n), STATUS_BUFFER_TOO_SMALL);
	GUEST_ASSERT_EQ(n, 2);
	GUEST_ASSERT_EQ(KeQueryHardwareCounterConfiguration(got, 4, &n), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(n, 2);
	for (ULONG i = 0; i < n; i++) {
		GUEST_ASSERT_EQ(got[i].Type, PMCCounter);
		GUEST_ASSERT_EQ(got[i].Index, set[i].Index);
	}
	printf("ntpmu_counters: KeQueryHardwareCounterConfiguration: %lu counters: %llu %llu\n",
	       (unsigned long)n, (unsigned long long)got[0].Index,
	       (unsigned long long)got[1].Index);
	GUEST_VALUE("ntpmu_counters.configured", n);
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(KeQueryHardwareCounterConfiguration(got, 4, &n), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(n, 0);
	test_ok("ntpmu_counters");
	return 0;
}
