/* SPDX-License-Identifier: MIT */
/*
 * TraceQueryInformation classes 25 TracePmcCounterOwners and 27
 * TracePmcSessionInformation (docs/windows-api.md 4.2-4.3: only the structures and
 * "buffer >= 8 + 12 x TraceMaxPmcCounterQuery" are known; everything else
 * here is a choice).  Both are system-wide: SessionHandle is not used.
 *
 * 25, status precedence:
 *   1. *ReturnLength := 8 + 12 x TraceMaxPmcCounterQuery; a shorter
 *      length                                    ERROR_BAD_LENGTH
 *   2. NULL buffer                               ERROR_INVALID_PARAMETER
 *   3. ProcessorNumber not an active processor   ERROR_INVALID_PARAMETER
 * NumberOfCounters is TraceMaxPmcCounterQuery; entry i is GP counter i of
 * that processor: an ETW counter list or profile holds it ->
 * EtwPmcOwnerTaggedWithSource (its source; OwnerTag the logger ID);
 * another HAL owner -> EtwPmcOwnerTagged with its identification tag, or
 * EtwPmcOwnerUntagged without one; thread profiling
 * (KeSetHardwareCounterConfiguration) -> EtwPmcOwnerUntagged; else
 * EtwPmcOwnerFree.
 *
 * 27: one ETW_PMC_SESSION_INFO per running logger with a counter list or
 * an event list, in logger-slot order, each 8-byte aligned and linked by
 * NextEntryOffset (0 on the last): its counter-list sources (class 9), then
 * the hook IDs its counters ride on (class 8's list, or CSwitch when only a
 * counter list is set).  Profile sources (class 6) are not listed.
 *   *ReturnLength := the size; a shorter length or NULL buffer with a
 *   non-zero size                                ERROR_BAD_LENGTH
 *   no such logger: size 0, ERROR_SUCCESS.
 */
#include "ntpmu_etw.h"

#define OWNERS_HEADER	offsetof(ETW_PMC_COUNTER_OWNERSHIP_STATUS, CounterOwners)

/* Who holds GP counter `gp` of `cpu` (class 25); under the lock. */
static ETW_PMC_COUNTER_OWNER owner_of(unsigned int cpu, unsigned int gp)
{
	const struct ntpmu_owner *o;
	unsigned int l, k;

	for (l = 0; l < NTPMU_MAX_LOGGERS; l++) {
		const struct ntpmu_logger *lg = &ntpmu_loggers[l];
		const struct ntpmu_pmc_set *sets[2];

		if (!lg->active || !lg->pmc)
			continue;
		sets[0] = &lg->pmc->list;
		sets[1] = &lg->pmc->profile;
		for (unsigned int s = 0; s < 2; s++)
			for (k = 0; k < sets[s]->n; k++)
				if (sets[s]->hal[cpu] && sets[s]->gp[cpu][k] == gp)
					return (ETW_PMC_COUNTER_OWNER){ EtwPmcOwnerTaggedWithSource,
									sets[s]->source[k], lg->id };
	}
	for (o = ntpmu.owners; o; o = o->next)
		if ((o->cpus >> cpu & 1) && (o->counters >> gp & 1))
			return (ETW_PMC_COUNTER_OWNER){ o->tag ? EtwPmcOwnerTagged
							       : EtwPmcOwnerUntagged, 0, o->tag };
	if (ntpmu.config_bits >> gp & 1)
		return (ETW_PMC_COUNTER_OWNER){ EtwPmcOwnerUntagged, 0, 0 };
	return (ETW_PMC_COUNTER_OWNER){ EtwPmcOwnerFree, 0, 0 };
}

ULONG ntpmu_trace_query_owners(PVOID info, ULONG len, PULONG ret)
{
	ULONG n = ntpmu_etw_max_counters(), need = (ULONG)OWNERS_HEADER + n * 12, cpu, i;
	uint8_t *p = info;
	unsigned long flags;

	if (ret)
		*ret = need;
	if (len < need)
		return ERROR_BAD_LENGTH;
	if (!info)
		return ERROR_INVALID_PARAMETER;
	__builtin_memcpy(&cpu, p, sizeof(cpu));
	if (cpu >= ntpmu.nr_cpus)
		return ERROR_INVALID_PARAMETER;
	__builtin_memcpy(p + offsetof(ETW_PMC_COUNTER_OWNERSHIP_STATUS, NumberOfCounters), &n,
			 sizeof(n));
	flags = ntpmu_lock();
	for (i = 0; i < n; i++) {
		ETW_PMC_COUNTER_OWNER o = owner_of(cpu, i);

		__builtin_memcpy(p + OWNERS_HEADER + i * sizeof(o), &o, sizeof(o));
	}
	ntpmu_unlock(flags);
	return ERROR_SUCCESS;
}

/* Hook IDs the logger's counters ride on; their count. */
static unsigned int session_hooks(const struct ntpmu_logger *lg, USHORT *hook)
{
	unsigned int i;

	if (!lg->pmc->events_set) {
		hook[0] = PERFINFO_LOG_TYPE_CONTEXTSWAP;
		return 1;
	}
	for (i = 0; i < lg->pmc->nhooks; i++)
		hook[i] = lg->pmc->hook[i];
	return lg->pmc->nhooks;
}

static ULONG session_size(unsigned int nsrc, unsigned int nhook)
{
	return ((ULONG)sizeof(ETW_PMC_SESSION_INFO) + nsrc * 4u + nhook * 2u + 7u) & ~7u;
}

/* Write (if p) or size the chain; under the lock. */
static ULONG sessions(uint8_t *p)
{
	ULONG off = 0, last = 0;
	unsigned int l, i;

	for (l = 0; l < NTPMU_MAX_LOGGERS; l++) {
		const struct ntpmu_logger *lg = &ntpmu_loggers[l];
		USHORT hook[ETW_MAX_PMC_EVENTS];
		ETW_PMC_SESSION_INFO si = { 0 };
		unsigned int nh;
		ULONG size;

		if (!lg->active || !lg->pmc || (!lg->pmc->list.n && !lg->pmc->events_set))
			continue;
		nh = session_hooks(lg, hook);
		size = session_size(lg->pmc->list.n, nh);
		if (p) {
			si.NextEntryOffset = size;
			si.LoggerId = lg->id;
			si.ProfileSourceCount = lg->pmc->list.n;
			si.HookIdCount = nh;
			__builtin_memset(p + off, 0, size);
			__builtin_memcpy(p + off, &si, sizeof(si));
			for (i = 0; i < lg->pmc->list.n; i++)
				__builtin_memcpy(p + off + sizeof(si) + i * 4, &lg->pmc->list.source[i], 4);
			for (i = 0; i < nh; i++)
				__builtin_memcpy(p + off + sizeof(si) + lg->pmc->list.n * 4 + i * 2,
						 &hook[i], 2);
		}
		last = off;
		off += size;
	}
	if (p && off)
		__builtin_memset(p + last, 0, sizeof(ULONG));
	return off;
}

ULONG ntpmu_trace_query_sessions(PVOID info, ULONG len, PULONG ret)
{
	unsigned long flags = ntpmu_lock();
	ULONG need = sessions(NULL), err = ERROR_SUCCESS;

	if (len < need || (!info && need))
		err = ERROR_BAD_LENGTH;
	else if (need)
		sessions(info);
	ntpmu_unlock(flags);
	if (ret)
		*ret = need;
	return err;
}
