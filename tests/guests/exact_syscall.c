/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_syscall: SYSCALL and SYSRET (SDM vol. 2B) counted exactly.
 * user_syscalls makes SYSCALL_N system calls into syscall_entry; IA32_FMASK
 * clears TF and IF on the way in, and SYSRETQ returns.  Fixed counter 0
 * counts USR, GP counter 0 OS, around a CPL3 call of user_syscalls and,
 * for the runtime's own way in and out, of user_nop: the user side retires
 * SYSCALL_USER_INSNS, the kernel side SYSCALL_N x 4 more than user_nop's
 * run.  Prints both; the system test wants them exact where the host steps
 * CPL3 and follows SYSCALL into the kernel (it is run only where CPL3 is
 * steppable: on kvm_pvm, PVM's own switcher takes a guest's SYSCALL).
 */
#include "pmu_common.h"

/* The CALL into it, MOV, 10 x (SYSCALL, DEC, JNZ), RET. */
#define SYSCALL_USER_INSNS	(1 + 1 + 3 * SYSCALL_N + 1)
#define SYSCALL_KERNEL_INSNS	4		/* syscall_entry: 3 NOPs, SYSRETQ */

void syscall_entry(void);

asm(".text\n"
    USER_SYSCALLS_ASM
    /* On the user's stack, IF and TF clear (FMASK); RCX and R11 say where to. */
    ".globl syscall_entry\n"
    "syscall_entry:\n"
    "	nop\n	nop\n	nop\n"
    "	sysretq\n");

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t usr, os, sc_usr, sc_os;

	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0));
	syscall_setup(syscall_entry);
	pmu_count_user_run(user_nop, &usr, &os);	/* the first run sets user mode up */
	pmu_count_user_run(user_nop, &usr, &os);
	pmu_count_user_run(user_syscalls, &sc_usr, &sc_os);
	printf("exact_syscall: usr=%llu os=%lld want %u %u\n", (unsigned long long)sc_usr,
	       (long long)(sc_os - os), SYSCALL_USER_INSNS, SYSCALL_N * SYSCALL_KERNEL_INSNS);
	return 0;
}
