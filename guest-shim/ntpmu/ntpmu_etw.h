/* SPDX-License-Identifier: MIT */
/* ntpmu ETW state shared by ntpmu_source.c, ntpmu_logger.c and ntpmu_etw.c. */
#ifndef NTPMU_ETW_H
#define NTPMU_ETW_H

#include "nt/evntrace.h"
#include "nt/ntwmi.h"
#include "ntpmu_internal.h"

#define NTPMU_ETW_MAX_PMC	16	/* per list; the PMU's GP count is the limit */

/* A KPROFILE_SOURCE the PMU produces with one architectural event (docs/windows-api.md 4.8). */
struct ntpmu_source {
	ULONG id;
	const char *name;		/* without "Profile" (docs/windows-api.md 4.7) */
	int event;			/* enum pmu_arch_event, -1: the timer */
	uint64_t evsel;			/* event | umask << 8 */
};

/* The source if the PMU can produce it now (CPUID.0AH), else NULL. */
const struct ntpmu_source *ntpmu_source_find(ULONG id);
/* The table (docs/windows-api.md 4.8 order), *n entries; callers filter with _find(). */
const struct ntpmu_source *ntpmu_source_table(unsigned int *n);
/* True if the PMU has GP counters and CPUID.0AH:EBX does not mark `event`. */
bool ntpmu_event_available(unsigned int event);
/* Counters a PMC list may have: the GP counters (docs/windows-api.md 4.6.4), capped. */
unsigned int ntpmu_etw_max_counters(void);
ULONG ntpmu_source_interval(ULONG id);
void ntpmu_source_reset(void);

/* One list of PMC sources on every processor: its counters and HAL grants. */
struct ntpmu_pmc_set {
	unsigned int n;			/* sources; 0: not set */
	ULONG source[NTPMU_ETW_MAX_PMC];
	uint64_t evsel[NTPMU_ETW_MAX_PMC];
	ULONG interval[NTPMU_ETW_MAX_PMC];	/* profile only */
	uint8_t gp[NTPMU_MAX_CPUS][NTPMU_ETW_MAX_PMC];	/* GP counter per processor */
	HANDLE hal[NTPMU_MAX_CPUS];
};

/*
 * ETW_PMC_SUPPORT's role: counter list (0x0F), profile config (0x0C) and
 * the event list (0x0E) whose events carry the list's counter values.
 */
struct ntpmu_pmc_support {
	struct ntpmu_pmc_set list;
	struct ntpmu_pmc_set profile;
	bool events_set;		/* 0x0E done: hook[] replaces the CSwitch default */
	unsigned int nhooks;
	USHORT hook[ETW_MAX_PMC_EVENTS];
};

struct ntpmu_logger {
	bool active;
	bool busy;			/* a configure call has exclusive access */
	USHORT id;
	ULONG mode, access;
	WCHAR name[64];
	uint8_t *buf;
	ULONG size, used, lost;
	struct ntpmu_pmc_support *pmc;
};

extern struct ntpmu_logger ntpmu_loggers[NTPMU_MAX_LOGGERS];

/* The active logger a TRACEHANDLE names (low 16 bits), NULL if none. */
struct ntpmu_logger *ntpmu_logger_find(TRACEHANDLE h);
/* Append a record under the lock (the caller holds it). */
void ntpmu_logger_write(struct ntpmu_logger *lg, USHORT hook, const void *payload,
			USHORT len, const uint64_t *pmc, unsigned int npmc);
/* Stop the counters of a set and free its HAL grants (no lock held). */
void ntpmu_pmc_set_release(struct ntpmu_pmc_set *set);
uint32_t ntpmu_thread_id(void *thread);
/* TraceQueryInformation 25 and 27 (ntpmu_trace_pmc.c). */
ULONG ntpmu_trace_query_owners(PVOID info, ULONG len, PULONG ret);
ULONG ntpmu_trace_query_sessions(PVOID info, ULONG len, PULONG ret);

#endif
