/* SPDX-License-Identifier: MIT */
/*
 * rt_exit(): QEMU's isa-debug-exit (and pmuvm's copy of it) terminates the
 * VM when a value is written to its port; a 32-bit OUT matches iosize=4.
 */
#include <stdint.h>
#include <rt/exit.h>
#include <rt/printf.h>
#include <rt/x86.h>

void rt_exit(uint32_t code)
{
	outl(RT_EXIT_PORT, code);
	/* Still here: no exit device.  Say so and stop this CPU for good. */
	printf("rt_exit(%u): no isa-debug-exit device at 0x%x, halting\n",
	       code, RT_EXIT_PORT);
	for (;;)
		asm volatile("cli; hlt");
}
