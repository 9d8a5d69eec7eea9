/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Record and replay cases for rr (tests/system/test_run.c): each case
 * folds what it saw into a hash, non-deterministic inputs included
 * (signal arrival, thread interleaving, clock and pid values), and prints
 * it. `rr replay -a` of its recording must print the same line.
 *
 *   rrcases signals|threads|syscalls
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define FNV_OFFSET	14695981039346656037UL
#define FNV_PRIME	1099511628211UL

static unsigned long mix(unsigned long h, unsigned long v)
{
	return (h ^ v) * FNV_PRIME;
}

static volatile sig_atomic_t usr1_hits, alarm_hits;
static volatile unsigned long spin_at_alarm;
static volatile unsigned long spin;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_hits++;
}

static void on_alarm(int sig)
{
	(void)sig;
	alarm_hits++;
	spin_at_alarm = spin;	/* where the loop was: differs run to run */
}

/*
 * Synchronous signals, then timer signals landing anywhere in a loop. The
 * timer is one-shot, armed again once its signal was handled: at an
 * interval, a host slower than the interval (rr stops the task for each
 * signal) would have the next one pending before the handler ran, forever.
 */
static unsigned long case_signals(void)
{
	struct sigaction usr1 = { .sa_handler = on_usr1 }, alrm = { .sa_handler = on_alarm };
	struct itimerval once = { { 0, 0 }, { 0, 2000 } };
	unsigned long h = FNV_OFFSET;
	sig_atomic_t seen = 0;
	int i;

	sigaction(SIGUSR1, &usr1, NULL);
	sigaction(SIGALRM, &alrm, NULL);
	for (i = 0; i < 100; i++)
		raise(SIGUSR1);
	setitimer(ITIMER_REAL, &once, NULL);
	while (alarm_hits < 20) {
		spin++;
		if (alarm_hits != seen) {
			seen = alarm_hits;
			h = mix(h, spin_at_alarm);
			if (seen < 20)
				setitimer(ITIMER_REAL, &once, NULL);
		}
	}
	h = mix(h, usr1_hits);
	return mix(h, spin);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long order_hash = FNV_OFFSET;

/* Four threads take turns in an order the scheduler picks. */
static void *worker(void *arg)
{
	unsigned long id = (unsigned long)arg;
	int i;

	for (i = 0; i < 200; i++) {
		pthread_mutex_lock(&lock);
		order_hash = mix(order_hash, id);
		pthread_mutex_unlock(&lock);
		if (i % 16 == 0)
			sched_yield();
	}
	return NULL;
}

static unsigned long case_threads(void)
{
	pthread_t t[4];
	unsigned long i;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return order_hash;
}

/* Many system calls, with results that differ run to run. */
static unsigned long case_syscalls(void)
{
	char path[64], buf[32];
	unsigned long h = FNV_OFFSET;
	struct timespec ts;
	struct timeval tv;
	int i, fd;

	snprintf(path, sizeof(path), "/tmp/rrcases.%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	for (i = 0; i < 300; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		gettimeofday(&tv, NULL);
		h = mix(h, (unsigned long)ts.tv_nsec);
		h = mix(h, (unsigned long)tv.tv_usec);
		h = mix(h, (unsigned long)getpid());
		pwrite(fd, &h, sizeof(h), 0);
		if (pread(fd, buf, sizeof(h), 0) == (ssize_t)sizeof(h))
			h = mix(h, (unsigned char)buf[i % sizeof(h)]);
	}
	close(fd);
	unlink(path);
	return h;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned long (*run)(void);
	} cases[] = {
		{ "signals", case_signals },
		{ "threads", case_threads },
		{ "syscalls", case_syscalls },
	};
	unsigned int i;

	for (i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(argv[1], cases[i].name)) {
			printf("rrcases: %s %016lx\n", cases[i].name, cases[i].run());
			return 0;
		}
	fprintf(stderr, "usage: rrcases signals|threads|syscalls\n");
	return 2;
}
