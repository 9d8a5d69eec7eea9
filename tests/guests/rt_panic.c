/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rt_panic() (rt/panic.h): freeing a pointer twice stops the guest with the
 * runtime's PANIC line and RT_EXIT_PANIC (pmuvm status 7), not a test
 * failure (3) and not a pass.
 */
#include <rt.h>

int main(void)
{
	void *p = rt_alloc(64, 0);

	GUEST_ASSERT(p);
	rt_free(p);
	printf("rt_panic: freeing %p twice\n", p);
	rt_free(p);
	GUEST_FAIL("rt_free() of a freed pointer returned");
}
