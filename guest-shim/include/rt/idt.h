/* SPDX-License-Identifier: MIT */
/*
 * Interrupt descriptor table: 256 stubs (vectors.S) funnel into one C
 * dispatcher with the saved register frame below.
 *
 * Dispatch order for a vector:
 *   1. exceptions (0-31) whose RIP is in the exception table are fixed up;
 *   2. a handler installed for the vector runs;
 *   3. otherwise an exception is fatal: registers are dumped, rt_exit(1).
 * For vectors >= 32 other than the spurious vector the dispatcher sends the
 * LAPIC EOI after the handler, so handlers must not.
 */
#ifndef RT_IDT_H
#define RT_IDT_H

#include <stdint.h>

/* Layout fixed by vectors.S: GPRs pushed last come first. */
struct rt_frame {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t vector, error_code;
	/* pushed by the CPU (SDM 6.14.2, 64-bit mode always pushes SS:RSP) */
	uint64_t rip, cs, rflags, rsp, ss;
};

typedef void (*rt_handler_t)(struct rt_frame *f);

enum {
	VEC_DE = 0, VEC_DB = 1, VEC_NMI = 2, VEC_BP = 3, VEC_OF = 4,
	VEC_BR = 5, VEC_UD = 6, VEC_NM = 7, VEC_DF = 8, VEC_TS = 10,
	VEC_NP = 11, VEC_SS = 12, VEC_GP = 13, VEC_PF = 14, VEC_MF = 16,
	VEC_AC = 17, VEC_MC = 18, VEC_XM = 19, VEC_VE = 20, VEC_CP = 21,
};

void idt_init(void);		/* fill the IDT once (BSP) */
void idt_load(void);		/* lidt on this CPU */

/* Install @fn for an exception vector 0-31 (NULL restores the default). */
void rt_set_exception_hook(int vector, rt_handler_t fn);
/* Install @fn for an interrupt vector 32-255 (NULL: ignore, still EOI). */
void rt_set_irq_handler(int vector, rt_handler_t fn);

const char *exception_name(int vector);
void rt_dump_frame(const struct rt_frame *f);

/*
 * Send the EOI now instead of after the handler, for a handler that may
 * switch threads (the tick) or run long (cross-CPU work): the thread
 * switched to must not run with the vector still in service.  Marks the
 * frame so the dispatcher does not send a second EOI.
 */
#define RT_FRAME_EOI_SENT	(1ull << 32)	/* in rt_frame.vector */
void rt_irq_eoi(struct rt_frame *f);

/* Address of a vector's entry stub, e.g. for a hardware breakpoint. */
uint64_t idt_stub_addr(int vector);

#endif
