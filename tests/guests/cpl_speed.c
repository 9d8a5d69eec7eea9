/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpl_speed: the same loop timed with the TSC in kernel mode (CPL0) and in
 * user mode (CPL3), the best of five runs of each, reported as the values
 * "cpl0_ticks" and "cpl3_ticks". The system test holds pmuvm's start-up
 * probe (the report's debug.host.kernel_mode_emulated) against what the
 * guest itself measured.
 */
#include <rt.h>
#include <rt/test.h>
#include <rt/usermode.h>

#define LOOP_N	50000
#define RUNS	5

uint64_t speed_loop(uint64_t n);

/*
 * The probe's loop (vmm/kvm/probe.c), ten times longer: the way into user
 * mode and back, which emulated kernel code costs too, stays small beside it.
 */
asm(".text\n"
    ".globl speed_loop\n"
    "speed_loop:\n"
    "	movq %rdi, %rcx\n"
    "1:	decq %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

static uint64_t timed(bool user)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < RUNS; i++) {
		uint64_t t0 = rdtsc(), t;

		if (user)
			rt_run_user(speed_loop, LOOP_N);
		else
			speed_loop(LOOP_N);
		t = rdtsc() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

int main(void)
{
	uint64_t user = timed(true), kernel = timed(false);

	printf("cpl_speed: cpl0 %llu ticks, cpl3 %llu ticks (with the way in and out)\n",
	       (unsigned long long)kernel, (unsigned long long)user);
	GUEST_VALUE("cpl0_ticks", kernel);
	GUEST_VALUE("cpl3_ticks", user);
	return 0;
}
