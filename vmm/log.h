/* Diagnostics on stderr, one line each, prefixed "pmuvm: ". */
#ifndef PMUVM_LOG_H
#define PMUVM_LOG_H

#include <stdbool.h>

extern int log_verbosity;	/* 0 default, 1 with -v, 2 with -vv */

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * True the first time `key` is seen in `domain` (thread-safe). Each warning
 * said once per vCPU has a domain of its own, keyed by the vCPU's id.
 */
bool log_first_time(unsigned int domain, unsigned long long key);

enum log_once_domain {
	LOG_ONCE_PIO,			/* dev/pio.c: port and direction */
	LOG_ONCE_MMIO,			/* dev/pio.c: address and direction */
	LOG_ONCE_LVTPC_MODE,		/* the rest: per vCPU */
	LOG_ONCE_STEP_SWITCH,
	LOG_ONCE_STEP_LOST,
	LOG_ONCE_HALT_STATE,
	LOG_ONCE_RDPMC_BP_SET,
	LOG_ONCE_RDPMC_BP_RESTORE,
	LOG_ONCE_PEBS_XSAVE,
	LOG_ONCE_PEBS_DROPPED,
};

#endif
