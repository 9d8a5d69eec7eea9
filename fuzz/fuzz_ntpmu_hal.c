/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: ntpmu's parsing of caller buffers in the HAL calls:
 * HalAllocateHardwareCounters with an arbitrary
 * PHYSICAL_COUNTER_RESOURCE_LIST and GROUP_AFFINITY array, exactly as large
 * as the caller claims (ASan catches any read past them), on a 2-CPU
 * platform whose MSRs are the real vPMU model; then HalFreeHardwareCounters
 * with the handle it gave and with garbage.
 *
 * Input: byte 0 PMU version (0..5), byte 1 group count (0..4, 0xff: NULL
 * affinity), byte 2 descriptor count as claimed (0xff: NULL list), byte 3
 * how many descriptors are really there; then GROUP_AFFINITY entries (16
 * bytes each) and descriptors (0x18 bytes each), zero-padded if short.
 *
 * Checked: every status is one the spec allows (windows-api.md 2.3/2.4);
 * success gives a non-NULL handle that frees with STATUS_SUCCESS, failure
 * leaves *CounterSetHandle NULL; after freeing, everything is free again (a
 * whole-PMU request succeeds); no leak (allocations balance).
 */
#include <stdlib.h>
#include <string.h>

#include "nt/ntddk.h"
#include "ntpmu_platform.h"
#include "model/vpmu.h"

#define CPUS	2

static struct vpmu pmus[CPUS];
static unsigned int cur_cpu;
static long live_allocs;
static int dummy_thread;

static int f_rdmsr(void *c, uint32_t m, uint64_t *v) { (void)c; return vpmu_rdmsr(&pmus[cur_cpu], m, v) ? 13 : 0; }
static int f_wrmsr(void *c, uint32_t m, uint64_t v) { (void)c; return vpmu_wrmsr(&pmus[cur_cpu], m, v) ? 13 : 0; }
static int f_rdpmc(void *c, uint32_t e, uint64_t *v) { (void)c; return vpmu_rdpmc(&pmus[cur_cpu], e, v) ? 13 : 0; }
static uint64_t f_rdtsc(void *c) { (void)c; return 0; }
static unsigned int f_nr_cpus(void *c) { (void)c; return CPUS; }
static unsigned int f_cpu_id(void *c) { (void)c; return cur_cpu; }
static unsigned long f_lock(void *c) { (void)c; return 0; }
static void f_unlock(void *c, unsigned long f) { (void)c; (void)f; }
static void *f_current(void *c) { (void)c; return &dummy_thread; }
static void *f_from_handle(void *c, void *h) { (void)c; return h == (void *)-2 ? &dummy_thread : NULL; }
static void *slot;
static void *f_slot_get(void *c, void *t) { (void)c; (void)t; return slot; }
static void f_slot_set(void *c, void *t, void *v) { (void)c; (void)t; slot = v; }
static void *f_app(void *c, void *t) { (void)c; (void)t; return NULL; }
static int f_wait_reason(void *c, void *t) { (void)c; (void)t; return -1; }
static void f_user_rdpmc(void *c, bool on) { (void)c; (void)on; }

static void f_cpuid(void *c, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)c;
	(void)sub;
	memset(r, 0, 4 * sizeof(r[0]));
	if (leaf == 0)
		r[0] = 0xa;
	else if (leaf == 0xa)
		vpmu_cpuid_0a(&pmus[0].cfg, &r[0], &r[1], &r[2], &r[3]);
}

static void f_run_on_cpu(void *c, unsigned int cpu, void (*fn)(void *), void *arg)
{
	unsigned int saved = cur_cpu;

	(void)c;
	if (cpu >= CPUS)
		abort();
	cur_cpu = cpu;
	fn(arg);
	cur_cpu = saved;
}

static void *f_zalloc(void *c, size_t n)
{
	void *p = calloc(1, n);

	(void)c;
	live_allocs += p != NULL;
	return p;
}

static void f_free(void *c, void *p)
{
	(void)c;
	live_allocs -= p != NULL;
	free(p);
}

static const struct ntpmu_platform_ops ops = {
	.rdmsr = f_rdmsr, .wrmsr = f_wrmsr, .rdpmc = f_rdpmc, .rdtsc = f_rdtsc,
	.cpuid = f_cpuid, .nr_cpus = f_nr_cpus, .cpu_id = f_cpu_id,
	.run_on_cpu = f_run_on_cpu, .zalloc = f_zalloc, .free = f_free,
	.lock = f_lock, .unlock = f_unlock, .current_thread = f_current,
	.thread_from_handle = f_from_handle, .thread_slot_get = f_slot_get,
	.thread_slot_set = f_slot_set, .thread_app = f_app,
	.thread_wait_reason = f_wait_reason, .set_user_rdpmc = f_user_rdpmc,
};

static bool status_allowed(NTSTATUS st)
{
	return st == STATUS_SUCCESS || st == STATUS_INVALID_PARAMETER ||
	       st == STATUS_INSUFFICIENT_RESOURCES || st == STATUS_NOT_SUPPORTED;
}

/* A copy of `n` bytes of input (zero-padded) in a buffer of exactly that size. */
static void *exact_copy(const uint8_t **data, size_t *size, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	size_t k = *size < n ? *size : n;

	if (!p)
		abort();
	memset(p, 0, n);
	memcpy(p, *data, k);
	*data += k;
	*size -= k;
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vpmu_config cfg;
	GROUP_AFFINITY *aff = NULL;
	PHYSICAL_COUNTER_RESOURCE_LIST *list = NULL;
	unsigned int version, groups, claimed, present;
	HANDLE h = (HANDLE)0x1234, whole;
	NTSTATUS st;

	if (size < 4)
		return 0;
	version = data[0] % 6;
	groups = data[1] == 0xff ? 0xff : data[1] % 5;
	claimed = data[2];
	present = data[3] % 9;
	data += 4;
	size -= 4;

	vpmu_config_default(&cfg, version);
	if (vpmu_config_validate(&cfg))
		abort();
	for (unsigned int i = 0; i < CPUS; i++)
		vpmu_init(&pmus[i], &cfg);
	cur_cpu = 0;
	slot = NULL;
	ntpmu_init(&ops, NULL);

	if (groups != 0xff)
		aff = exact_copy(&data, &size, groups * sizeof(*aff));
	if (claimed != 0xff) {
		/* The header and only the descriptors really there: Count may lie. */
		list = exact_copy(&data, &size, offsetof(PHYSICAL_COUNTER_RESOURCE_LIST, Descriptors) +
						present * sizeof(list->Descriptors[0]));
		list->Count = claimed <= present ? claimed : present;
	}
	st = HalAllocateHardwareCounters(aff, groups == 0xff ? 0 : groups, list, &h);
	if (!status_allowed(st))
		abort();
	if (st == STATUS_SUCCESS) {
		if (!h || HalFreeHardwareCounters(h) != STATUS_SUCCESS)
			abort();
	} else if (h) {
		abort();
	}
	if (HalFreeHardwareCounters((HANDLE)0x5a5a) != STATUS_INVALID_PARAMETER)
		abort();
	/* Everything is free again: the whole PMU can be taken (with a PMU). */
	st = HalAllocateHardwareCounters(NULL, 0, NULL, &whole);
	if (st != STATUS_SUCCESS || HalFreeHardwareCounters(whole) != STATUS_SUCCESS)
		abort();
	ntpmu_exit();
	if (live_allocs)
		abort();
	free(aff);
	free(list);
	return 0;
}
