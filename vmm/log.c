#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

int log_verbosity;

__attribute__((format(printf, 2, 0)))
static void vlog(const char *tag, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One fprintf per line so lines from vCPU threads do not interleave. */
	fprintf(stderr, "pmuvm: %s%s\n", tag, buf);
}

#define DEFINE_LOG(name, tag, level)				\
	void name(const char *fmt, ...)				\
	{							\
		va_list ap;					\
		if (log_verbosity < (level))			\
			return;					\
		va_start(ap, fmt);				\
		vlog(tag, fmt, ap);				\
		va_end(ap);					\
	}

DEFINE_LOG(pr_err, "", 0)
DEFINE_LOG(pr_warn, "warning: ", 0)
DEFINE_LOG(pr_notice, "", 0)
DEFINE_LOG(pr_info, "", 1)
DEFINE_LOG(pr_debug, "debug: ", 2)

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
