/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smp: every CPU fw_cfg announces comes online (each prints
 * "cpu N online apic_id=M"), and each can run work handed to it.
 */
#include <rt.h>

static void whoami(void *arg)
{
	int *out = arg;

	out[rt_cpu_id()] = (int)apic_id();
}

int main(void)
{
	static int ids[RT_MAX_CPUS];
	int n = rt_nr_cpus(), online;

	online = rt_smp_start();
	if (online != n) {
		printf("smp: only %d of %d cpus came online\n", online, n);
		return 1;
	}
	printf("smp: %d cpus online\n", online);

	for (int i = 0; i < n; i++) {
		ids[i] = -1;
		rt_run_on_cpu(i, whoami, ids);
		GUEST_ASSERT_EQ(ids[i], i);
	}
	test_ok("smp run_on_cpu");
	return 0;
}
