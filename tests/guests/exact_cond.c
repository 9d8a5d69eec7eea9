/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_cond: BR_INST_RETIRED (0xC4) by raw umask, counted exactly at CPL0,
 * for the encodings that differ between cores (docs/counting.md, "CPU
 * models"): GP counters 0-4 count umasks 0x00, 0x01, 0x10, 0x11 and 0x20
 * around one stretch that retires 4 taken and 3 not-taken conditional
 * branches and a taken JMP.  The guest reports each count and the CPUID.1
 * model it ran on; what each umask means on that model is the system
 * test's (tests/system/test_exact.c): Skylake's 0x01 is every conditional
 * branch, Ice Lake's only the taken ones.
 */
#include "pmu_common.h"

static const uint8_t umasks[] = { 0x00, 0x01, 0x10, 0x11, 0x20 };
#define NR_UMASKS	(sizeof(umasks) / sizeof(umasks[0]))

void cond_seq(void);

/* GP0-4 count it (pmu_common.h). */
asm(".text\n"
    PMU_SEQ_BEGIN(cond_seq, 0x1f, 0)
    "	movl $5, %ebx\n"
    "1:	decl %ebx\n"
    "	jnz 1b\n"			/* 4 taken, the fifth not */
    "	testl %ebx, %ebx\n"
    "	jnz 2f\n"			/* not taken */
    "	jc 2f\n"			/* not taken (TEST clears CF) */
    "	jmp 2f\n"			/* taken, not conditional */
    "	nop\n"
    "2:\n"
    PMU_SEQ_END);

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	static const char *const names[NR_UMASKS] = {
		"c4_00", "c4_01", "c4_10", "c4_11", "c4_20",
	};
	uint32_t eax = cpuid(1).eax;

	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= NR_UMASKS);
	GUEST_VALUE("model", (eax >> 4 & 0xf) | (eax >> 12 & 0xf0));
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	for (unsigned int i = 0; i < NR_UMASKS; i++) {
		wrmsr(MSR_IA32_PMC0 + i, 0);
		wrmsr(MSR_IA32_PERFEVTSEL0 + i,
		      EVTSEL_EN | EVTSEL_OS | PMU_RAW_EVENT(0xc4, umasks[i]));
	}
	asm volatile("cli");	/* no interrupt handler in the counts */
	cond_seq();
	for (unsigned int i = 0; i < NR_UMASKS; i++)
		GUEST_VALUE(names[i], rdmsr(MSR_IA32_PMC0 + i));
	return 0;
}
