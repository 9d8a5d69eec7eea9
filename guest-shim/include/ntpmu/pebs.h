/* SPDX-License-Identifier: MIT */
/*
 * ntpmu's reader of a PEBS buffer: turns the records between
 * PebsBufferBase and PebsIndex of a PROCESSOR_PROFILE_CONTROL_AREA into
 * samples (intel-pmu docs/windows-api.md 4.4), whatever format PERF_CAPABILITIES says.
 */
#ifndef NTPMU_PEBS_H
#define NTPMU_PEBS_H

#include "nt/ntexapi.h"

struct ntpmu_pebs_sample {
	ULONG64 EventingIp;	/* the instruction that caused the event */
	ULONG64 Ip;		/* the next instruction (0 if not recorded) */
	ULONG64 Counters;	/* applicable counters, GLOBAL_STATUS layout */
	ULONG64 Tsc;
	BOOLEAN HasGprs;
	ULONG64 Rflags;
	ULONG64 Gpr[16];	/* RAX RCX RDX RBX RSP RBP RSI RDI R8..R15 */
};

/*
 * Fills up to `max` samples from `area`'s buffer, oldest first; returns how
 * many, or -1 if this CPU has no PEBS record format or a record is
 * malformed (a size that does not fit between the base and the index).
 */
int ntpmu_pebs_read(const PROCESSOR_PROFILE_CONTROL_AREA *area,
		    struct ntpmu_pebs_sample *out, unsigned int max);

#endif
