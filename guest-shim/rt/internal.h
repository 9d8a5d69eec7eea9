/* SPDX-License-Identifier: MIT */
/* Runtime-private entry points shared between rt/ files. */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include <stdint.h>

struct rt_frame;

void rt_start(uint32_t magic, uint32_t mbi_addr);	/* boot.S, BSP */
void rt_ap_start(int cpu);				/* boot.S, APs */
void idt_dispatch(struct rt_frame *f);			/* vectors.S */
void smp_init_bsp(void);	/* per-CPU data of CPU 0, before anything */
void smp_probe(void);		/* CPU count from fw_cfg */
void pic_disable(void);		/* remap and mask the 8259s */
/*
 * The stack tops each AP starts on (boot.S) and, for rt_run_user() outside
 * a thread, its user stack's (usermode.c): both from the heap, set by
 * rt_smp_start() before it starts the AP.
 */
extern uint64_t rt_ap_stack_top[];
void usermode_set_cpu_stack(int cpu, void *top);
/* A fatal exception as a failed ucall (idt.c), after its FAIL line is printed. */
void rt_report_fatal(const struct rt_frame *f, int vector, const char *name);

#endif
