/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ETW-style PMC configuration and Perflib on the runtime (ntpmu-rt):
 *
 *   1. starts the NT Kernel Logger, lists the profile sources the PMU can
 *      produce, sets a PMC profile (a cycles source, sampled every
 *      SAMPLE_INTERVAL) and a counter list (two sources) on it;
 *   2. runs workers on every CPU: each spins at CPL3 in spin_hot() six
 *      times as long as in spin_cold(), yielding between rounds;
 *   3. stops the workers, iterates the logger buffer and prints the top IPs
 *      per source and the CSwitch counter values, and checks them: samples
 *      exist, a quarter or more of them in spin_hot() and spin_cold(),
 *      counter values on a processor never go down;
 *   4. stops the logger (its counters are released), opens a Perflib query
 *      for every counter of every processor of the hardware counterset,
 *      spins a little and prints the values (core cycles must have moved).
 *
 * Without an architectural PMU (plain QEMU/KVM here, pmuvm --pmu-version 0)
 * it prints the statuses the calls give there and passes.
 */
#include <rt.h>
#include <rt/alloc.h>
#include <rt/thread.h>

#include "nt/evntrace.h"
#include "nt/ntddk.h"
#include "nt/ntwmi.h"
#include "nt/perflib.h"
#include <ntpmu/ntpmu.h>

#define THREADS_PER_CPU	2
#define MAX_WORKERS	(2 * THREADS_PER_CPU)
#define ROUNDS		3
#define SPIN_TICKS	20000000ull	/* TSC ticks per cold spin; hot spins 6 times longer */
#define SAMPLE_INTERVAL	10000000u	/* cycles: a sample costs emulated CPL0 work */
#define LOGGER_BYTES	(256u << 10)
#define MAX_IPS		64
#define FN_BYTES	128		/* spin_hot() and spin_cold() are a few instructions */

struct worker {
	int cpu;
	uint32_t id;
};

static struct worker workers[MAX_WORKERS];

__attribute__((noinline)) static uint64_t spin_hot(uint64_t ticks)
{
	uint64_t end = rdtsc() + ticks;

	while (rdtsc() < end)
		;
	return 0;
}

__attribute__((noinline)) static uint64_t spin_cold(uint64_t ticks)
{
	uint64_t end = rdtsc() + ticks, n = 0;

	while (rdtsc() < end)
		n++;
	return n;
}

static void worker_main(void *arg)
{
	struct worker *w = arg;

	w->id = (uint32_t)rt_thread_id(rt_thread_current());
	for (int i = 0; i < ROUNDS; i++) {
		rt_run_user(spin_hot, 6 * SPIN_TICKS);
		rt_run_user(spin_cold, SPIN_TICKS);
		rt_yield();
	}
}

static uint64_t user_nop(uint64_t arg)
{
	return arg;
}

static void warm_up(void *arg)
{
	rt_run_user(user_nop, 0);
}

/*
 * One thread per CPU enters user mode first: the runtime's first
 * rt_run_user() on a CPU loads its TSS, and two threads of a CPU doing it
 * at once fault (LTR of a busy TSS; guest-shim/rt/usermode.c:126).
 */
static void user_mode_init(int cpus)
{
	for (int cpu = 0; cpu < cpus; cpu++) {
		struct rt_thread *t = rt_thread_create(warm_up, NULL, cpu, "warm-up");

		GUEST_ASSERT(t);
		rt_thread_join(t);
	}
}

static void run_workers(int cpus)
{
	struct rt_thread *t[MAX_WORKERS];
	int n = 0;

	for (int cpu = 0; cpu < cpus; cpu++)
		for (int i = 0; i < THREADS_PER_CPU; i++, n++) {
			workers[n].cpu = cpu;
			t[n] = rt_thread_create(worker_main, &workers[n], cpu, "etw-worker");
			GUEST_ASSERT(t[n]);
		}
	for (int i = 0; i < n; i++)
		rt_thread_join(t[i]);
}

static void put_name(const WCHAR *w)
{
	for (; *w; w++)
		printf("%c", (char)*w);
}

/* The profile sources, printed; the PMC ones (not the timer) into src[]. */
static unsigned int list_sources(ULONG *src, unsigned int max)
{
	ULONG need = 0, off = 0;
	unsigned int n = 0;
	uint8_t *buf;

	GUEST_ASSERT_EQ(TraceQueryInformation(0, TraceProfileSourceListInfo, NULL, 0, &need),
			ERROR_BAD_LENGTH);
	buf = rt_zalloc(need, 8);
	GUEST_ASSERT(buf);
	GUEST_ASSERT_EQ(TraceQueryInformation(0, TraceProfileSourceListInfo, buf, need, &need),
			ERROR_SUCCESS);
	printf("ntpmu_etw: sources:");
	for (;;) {
		const PROFILE_SOURCE_INFO *e = (const PROFILE_SOURCE_INFO *)(buf + off);

		printf(" %u=", e->Source);
		put_name(e->Description);
		if (e->Source != ProfileTime && n < max)
			src[n++] = e->Source;
		if (!e->NextEntryOffset)
			break;
		off += e->NextEntryOffset;
	}
	printf("\n");
	rt_free(buf);
	return n;
}

static bool has(const ULONG *src, unsigned int n, ULONG id)
{
	for (unsigned int i = 0; i < n; i++)
		if (src[i] == id)
			return true;
	return false;
}

struct ip_count {
	uint64_t ip;
	unsigned int n;
};

static void count_ip(struct ip_count *t, unsigned int *nt, uint64_t ip)
{
	for (unsigned int i = 0; i < *nt; i++)
		if (t[i].ip == ip) {
			t[i].n++;
			return;
		}
	if (*nt < MAX_IPS)
		t[(*nt)++] = (struct ip_count){ ip, 1 };
}

static struct ip_count ips[MAX_IPS];

/* ip is in fn, whose code ends at FN_BYTES or where `other` starts. */
static bool in_fn(uint64_t ip, uint64_t (*fn)(uint64_t), uint64_t (*other)(uint64_t))
{
	uint64_t a = (uint64_t)(uintptr_t)fn, b = (uint64_t)(uintptr_t)other;

	return ip - a < FN_BYTES && !(b > a && ip >= b);
}

/* Samples of one source: print the top three IPs and where they fell. */
static void profile(const uint8_t *buf, ULONG used, ULONG source)
{
	unsigned int nips = 0, total = 0, in_hot = 0, in_cold = 0;

	for (ULONG off = 0; off < used;) {
		const NTPMU_TRACE_HEADER *h = (const NTPMU_TRACE_HEADER *)(buf + off);
		const PERFINFO_PMC_SAMPLE_INFORMATION *s = (const void *)(h + 1);

		off += h->Size;
		if (h->HookId != PERFINFO_LOG_TYPE_PMC_INTERRUPT || s->ProfileSource != source)
			continue;
		total++;
		count_ip(ips, &nips, (uint64_t)(uintptr_t)s->InstructionPointer);
		in_hot += in_fn((uint64_t)(uintptr_t)s->InstructionPointer, spin_hot, spin_cold);
		in_cold += in_fn((uint64_t)(uintptr_t)s->InstructionPointer, spin_cold, spin_hot);
	}
	printf("ntpmu_etw: profile source %u: %u samples, %u in spin_hot, %u in spin_cold\n",
	       source, total, in_hot, in_cold);
	/*
	 * Kernel time (emulated, slow) with interrupts off lands at the first
	 * user instructions after it, so no finer check than: samples exist
	 * and a good part of them hit the workload.
	 */
	GUEST_ASSERT(in_hot > 0);
	GUEST_ASSERT(4 * (in_hot + in_cold) >= total);
	for (int k = 0; k < 3 && nips; k++) {
		unsigned int best = 0;

		for (unsigned int i = 1; i < nips; i++)
			if (ips[i].n > ips[best].n)
				best = i;
		printf("ntpmu_etw:   top %d: ip %#llx samples %u\n", k + 1,
		       (unsigned long long)ips[best].ip, ips[best].n);
		ips[best] = ips[--nips];
	}
}

/*
 * The event list (class 8) names CSwitch and the PMC sample: both carry
 * the counter list's values, which per processor never decrease.
 */
static void cswitches(const uint8_t *buf, ULONG used, unsigned int npmc, int cpus)
{
	uint64_t last[2][2] = { { 0 } };
	unsigned int n[2] = { 0, 0 }, samples = 0, workers_seen = 0;

	for (ULONG off = 0; off < used;) {
		const NTPMU_TRACE_HEADER *h = (const NTPMU_TRACE_HEADER *)(buf + off);
		const NTPMU_CSWITCH *cs = (const void *)(h + 1);
		/* Both payloads are 0x10 bytes. */
		const uint64_t *v = (const uint64_t *)((const uint8_t *)(h + 1) + 0x10);

		off += h->Size;
		if (h->HookId != PERFINFO_LOG_TYPE_CONTEXTSWAP &&
		    h->HookId != PERFINFO_LOG_TYPE_PMC_INTERRUPT)
			continue;
		GUEST_ASSERT(h->Processor < cpus);
		GUEST_ASSERT_EQ(h->PmcCount, npmc);
		GUEST_ASSERT_EQ(h->Size, sizeof(*h) + 0x10 + 8 * npmc);
		for (unsigned int i = 0; i < npmc; i++) {
			GUEST_ASSERT(v[i] >= last[h->Processor][i]);
			last[h->Processor][i] = v[i];
		}
		if (h->HookId == PERFINFO_LOG_TYPE_PMC_INTERRUPT) {
			samples++;
			continue;
		}
		for (int w = 0; w < cpus * THREADS_PER_CPU; w++)
			if (cs->NewThreadId == workers[w].id)
				workers_seen++;
		n[h->Processor]++;
	}
	printf("ntpmu_etw: %u PMC samples with %u counter values each\n", samples, npmc);
	GUEST_ASSERT(samples > 0);
	for (int c = 0; c < cpus; c++) {
		printf("ntpmu_etw: cpu %d: %u context switches, counters at the last:", c, n[c]);
		for (unsigned int i = 0; i < npmc; i++)
			printf(" %llu", (unsigned long long)last[c][i]);
		printf("\n");
		GUEST_ASSERT(n[c] > 0);
	}
	GUEST_ASSERT(workers_seen >= (unsigned int)(cpus * THREADS_PER_CPU));
}

/*
 * Class 8: CSwitch, the PMC sample, Process/Start (accepted, never raised)
 * and an unknown class (dropped); once per logger.
 */
static void set_event_list(TRACEHANDLE lg)
{
	CLASSIC_EVENT_ID ev[4] = {
		{ .EventGuid = NTPMU_THREAD_GUID, .Type = CSWITCH_EVENT_TYPE },
		{ .EventGuid = NTPMU_PERFINFO_GUID, .Type = PMC_INTERRUPT_EVENT_TYPE },
		{ .EventGuid = NTPMU_PROCESS_GUID, .Type = 1 },
		{ .EventGuid = { 0x01234567, 0x89ab, 0xcdef, { 1, 2, 3, 4, 5, 6, 7, 8 } },
		  .Type = 36 },
	};

	GUEST_ASSERT_EQ(TraceSetInformation(lg, TracePmcEventListInfo, ev, 0x19),
			ERROR_INCORRECT_SIZE);
	GUEST_ASSERT_EQ(TraceSetInformation(lg, TracePmcEventListInfo, ev, 0),
			ERROR_INVALID_PARAMETER);
	GUEST_ASSERT_EQ(TraceSetInformation(lg, TracePmcEventListInfo, ev, sizeof(ev)),
			ERROR_SUCCESS);
	GUEST_ASSERT_EQ(TraceSetInformation(lg, TracePmcEventListInfo, ev, 0x18),
			ERROR_WMI_ALREADY_ENABLED);
	printf("ntpmu_etw: event list CSwitch, PmcInterrupt, Process/Start set\n");
}

static void perflib(int cpus)
{
	static uint64_t idbuf[8];
	PERF_COUNTER_IDENTIFIER *id = (PERF_COUNTER_IDENTIFIER *)idbuf;
	GUID guid;
	DWORD n = 0, need = 0;
	HANDLE q;
	uint8_t *buf;

	GUEST_ASSERT_EQ(PerfEnumerateCounterSet(NULL, &guid, 1, &n), ERROR_SUCCESS);
	GUEST_ASSERT_EQ(n, 1);
	GUEST_ASSERT_EQ(PerfOpenQueryHandle(NULL, &q), ERROR_SUCCESS);
	*id = (PERF_COUNTER_IDENTIFIER){ .CounterSetGuid = guid, .Size = 0x30,
					 .CounterId = PERF_WILDCARD_COUNTER,
					 .InstanceId = 0xFFFFFFFF };
	__builtin_memcpy(id + 1, PERF_WILDCARD_INSTANCE, 4);
	GUEST_ASSERT_EQ(PerfAddCounters(q, id, 0x30), ERROR_SUCCESS);
	GUEST_ASSERT_EQ(id->Status, ERROR_SUCCESS);
	/*
	 * A short spin in main() only: the set counts instructions, and pmuvm
	 * counts them by single-stepping kernel code (~9 us an instruction).
	 */
	rt_run_user(spin_hot, SPIN_TICKS);
	GUEST_ASSERT_EQ(PerfQueryCounterData(q, NULL, 0, &need), ERROR_NOT_ENOUGH_MEMORY);
	buf = rt_zalloc(need, 8);
	GUEST_ASSERT(buf);
	GUEST_ASSERT_EQ(PerfQueryCounterData(q, (PPERF_DATA_HEADER)buf, need, &n), ERROR_SUCCESS);

	{
		const PERF_DATA_HEADER *dh = (const void *)buf;
		const PERF_COUNTER_HEADER *ch = (const void *)(dh + 1);
		const PERF_MULTI_COUNTERS *mc = (const void *)(ch + 1);
		const DWORD *ids = (const DWORD *)(mc + 1);
		const PERF_MULTI_INSTANCES *mi = (const void *)((const uint8_t *)mc + mc->dwSize);
		const uint8_t *p = (const uint8_t *)(mi + 1);

		GUEST_ASSERT_EQ(dh->dwNumCounters, 1);
		GUEST_ASSERT_EQ(ch->dwType, PERF_COUNTERSET);
		printf("ntpmu_etw: perflib clock %llu Hz, tsc %llu, 100ns %llu, "
		       "%04u-%02u-%02u %02u:%02u:%02u.%03u\n",
		       (unsigned long long)dh->PerfFreq, (unsigned long long)dh->PerfTimeStamp,
		       (unsigned long long)dh->PerfTime100NSec, dh->SystemTime.wYear,
		       dh->SystemTime.wMonth, dh->SystemTime.wDay, dh->SystemTime.wHour,
		       dh->SystemTime.wMinute, dh->SystemTime.wSecond,
		       dh->SystemTime.wMilliseconds);
		GUEST_ASSERT(dh->PerfTimeStamp > 0);
		/* 100-ns time is the TSC at PerfFreq (ntpmu_clock.c), to the unit */
		if (dh->PerfFreq) {
			uint64_t t = (uint64_t)dh->PerfTimeStamp, hz = (uint64_t)dh->PerfFreq;

			GUEST_ASSERT_EQ((uint64_t)dh->PerfTime100NSec,
					t / hz * 10000000u + t % hz * 10000000u / hz);
			GUEST_ASSERT_EQ(dh->SystemTime.wYear, 1601);
		}
		GUEST_ASSERT_EQ(mi->dwInstances, (ULONG)cpus);
		for (ULONG i = 0; i < mi->dwInstances; i++) {
			const PERF_INSTANCE_HEADER *ih = (const void *)p;

			p += ih->Size;
			printf("ntpmu_etw: perflib processor %u:", ih->InstanceId);
			for (ULONG c = 0; c < mc->dwCounters; c++) {
				const PERF_COUNTER_DATA *d = (const void *)p;
				uint64_t v = *(const uint64_t *)(d + 1);

				p += d->dwSize;
				printf(" event%u=%llu", ids[c], (unsigned long long)v);
				if (ids[c] == 0)	/* core cycles: the workers ran */
					GUEST_ASSERT(v > 0);
			}
			printf("\n");
		}
	}
	rt_free(buf);
	GUEST_ASSERT_EQ(PerfCloseQueryHandle(q), ERROR_SUCCESS);
}

/* No architectural PMU: what each call answers. */
static int no_pmu(void)
{
	ULONG src[4], max = 99, ret, st;
	DWORD n = 99;
	TRACEHANDLE lg;
	struct {
		ULONG cls, pad;
		TRACEHANDLE h;
		ULONG src[1];
	} info = { EventTraceProfileCounterListInformation, 0, KERNEL_LOGGER_ID,
		   { ProfileTotalCycles } };
	GUID g = NTPMU_PERF_COUNTERSET_GUID;

	GUEST_ASSERT_EQ(ntpmu_logger_start(KERNEL_LOGGER_NAMEW, 0, LOGGER_BYTES,
					   TRACELOG_GUID_ENABLE, &lg), STATUS_SUCCESS);
	GUEST_ASSERT_EQ(list_sources(src, 4), 0);
	GUEST_ASSERT_EQ(TraceQueryInformation(0, TraceMaxPmcCounterQuery, &max, 4, &ret),
			ERROR_SUCCESS);
	printf("ntpmu_etw: no architectural PMU: TraceMaxPmcCounterQuery -> %u\n", max);
	st = (ULONG)NtSetSystemInformation(SystemPerformanceTraceInformation, &info, sizeof(info));
	printf("ntpmu_etw: no architectural PMU: EventTraceProfileCounterListInformation -> "
	       "%#x\n", st);
	GUEST_ASSERT_EQ(st, (ULONG)STATUS_INVALID_PARAMETER);
	st = TraceSetInformation(lg, TraceProfileSourceConfigInfo, src, 0);
	printf("ntpmu_etw: no architectural PMU: TraceProfileSourceConfigInfo -> %u\n", st);
	GUEST_ASSERT_EQ(st, ERROR_INVALID_PARAMETER);
	GUEST_ASSERT_EQ(PerfEnumerateCounterSet(NULL, NULL, 0, &n), ERROR_SUCCESS);
	st = PerfEnumerateCounterSetInstances(NULL, &g, NULL, 0, &n);
	printf("ntpmu_etw: no architectural PMU: %u countersets, instances -> %u\n", n, st);
	GUEST_ASSERT_EQ(st, ERROR_WMI_GUID_NOT_FOUND);
	GUEST_ASSERT_EQ(ntpmu_logger_stop(lg), STATUS_SUCCESS);
	test_ok("ntpmu_etw");
	return 0;
}

int main(void)
{
	struct ntpmu_pmu_info info;
	ULONG src[16], prof, list[2], used, lost;
	TRACE_PROFILE_INTERVAL ti;
	const void *buf;
	unsigned int n;
	TRACEHANDLE lg;
	int cpus = rt_smp_start();

	GUEST_ASSERT(cpus >= 1 && cpus <= 2);
	ntpmu_rt_init();
	rt_sched_start_all();
	ntpmu_pmu_info(&info);
	printf("ntpmu_etw: pmu version %u, %u gp counters, %d cpus\n", info.version, info.nr_gp,
	       cpus);
	if (!info.version)
		return no_pmu();
	user_mode_init(cpus);

	GUEST_ASSERT_EQ(ntpmu_logger_start(KERNEL_LOGGER_NAMEW, 0, LOGGER_BYTES,
					   TRACELOG_GUID_ENABLE, &lg), STATUS_SUCCESS);
	n = list_sources(src, 16);
	GUEST_ASSERT(n >= 2);
	/*
	 * Cycles where the PMU has them: pmuvm counts instructions by single-
	 * stepping CPL0 code, which the whole kernel side would pay for.
	 */
	prof = has(src, n, ProfileUnhaltedCoreCycles) ? ProfileUnhaltedCoreCycles : src[0];
	if (has(src, n, ProfileTotalCycles) && has(src, n, ProfileUnhaltedReferenceCycles)) {
		list[0] = ProfileTotalCycles;
		list[1] = ProfileUnhaltedReferenceCycles;
	} else if (has(src, n, ProfileTotalCycles) && has(src, n, ProfileUnhaltedCoreCycles)) {
		/* AMD has no reference cycles: both of its cycle sources. */
		list[0] = ProfileTotalCycles;
		list[1] = ProfileUnhaltedCoreCycles;
	} else {
		list[0] = src[0];
		list[1] = src[1];
	}

	ti = (TRACE_PROFILE_INTERVAL){ prof, SAMPLE_INTERVAL };
	GUEST_ASSERT_EQ(TraceSetInformation(0, TraceSampledProfileIntervalInfo, &ti, 8),
			ERROR_SUCCESS);
	/*
	 * Counter list and event list before the profile source: sampling
	 * starts with the source, and a PMC sample logged before the event
	 * names it would carry no counter values.
	 */
	GUEST_ASSERT_EQ(TraceSetInformation(lg, TracePmcCounterListInfo, list, 8), ERROR_SUCCESS);
	set_event_list(lg);
	GUEST_ASSERT_EQ(TraceSetInformation(lg, TraceProfileSourceConfigInfo, &prof, 4),
			ERROR_SUCCESS);
	/* once per logger (docs/windows-api.md 4.2, class 9) */
	GUEST_ASSERT_EQ(TraceSetInformation(lg, TracePmcCounterListInfo, list, 8),
			ERROR_WMI_ALREADY_ENABLED);
	printf("ntpmu_etw: profile source %u every %u, counter list %u %u\n", prof,
	       SAMPLE_INTERVAL, list[0], list[1]);

	run_workers(cpus);

	GUEST_ASSERT_EQ(ntpmu_logger_buffer(lg, &buf, &used, &lost), STATUS_SUCCESS);
	printf("ntpmu_etw: logger buffer %u bytes, %u records lost\n", used, lost);
	profile(buf, used, prof);
	cswitches(buf, used, 2, cpus);
	GUEST_ASSERT_EQ(ntpmu_logger_stop(lg), STATUS_SUCCESS);

	perflib(cpus);
	test_ok("ntpmu_etw");
	return 0;
}
