/*
 * An out-of-tree guest: scripts/check-sdk.sh builds it from the installed
 * SDK alone (pkg-config pmuvm-guest and gcc) and boots it under pmuvm.  It
 * uses the runtime (rt.h) and ntpmu's KeSet/KeQueryHardwareCounterConfiguration
 * (ntddk.h; Windows Driver Kit docs: the query returns the configuration
 * the set installed, and STATUS_BUFFER_TOO_SMALL with the count needed when
 * the array is too short).
 */
#include <rt.h>
#include <ntpmu/ntpmu.h>
#include <nt/ntddk.h>

#define FIXED(n)	(0x40000000u | (n))	/* RDPMC index of fixed counter n */

int main(void)
{
	HARDWARE_COUNTER set[2] = {
		{ .Type = PMCCounter, .Index = 1 },
		{ .Type = PMCCounter, .Index = FIXED(1) },
	};
	HARDWARE_COUNTER got[4] = { 0 };
	struct ntpmu_pmu_info info;
	ULONG n = 99;

	ntpmu_rt_init();
	ntpmu_pmu_info(&info);
	printf("sdk_guest: pmu version %u, %u gp counters, %u fixed counters\n", info.version,
	       info.nr_gp, info.nr_fixed);
	GUEST_ASSERT(info.version >= 2 && info.nr_gp >= 2 && info.nr_fixed >= 2);

	GUEST_ASSERT_EQ(KeQueryHardwareCounterConfiguration(got, 4, &n), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(n, 0);
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(set, 2), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(KeQueryHardwareCounterConfiguration(got, 1, &n), STATUS_BUFFER_TOO_SMALL);
	GUEST_ASSERT_EQ(n, 2);
	GUEST_ASSERT_EQ(KeQueryHardwareCounterConfiguration(got, 4, &n), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(n, 2);
	GUEST_ASSERT_EQ(got[0].Type, PMCCounter);
	GUEST_ASSERT_EQ(got[0].Index, 1);
	GUEST_ASSERT_EQ(got[1].Type, PMCCounter);
	GUEST_ASSERT_EQ(got[1].Index, FIXED(1));
	printf("sdk_guest: KeQueryHardwareCounterConfiguration: %lu counters: 0x%llx 0x%llx\n",
	       (unsigned long)n, (unsigned long long)got[0].Index,
	       (unsigned long long)got[1].Index);
	GUEST_ASSERT_EQ(KeSetHardwareCounterConfiguration(NULL, 0), STATUS_SUCCESS);
	test_ok("sdk guest");
	return 0;
}
