/* SPDX-License-Identifier: MIT */
/*
 * Counting with the PMU whatever its vendor: the general-purpose counters
 * of Intel's architectural PMU (CPUID 0AH; SDM vol. 3B 18.2) and of AMD's
 * (legacy, core extension, PerfMonV2: CPUID 0x80000001 ECX[23],
 * 0x80000022; AMD64 APM vol. 2 13.2), with the events both define in each
 * vendor's encoding.  For guests that want a count, not a PMU driver: MSRs
 * by hand (pmu/msr.h) or ntpmu (ntpmu/ntpmu.h) do the rest.
 *
 *	struct rt_pmc_info pmu;
 *
 *	if (rt_pmc_probe(&pmu))
 *		... no PMU
 *	rt_pmc_start(0, RT_PMC_INSTRUCTIONS, RT_PMC_OS);
 *	work();
 *	n = rt_pmc_stop(0);
 *
 * The counters are the calling CPU's; nothing here takes a lock or an
 * interrupt, and the counters run without a PMI.
 */
#ifndef RT_PMC_H
#define RT_PMC_H

#include <stdbool.h>
#include <stdint.h>

/* What the calls return, negated (Linux's errno numbers). */
#define RT_ENODEV	19	/* no PMU, or rt_pmc_probe() not called */
#define RT_EINVAL	22	/* no such counter, event or mode */
#define RT_EOPNOTSUPP	95	/* the PMU says it does not count that event */

enum rt_pmc_vendor {
	RT_PMC_NONE,
	RT_PMC_INTEL,
	RT_PMC_AMD,
};

struct rt_pmc_info {
	enum rt_pmc_vendor vendor;
	/*
	 * Intel: CPUID.0AH:EAX[7:0].  AMD: 2 with PerfMonV2 (a global
	 * control and status), 1 without.
	 */
	unsigned int version;
	unsigned int nr_gp, gp_width;		/* the counters rt_pmc_start() takes */
	/*
	 * Intel's fixed counters (not used here): fixed_counters has bit i
	 * for each fixed counter i that exists, from CPUID.0AH:EDX[4:0] and,
	 * from version 5, ECX (which may leave holes); nr_fixed is one past
	 * the highest, so a loop to it must test the bit first.
	 */
	uint32_t fixed_counters;
	unsigned int nr_fixed, fixed_width;
	bool amd_core_ext;			/* AMD: the six core counters (PerfCtrExtCore) */
	bool global_ctrl;			/* counters are also enabled globally */
	char cpu_vendor[13];			/* CPUID 0's string */
};

enum rt_pmc_event {
	RT_PMC_CYCLES,		/* Intel 0x3C UnHalted Core Cycles; AMD 0x76 */
	RT_PMC_INSTRUCTIONS,	/* Intel 0xC0 Instructions Retired; AMD 0xC0 */
	RT_PMC_BRANCHES,	/* Intel 0xC4 Branch Instructions Retired; AMD 0xC2 */
	RT_PMC_NR_EVENTS,
};

/* The privilege levels a counter counts at (PERFEVTSEL / PERF_CTL OS, USR). */
#define RT_PMC_OS	(1u << 0)
#define RT_PMC_USR	(1u << 1)

/*
 * Find the PMU from CPUID (and on an AMD CPU without the core extension,
 * by writing and reading back a legacy counter, which has no CPUID bit)
 * and remember it for the calls below.  0, or -RT_ENODEV with info->vendor
 * RT_PMC_NONE when there is no PMU; info may be NULL.
 */
int rt_pmc_probe(struct rt_pmc_info *info);

/*
 * Zero general-purpose counter @ctr (0 to nr_gp - 1) and start it counting
 * @event at @modes.  0, -RT_ENODEV, -RT_EINVAL, or -RT_EOPNOTSUPP (Intel:
 * CPUID.0AH:EBX marks the event unavailable).
 */
int rt_pmc_start(unsigned int ctr, enum rt_pmc_event event, unsigned int modes);

/* The count so far (0 for a counter that does not exist). */
uint64_t rt_pmc_read(unsigned int ctr);

/* Stop the counter; returns its count. */
uint64_t rt_pmc_stop(unsigned int ctr);

const char *rt_pmc_event_name(enum rt_pmc_event event);	/* "cycles", ... */
const char *rt_pmc_vendor_name(enum rt_pmc_vendor vendor);	/* "intel", "amd", "none" */

#endif
