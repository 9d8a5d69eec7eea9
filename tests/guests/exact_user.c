/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_user: instructions retired at CPL3.  Fixed
 * counter 0 counts USR only, GP counter 0 OS only, around a CPL3 call of
 * user_loop; the user side retires exactly USER_INSNS instructions (the
 * runtime's CALL into it, 1 + 2 x 100 in the loop, RET; the UD2 that
 * returns to CPL0 faults and does not retire).  Prints the USR count: the
 * system test wants USER_INSNS where the host can step CPL3 and 0 where it
 * cannot (pmuvm says so; it never estimates).
 */
#include "pmu_common.h"

#define USER_INSNS	(1 + 1 + 2 * 100 + 1)

uint64_t user_loop(uint64_t arg);

asm(".text\n"
    ".globl user_loop\n"
    "user_loop:\n"
    "	movl $100, %ecx\n"
    "1:	decl %ecx\n"
    "	jnz 1b\n"
    "	ret\n");

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t usr, os;

	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0));
	pmu_count_user_run(user_loop, &usr, &os);
	printf("exact_user: usr=%llu os=%llu user_insns=%u\n", (unsigned long long)usr,
	       (unsigned long long)os, USER_INSNS);
	GUEST_ASSERT(os > 0);
	GUEST_ASSERT(usr == USER_INSNS || usr == 0);
	return 0;
}
