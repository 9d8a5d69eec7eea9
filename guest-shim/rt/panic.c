/* SPDX-License-Identifier: MIT */
/* rt_panic() (rt/panic.h). */
#include <stdarg.h>
#include <rt/exit.h>
#include <rt/panic.h>
#include <rt/printf.h>

void rt_panic_at(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	/* One printf, so the line cannot interleave with another CPU's. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("PANIC %s:%d: %s\n", file, line, msg);
	rt_exit(RT_EXIT_PANIC);
}
