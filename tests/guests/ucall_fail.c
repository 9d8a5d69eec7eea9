/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ucall_fail: fails on purpose, in the way `mode=N` on the command line
 * picks, so that tests/system/test_ucall.c can check what pmuvm decodes,
 * prints and reports for each kind of failure (docs/guest-sdk.md, "Guest
 * results (ucall)"). Before failing it reports the line it fails on as the value
 * "fail line".
 *
 *   mode=0  GUEST_ASSERT_EQ with two operands
 *   mode=1  GUEST_FAIL with a formatted message
 *   mode=2  an unexpected exception (#UD)
 *   mode=3  GUEST_ASSERT on CPU 1 (--cpus 2)
 *   mode=4  main() returns 5
 */
#include <rt.h>

static volatile uint64_t seen = 0x2a;

static void fail_on_cpu1(void *arg)
{
	(void)arg;
	GUEST_VALUE("fail line", __LINE__ + 1);
	GUEST_ASSERT(rt_cpu_id() == 0);
}

int main(void)
{
	uint64_t mode = 0;

	mbi_arg_u64("mode", &mode);
	test_ok("ucall_fail started");
	switch (mode) {
	case 0:
		GUEST_VALUE("fail line", __LINE__ + 1);
		GUEST_ASSERT_EQ(seen, 0x2a + 1);
		break;
	case 1:
		GUEST_VALUE("fail line", __LINE__ + 1);
		GUEST_FAIL("formatted %d", 7);
	case 2:
		asm volatile("ud2");
		break;
	case 3:
		GUEST_ASSERT_EQ(rt_smp_start(), 2);
		rt_run_on_cpu(1, fail_on_cpu1, NULL);
		break;
	case 4:
		return 5;
	}
	GUEST_FAIL("mode %llu did not fail", (unsigned long long)mode);
}
