/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the rdpmc_* guests: an RDPMC while counted, and one at CPL3. */
#ifndef RDPMC_COMMON_H
#define RDPMC_COMMON_H

#include "pmu_common.h"

/*
 * The body of seq_rdpmc(): wrmsr(GLOBAL_CTRL, FIXED0); rdpmc(GP0);
 * wrmsr(GLOBAL_CTRL, 0): 7 counted after the enable; returns GP 0.
 */
#define SEQ_RDPMC_BODY					\
	"	movl $0x38f, %ecx\n"			\
	"	xorl %eax, %eax\n"			\
	"	movl $1, %edx\n"			\
	"	wrmsr\n"				\
	"	xorl %ecx, %ecx\n"	/* 1 */		\
	"	rdpmc\n"		/* 2 */		\
	"	movq %rax, %r8\n"	/* 3 */		\
	"	movl $0x38f, %ecx\n"	/* 4 */		\
	"	xorl %eax, %eax\n"	/* 5 */		\
	"	xorl %edx, %edx\n"	/* 6 */		\
	"	wrmsr\n"		/* 7 */		\
	"	movq %r8, %rax\n"			\
	"	ret\n"

uint64_t seq_rdpmc(void);

struct user_read {
	uint32_t ecx;
	int vector;
	uint64_t val;
};

/* rt_run_user() target: RDPMC of u->ecx at CPL3, the vector it raised. */
static inline uint64_t user_rdpmc(uint64_t arg)
{
	struct user_read *u = (struct user_read *)arg;

	u->vector = rdpmc_safe(u->ecx, &u->val);
	return 0;
}

#endif
