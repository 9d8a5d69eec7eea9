/* SPDX-License-Identifier: MIT */
/*
 * The guest runtime in one include.  A guest provides
 *
 *	int main(void);
 *
 * which the runtime calls on the BSP once the console, IDT, exception table,
 * multiboot info, fw_cfg CPU count and local APIC are set up, with interrupts
 * disabled and the APs not started (rt_smp_start()).  The local APIC is in
 * x2APIC mode when the CPU has it, unless the command line says apic=xapic.
 * Returning 0 prints "PASS" and exits with code 0; anything else prints
 * "FAIL: main returned N" and exits 1.
 */
#ifndef RT_H
#define RT_H

#include <rt/x86.h>
#include <rt/layout.h>
#include <rt/serial.h>
#include <rt/printf.h>
#include <rt/string.h>
#include <rt/idt.h>
#include <rt/extable.h>
#include <rt/apic.h>
#include <rt/smp.h>
#include <rt/fwcfg.h>
#include <rt/multiboot.h>
#include <rt/exit.h>
#include <rt/panic.h>
#include <rt/test.h>
#include <rt/usermode.h>
#include <rt/spinlock.h>
#include <rt/alloc.h>
#include <rt/thread.h>
#include <rt/syscall.h>
#include <rt/pmc.h>

int main(void);

#endif
