/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm run's SMP check (tests/system/test_run.c): four threads, each
 * counting to a million with its own counter, on however many CPUs the
 * guest has; prints the CPUs online and the sum.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NR_THREADS	4
#define COUNT		1000000UL

static void *count(void *arg)
{
	volatile unsigned long *n = arg;

	while (*n < COUNT)
		(*n)++;
	return NULL;
}

int main(void)
{
	pthread_t t[NR_THREADS];
	unsigned long n[NR_THREADS] = { 0 }, sum = 0;
	int i;

	for (i = 0; i < NR_THREADS; i++)
		if (pthread_create(&t[i], NULL, count, &n[i]))
			return 1;
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(t[i], NULL);
		sum += n[i];
	}
	printf("threads: %d cpus %ld sum %lu\n", NR_THREADS, sysconf(_SC_NPROCESSORS_ONLN), sum);
	return 0;
}
