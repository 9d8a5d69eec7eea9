/* SPDX-License-Identifier: MIT */
/*
 * Runtime layout choices: GDT selectors, stacks, the AP trampoline page and
 * the vectors the runtime owns.  Shared with the assembly files.
 */
#ifndef RT_LAYOUT_H
#define RT_LAYOUT_H

/*
 * GDT selectors.  The user pair sits at KCODE32 + 8 / + 16 so that a later
 * SYSRET with STAR[63:48] = SEG_KCODE32 lands on UDATA/UCODE64 (SDM SYSRET).
 */
#define SEG_KCODE64	0x08
#define SEG_KDATA	0x10
#define SEG_KCODE32	0x18	/* used only by the AP trampoline */
#define SEG_UDATA	0x20
#define SEG_UCODE64	0x28

#define RT_MAX_CPUS	64
#define RT_STACK_SIZE	16384	/* per CPU, BSP included */

/*
 * APs start in real mode at CS:IP = (vector << 8):0 (SDM 10.4.4.1 / 8.4.4.1),
 * so the trampoline must live in the first MiB on a page boundary.  0x8000 is
 * below QEMU's multiboot structures (0x9000) and above the BIOS data area.
 */
#define RT_TRAMP_ADDR	0x8000
#define RT_TRAMP_VECTOR	(RT_TRAMP_ADDR >> 12)

#define RT_VEC_TIMER	0xd0	/* LAPIC timer: the scheduler tick (PMI tests use 0xe0) */
#define RT_VEC_WAKEUP	0xf0	/* IPI that wakes an idle AP to run work */
#define RT_VEC_SPURIOUS	0xff	/* APIC spurious-interrupt vector */

#endif
