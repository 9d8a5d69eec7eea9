/* SPDX-License-Identifier: MIT */
/*
 * The legacy 8259A PIC pair.  The BIOS leaves the master at vector base
 * 0x08, so the first timer tick after STI would arrive as "vector 8" and
 * look like a double fault.  We use only the local APIC, so move both PICs
 * out of the exception range (ICW1-ICW4, 8259A datasheet) and mask every
 * line.  10 port writes: cheap even though each one is a VM exit.
 */
#include <rt/x86.h>
#include "internal.h"

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1
#define ICW1_INIT_ICW4	0x11	/* edge, cascade, ICW4 follows */
#define ICW4_8086	0x01
#define PIC_VECTOR_BASE	0x20	/* 0x20-0x2f: never raised while masked */

void pic_disable(void)
{
	outb(PIC1_CMD, ICW1_INIT_ICW4);
	outb(PIC2_CMD, ICW1_INIT_ICW4);
	outb(PIC1_DATA, PIC_VECTOR_BASE);	/* ICW2: vector base */
	outb(PIC2_DATA, PIC_VECTOR_BASE + 8);
	outb(PIC1_DATA, 1 << 2);		/* ICW3: slave on IRQ2 */
	outb(PIC2_DATA, 2);			/* ICW3: slave identity */
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	outb(PIC1_DATA, 0xff);			/* OCW1: mask all */
	outb(PIC2_DATA, 0xff);
}
