/* SPDX-License-Identifier: MIT */
/*
 * Formatted output.  vsnprintf() is the freestanding engine (lib/printf.c):
 * %d %i %u %x %X %o %p %s %c %%, flags '-' '0', width and precision (or '*'),
 * length modifiers hh h l ll z t j.  printf()/puts() write to the serial
 * console under a lock, so lines from different CPUs never interleave.
 */
#ifndef RT_PRINTF_H
#define RT_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

#define __printf(a, b)	__attribute__((format(printf, a, b)))

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* Call @out for every character produced; returns the count. */
int vcbprintf(void (*out)(char c, void *ctx), void *ctx,
	      const char *fmt, va_list ap) __printf(3, 0);

int printf(const char *fmt, ...) __printf(1, 2);
int vprintf(const char *fmt, va_list ap) __printf(1, 0);
int puts(const char *s);	/* appends '\n' */
int putchar(int c);

/* Panic path: drop the console lock if this CPU holds it. */
void console_break_lock(void);

#endif
