/* ntpmu on the guest runtime (platform_rt.c). */
#ifndef NTPMU_RT_H
#define NTPMU_RT_H

#include "../ntpmu/ntpmu_platform.h"

/* Bind ntpmu to the runtime: PMI vector on every CPU, scheduler switch hook. */
void ntpmu_rt_init(void);

#endif
