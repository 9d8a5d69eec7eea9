/* SPDX-License-Identifier: MIT */
/* ntpmu on the guest runtime: what platform_rt.c and pvclock.c share. */
#ifndef NTPMU_RT_H
#define NTPMU_RT_H

#include <stdint.h>
#include <ntpmu/ntpmu.h>

#include "ntpmu_platform.h"

/* The TSC frequency from KVM's pvclock, 0 if unavailable (pvclock.c). */
uint64_t ntpmu_rt_pvclock_hz(void);

#endif
