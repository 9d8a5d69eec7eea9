/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exitcode: exit with the code given as "code=N" on the command line
 * (default 42), so the VMM's status should be (N << 1) | 1.
 */
#include <rt.h>

int main(void)
{
	uint64_t code = 42;

	mbi_arg_u64("code", &code);
	printf("exitcode: exiting with %llu\n", (unsigned long long)code);
	rt_exit((uint32_t)code);
}
