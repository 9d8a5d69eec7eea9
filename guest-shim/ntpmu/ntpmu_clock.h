/* SPDX-License-Identifier: MIT */
/* TSC frequency and 100-ns time for Perflib (ntpmu_clock.c). */
#ifndef NTPMU_CLOCK_H
#define NTPMU_CLOCK_H

#include <stdint.h>

/* TSC ticks per second from CPUID 15H, else 16H; 0 if unknown. */
uint64_t ntpmu_tsc_hz(void);
/* `tsc` ticks at `hz` in 100-ns units; 0 if hz is 0. */
uint64_t ntpmu_tsc_to_100ns(uint64_t tsc, uint64_t hz);
/*
 * A FILETIME (100 ns since 1601-01-01 UTC) as SYSTEMTIME's eight WORDs:
 * year, month, day of week (0 = Sunday), day, hour, minute, second, ms.
 */
void ntpmu_filetime_to_systemtime(uint64_t ft, uint16_t st[8]);

#endif
