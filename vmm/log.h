/* SPDX-License-Identifier: GPL-2.0-only */
/* Diagnostics on stderr, one line each, prefixed "pmuvm: ". */
#ifndef PMUVM_LOG_H
#define PMUVM_LOG_H

#include <stdbool.h>
#include <stdint.h>

extern int log_verbosity;	/* 0 default, 1 with -v, 2 with -vv */

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Always printed, untagged: how the guest ended the VM, not an error. */
void pr_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The text of the last pr_err() line, without "pmuvm: " ("" if none): for the report. */
const char *log_last_error(void);

/*
 * One status line on stderr (progress): rewritten in place on a terminal
 * (and cleared before any other line), a line of its own elsewhere.
 * log_status_end() ends it with a newline, so the shell's prompt starts clean.
 */
void log_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_status_end(void);
/* Clears the status line until the next one: before other output to the terminal. */
void log_status_clear(void);

/*
 * True the first time `key` is seen in `domain` (thread-safe): warnings
 * about one guest address or port each.
 */
bool log_first_time(unsigned int domain, unsigned long long key);

enum log_once_domain {
	LOG_ONCE_PIO,			/* machine/pio.c: port and direction */
	LOG_ONCE_MMIO,			/* machine/pio.c: address and direction */
	LOG_ONCE_ACPI_SLEEP,		/* dev/acpi_pm.c: sleep type */
};

/* Warnings said once per vCPU: one bit each in the vCPU's own word. */
enum log_once_vcpu {
	LOG_ONCE_LVTPC_MODE,
	LOG_ONCE_STEP_SWITCH,
	LOG_ONCE_STEP_LOST,
	LOG_ONCE_HALT_STATE,
	LOG_ONCE_RDPMC_BP_SET,
	LOG_ONCE_RDPMC_BP_RESTORE,
	LOG_ONCE_PEBS_XSAVE,
	LOG_ONCE_PEBS_DROPPED,
	LOG_ONCE_KRUN_UNSEEN,		/* exact/krun.c: a missed return found late */
	LOG_ONCE_NR,
};

/* True the first time bit `what` is set in *bits (atomic, so any thread may ask). */
static inline bool log_once_bit(uint32_t *bits, unsigned int what)
{
	uint32_t bit = 1u << what;

	return !(__atomic_fetch_or(bits, bit, __ATOMIC_RELAXED) & bit);
}

#endif
