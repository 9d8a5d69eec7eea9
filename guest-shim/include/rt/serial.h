/* SPDX-License-Identifier: MIT */
/* 16550 UART at COM1 (0x3f8), polled output only. */
#ifndef RT_SERIAL_H
#define RT_SERIAL_H

#include <stddef.h>

#define SERIAL_COM1	0x3f8

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, size_t n);

#endif
