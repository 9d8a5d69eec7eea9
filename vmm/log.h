/* Diagnostics on stderr, one line each, prefixed "pmuvm: ". */
#ifndef PMUVM_LOG_H
#define PMUVM_LOG_H

#include <stdbool.h>

extern int log_verbosity;	/* 0 default, 1 with -v, 2 with -vv */

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True the first time `key` is seen in `domain` (thread-safe); for -v logs. */
bool log_first_time(unsigned int domain, unsigned long long key);

enum log_once_domain {
	LOG_ONCE_PIO,
	LOG_ONCE_MMIO,
	LOG_ONCE_MISC,
};

#endif
