/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Linux guests' profiling target (tests/linux/init): one function does
 * nearly all the work, so `perf record` must put hot_function first.
 *
 *   hot [ITERATIONS]	(default 30 million: about a second at native speed)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static uint64_t hot_function(uint64_t n)
{
	volatile uint64_t acc = 1;
	uint64_t i;

	for (i = 0; i < n; i++)
		acc = acc * 6364136223846793005ULL + i;
	return acc;
}

__attribute__((noinline)) static uint64_t cold_function(uint64_t n)
{
	return n * 3;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 30000000;
	uint64_t r = hot_function(n) + cold_function(7);

	printf("hot: %llu\n", (unsigned long long)(r & 0xff));
	return 0;
}
