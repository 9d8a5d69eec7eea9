/* SPDX-License-Identifier: MIT */
/*
 * printf() and friends on the serial console.  One lock around each call
 * keeps lines from different CPUs whole; formatting streams straight to
 * the UART, so there is no line-length limit.
 *
 * The lock is taken with interrupts off and is recursive per CPU, so an
 * interrupt or NMI handler (a PMI, say) that prints while its CPU is in the
 * middle of printf() nests instead of deadlocking.
 */
#include <stdarg.h>
#include <rt/printf.h>
#include <rt/serial.h>
#include <rt/spinlock.h>
#include <rt/x86.h>

static struct spinlock console_lock;
static int console_depth;

static uint64_t console_lock_acquire(void)
{
	uint64_t flags = read_rflags();

	cli();
	if (spin_is_mine(&console_lock))
		console_depth++;
	else
		spin_lock(&console_lock);
	return flags;
}

static void console_lock_release(uint64_t flags)
{
	if (console_depth)
		console_depth--;
	else
		spin_unlock(&console_lock);
	if (flags & RFLAGS_IF)
		sti();
}

static void console_out(char c, void *ctx)
{
	(void)ctx;
	serial_putc(c);
}

int vprintf(const char *fmt, va_list ap)
{
	uint64_t flags = console_lock_acquire();
	int n = vcbprintf(console_out, NULL, fmt, ap);

	console_lock_release(flags);
	return n;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int puts(const char *s)
{
	return printf("%s\n", s);
}

int putchar(int c)
{
	uint64_t flags = console_lock_acquire();

	serial_putc((char)c);
	console_lock_release(flags);
	return (unsigned char)c;
}

void console_break_lock(void)
{
	if (spin_is_mine(&console_lock)) {
		console_depth = 0;
		spin_unlock(&console_lock);
	}
}
