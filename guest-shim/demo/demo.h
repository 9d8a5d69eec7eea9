/* SPDX-License-Identifier: MIT */
#ifndef DEMO_H
#define DEMO_H

/* pebs_profile.c: a PEBS profile of a small CPL0 workload, or why not. */
void demo_pebs_profile(void);

#endif
