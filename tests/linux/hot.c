/*
 * The Linux guests' profiling target (tests/linux/init): one function does
 * nearly all the work, so `perf record` must put hot_function first.
 */
#include <stdint.h>
#include <stdio.h>

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

int main(void)
{
	uint64_t r = hot_function(100000000) + cold_function(7);

	printf("hot: %llu\n", (unsigned long long)(r & 0xff));
	return 0;
}
