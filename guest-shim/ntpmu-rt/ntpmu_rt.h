/* ntpmu on the guest runtime (platform_rt.c). */
#ifndef NTPMU_RT_H
#define NTPMU_RT_H

#include "../ntpmu/ntpmu_platform.h"

/* Bind ntpmu to the runtime: PMI vector on every CPU, scheduler switch hook. */
void ntpmu_rt_init(void);
/* The TSC frequency from KVM's pvclock, 0 if unavailable (pvclock.c). */
uint64_t ntpmu_rt_pvclock_hz(void);

#endif
