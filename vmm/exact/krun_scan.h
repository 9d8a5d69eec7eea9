/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's return sites found by decoding its SYSCALL entry (krun_scan.c):
 * pure, the code read through a callback.
 */
#ifndef PMUVM_EXACT_KRUN_SCAN_H
#define PMUVM_EXACT_KRUN_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* Fills `buf` with up to `len` bytes of code at `addr`: how many it could read. */
typedef size_t (*krun_scan_read_fn)(void *ctx, uint64_t addr, uint8_t *buf, size_t len);

/* Instructions decoded at most, and how far from the entry a jump is followed. */
#define KRUN_SCAN_INSNS		4096
#define KRUN_SCAN_RANGE		0x10000

struct krun_scan {
	uint64_t sysret;	/* the first SYSRET reached, or 0 */
	uint64_t iret;		/* the first IRET reached, or 0 */
	unsigned int insns;	/* instructions decoded */
};

/*
 * Follows the 64-bit code at `entry` (IA32_LSTAR) through its direct jumps
 * and both ways of its conditional branches, stepping over calls, until
 * each path ends (RET, an indirect jump, a far branch, UD2, INT3, code out
 * of range or unreadable), and notes the SYSRET and the IRET reached.
 */
void krun_scan_returns(krun_scan_read_fn read, void *ctx, uint64_t entry, struct krun_scan *out);

#endif
