/* SPDX-License-Identifier: MIT */
/*
 * 16550 UART on COM1, output only, polled.  Each port access is a VM exit,
 * so initialization is the minimum a real 16550 needs and every byte costs
 * one LSR read plus one THR write.
 */
#include <stddef.h>
#include <rt/serial.h>
#include <rt/x86.h>

#define THR	0	/* transmit holding (DLAB=0) */
#define DLL	0	/* divisor latch low (DLAB=1) */
#define IER	1
#define DLM	1
#define FCR	2
#define LCR	3
#define  LCR_8N1	0x03
#define  LCR_DLAB	0x80
#define MCR	4
#define  MCR_DTR_RTS	0x03
#define LSR	5
#define  LSR_THRE	0x20	/* THR empty: may write the next byte */

void serial_init(void)
{
	outb(SERIAL_COM1 + IER, 0);		/* no interrupts */
	outb(SERIAL_COM1 + LCR, LCR_DLAB);
	outb(SERIAL_COM1 + DLL, 1);		/* 115200 baud */
	outb(SERIAL_COM1 + DLM, 0);
	outb(SERIAL_COM1 + LCR, LCR_8N1);
	outb(SERIAL_COM1 + FCR, 0x07);		/* enable + clear FIFOs */
	outb(SERIAL_COM1 + MCR, MCR_DTR_RTS);
}

void serial_putc(char c)
{
	/* Bounded: a missing UART reads 0xff, a stuck one must not hang us. */
	for (int i = 0; i < 100000 && !(inb(SERIAL_COM1 + LSR) & LSR_THRE); i++)
		cpu_relax();
	outb(SERIAL_COM1 + THR, (uint8_t)c);
}

void serial_write(const char *s, size_t n)
{
	while (n--)
		serial_putc(*s++);
}
