/* SPDX-License-Identifier: GPL-2.0-only */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

int log_verbosity;

/* Both under stderr's own lock (flockfile). */
static char last_error[1024];
static bool status_shown;	/* a status line is on the terminal, cursor at its end */

/* "\r" + erase to the end of the line (ECMA-48 EL): the status line goes. */
#define LOG_CLEAR_LINE	"\r\033[K"

__attribute__((format(printf, 3, 0)))
static void vlog(const char *tag, bool error, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	flockfile(stderr);
	if (error)
		snprintf(last_error, sizeof(last_error), "%s", buf);
	if (status_shown)
		fputs(LOG_CLEAR_LINE, stderr);
	status_shown = false;
	/* One fprintf per line so lines from vCPU threads do not interleave. */
	fprintf(stderr, "pmuvm: %s%s\n", tag, buf);
	funlockfile(stderr);
}

const char *log_last_error(void)
{
	return last_error;
}

void log_status(const char *fmt, ...)
{
	static int tty = -1;
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	flockfile(stderr);
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (tty) {
		fprintf(stderr, LOG_CLEAR_LINE "pmuvm: %s", buf);
		fflush(stderr);
		status_shown = true;
	} else {
		fprintf(stderr, "pmuvm: %s\n", buf);
	}
	funlockfile(stderr);
}

void log_status_clear(void)
{
	flockfile(stderr);
	if (status_shown)
		fputs(LOG_CLEAR_LINE, stderr);
	status_shown = false;
	funlockfile(stderr);
}

void log_status_end(void)
{
	flockfile(stderr);
	if (status_shown)
		fputc('\n', stderr);
	status_shown = false;
	funlockfile(stderr);
}

#define DEFINE_LOG(name, tag, level, error)			\
	void name(const char *fmt, ...)				\
	{							\
		va_list ap;					\
		if (log_verbosity < (level))			\
			return;					\
		va_start(ap, fmt);				\
		vlog(tag, error, fmt, ap);		\
		va_end(ap);					\
	}

DEFINE_LOG(pr_err, "", 0, true)
DEFINE_LOG(pr_warn, "warning: ", 0, false)
DEFINE_LOG(pr_notice, "", 0, false)
DEFINE_LOG(pr_info, "", 1, false)
DEFINE_LOG(pr_debug, "debug: ", 2, false)

/* A small open-addressing set; it only grows with distinct guest accesses. */
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long *once_keys;
static size_t once_cap, once_len;

static bool once_insert(unsigned long long k)
{
	size_t i;

	if (once_len * 2 >= once_cap) {
		size_t ncap = once_cap ? once_cap * 2 : 64, j;
		unsigned long long *nk = calloc(ncap, sizeof(*nk));

		if (!nk)
			return false;
		for (j = 0; j < once_cap; j++) {
			if (!once_keys[j])
				continue;
			for (i = once_keys[j] % ncap; nk[i]; i = (i + 1) % ncap)
				;
			nk[i] = once_keys[j];
		}
		free(once_keys);
		once_keys = nk;
		once_cap = ncap;
	}
	for (i = k % once_cap; once_keys[i]; i = (i + 1) % once_cap)
		if (once_keys[i] == k)
			return false;
	once_keys[i] = k;
	once_len++;
	return true;
}

bool log_first_time(unsigned int domain, unsigned long long key)
{
	/* Keys are never 0: the domain sits in the top bits, +1 below. */
	unsigned long long k = ((unsigned long long)(domain + 1) << 56) ^ (key + 1);
	bool first;

	pthread_mutex_lock(&once_lock);
	first = once_insert(k);
	pthread_mutex_unlock(&once_lock);
	return first;
}
