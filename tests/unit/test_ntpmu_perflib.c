/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Perflib V2 consumer API on the fake platform: the counterset of hardware
 * counters, PERF_COUNTER_IDENTIFIER blocks (docs/windows-api.md 6.3) including hostile
 * ones in exact-size heap buffers (ASan sees any access outside), result
 * layouts and the ERROR_NOT_ENOUGH_MEMORY sizing protocol (docs/windows-api.md 6).
 */
#include <stdlib.h>
#include <string.h>

#include "suite.h"
#include "nt/ntddk.h"
#include "nt/perflib.h"
#include "ntpmu_fake.h"
#include "ntpmu_clock.h"
#include "ntpmu_perf_blocks.h"

#define NOID	0xFFFFFFFFu

static struct fake_platform f;
static const GUID set = NTPMU_PERF_COUNTERSET_GUID;
static const GUID other = { 1, 2, 3, { 4 } };

static size_t wl(const WCHAR *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* Append a block to buf (8-aligned) at *off: exact Size unless size != 0. */
static PERF_COUNTER_IDENTIFIER *put_block(void *buf, size_t *off, const GUID *g, ULONG counter,
					  ULONG instance, const WCHAR *name, ULONG size)
{
	PERF_COUNTER_IDENTIFIER *id = (PERF_COUNTER_IDENTIFIER *)((uint8_t *)buf + *off);
	ULONG exact = ntpmu_perf_block_size(name ? wl(name) : 0, name != NULL);

	memset(id, 0, exact);
	id->CounterSetGuid = *g;
	id->Status = 0xdead;
	id->Size = size ? size : exact;
	id->CounterId = counter;
	id->InstanceId = instance;
	if (name)
		memcpy(id + 1, name, (wl(name) + 1) * 2);
	*off += id->Size;
	return id;
}

static HANDLE open_query(void)
{
	HANDLE h = NULL;

	ck_assert_uint_eq(PerfOpenQueryHandle(NULL, &h), ERROR_SUCCESS);
	ck_assert_ptr_nonnull(h);
	return h;
}

static ULONG add1(HANDLE q, ULONG counter, ULONG instance, const WCHAR *name)
{
	uint64_t buf[(0x28 + 2 * 1100) / 8 + 1];
	size_t off = 0;
	PERF_COUNTER_IDENTIFIER *id = put_block(buf, &off, &set, counter, instance, name, 0);

	ck_assert_uint_eq(PerfAddCounters(q, id, (DWORD)off), ERROR_SUCCESS);
	return id->Status;
}

START_TEST(test_perf_enumerate)
{
	GUID g[2];
	DWORD n = 99, need = 0;
	uint8_t *buf;
	const PERF_INSTANCE_HEADER *ih;

	fake_init(&f, 5, 2);
	ck_assert_uint_eq(PerfEnumerateCounterSet(NULL, NULL, 0, &n), ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(PerfEnumerateCounterSet(NULL, NULL, 1, &n), ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(PerfEnumerateCounterSet(NULL, g, 2, NULL), ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(PerfEnumerateCounterSet(u"server", g, 2, &n), ERROR_NOT_SUPPORTED);
	ck_assert_uint_eq(PerfEnumerateCounterSet(u"", g, 2, &n), ERROR_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_mem_eq(&g[0], &set, sizeof(set));

	ck_assert_uint_eq(PerfEnumerateCounterSetInstances(NULL, &other, NULL, 0, &need),
			  ERROR_WMI_GUID_NOT_FOUND);
	ck_assert_uint_eq(PerfEnumerateCounterSetInstances(NULL, NULL, NULL, 0, &need),
			  ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(PerfEnumerateCounterSetInstances(NULL, &set, NULL, 0, &need),
			  ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_uint_eq(need, 32);
	buf = malloc(need);
	ck_assert_uint_eq(PerfEnumerateCounterSetInstances(NULL, &set,
							   (PPERF_INSTANCE_HEADER)buf, need - 8,
							   &n), ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_uint_eq(PerfEnumerateCounterSetInstances(NULL, &set, (PPERF_INSTANCE_HEADER)buf,
							   need, &n), ERROR_SUCCESS);
	ck_assert_uint_eq(n, 32);
	for (unsigned int i = 0; i < 2; i++) {
		ih = (const PERF_INSTANCE_HEADER *)(buf + 16 * i);
		ck_assert_uint_eq(ih->Size, 16);
		ck_assert_uint_eq(ih->InstanceId, i);
		ck_assert_uint_eq(((const WCHAR *)(ih + 1))[0], u'0' + i);
		ck_assert_uint_eq(((const WCHAR *)(ih + 1))[1], 0);
	}
	free(buf);
	fake_exit(&f);
}
END_TEST

START_TEST(test_perf_no_pmu)
{
	DWORD n = 99;
	HANDLE q;

	fake_init(&f, 0, 1);
	ck_assert_uint_eq(PerfEnumerateCounterSet(NULL, NULL, 0, &n), ERROR_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(PerfEnumerateCounterSetInstances(NULL, &set, NULL, 0, &n),
			  ERROR_WMI_GUID_NOT_FOUND);
	q = open_query();
	ck_assert_uint_eq(add1(q, 1, NOID, u"*"), ERROR_WMI_GUID_NOT_FOUND);
	ck_assert_uint_eq(PerfCloseQueryHandle(q), ERROR_SUCCESS);
	fake_exit(&f);
}
END_TEST

START_TEST(test_perf_handles)
{
	uint64_t junk[8] = { 0 };
	HANDLE q;
	DWORD n;
	int live;

	fake_init(&f, 5, 1);
	ck_assert_uint_eq(PerfOpenQueryHandle(NULL, NULL), ERROR_INVALID_PARAMETER);
	q = (HANDLE)junk;
	ck_assert_uint_eq(PerfOpenQueryHandle(u"remote", &q), ERROR_NOT_SUPPORTED);
	ck_assert_ptr_null(q);
	live = f.live_allocs;
	f.alloc_fail_in = 1;
	ck_assert_uint_eq(PerfOpenQueryHandle(NULL, &q), ERROR_NOT_ENOUGH_MEMORY);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(f.live_allocs, live);
	ck_assert_uint_eq(PerfCloseQueryHandle(junk), ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(PerfAddCounters(junk, (PPERF_COUNTER_IDENTIFIER)junk, 0x28),
			  ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(PerfDeleteCounters(NULL, (PPERF_COUNTER_IDENTIFIER)junk, 0x28),
			  ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(PerfQueryCounterInfo(junk, NULL, 0, &n), ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(PerfQueryCounterData(junk, NULL, 0, &n), ERROR_INVALID_HANDLE);
	q = open_query();
	ck_assert_uint_eq(PerfQueryCounterInfo(q, NULL, 0, NULL), ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(PerfQueryCounterInfo(q, NULL, 8, &n), ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(PerfQueryCounterData(q, NULL, 0, NULL), ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(PerfQueryCounterInfo(q, NULL, 0, &n), ERROR_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(PerfCloseQueryHandle(q), ERROR_SUCCESS);
	ck_assert_uint_eq(PerfCloseQueryHandle(q), ERROR_INVALID_HANDLE);
	fake_exit(&f);
}
END_TEST

/* Statuses written per block, in the documented order. */
START_TEST(test_perf_add_statuses)
{
	uint64_t buf[128] = { 0 };
	size_t off = 0;
	PERF_COUNTER_IDENTIFIER *b[10];
	HANDLE q;
	int live;

	fake_init(&f, 5, 2);
	q = open_query();
	b[0] = put_block(buf, &off, &set, 1, NOID, u"*", 0);
	b[1] = put_block(buf, &off, &other, 1, NOID, u"*", 0);	/* unknown set */
	b[2] = put_block(buf, &off, &set, 1, NOID, NULL, 0);	/* no name */
	b[3] = put_block(buf, &off, &set, 99, NOID, u"0", 0);	/* no counter 99 */
	b[4] = put_block(buf, &off, &set, 1, NOID, u"*", 0);	/* duplicate of b[0] */
	b[5] = put_block(buf, &off, &set, 1, NOID, u"1", 0);
	b[5]->Reserved = 1;
	b[6] = put_block(buf, &off, &set, PERF_WILDCARD_COUNTER, 0, u"0", 0x38);	/* extra padding */
	b[7] = put_block(buf, &off, &set, PERF_WILDCARD_COUNTER, 0, u"0", 0);
	b[8] = put_block(buf, &off, &other, 99, NOID, NULL, 0);
	b[8]->Reserved = 2;	/* the block's own fields come first */
	b[9] = put_block(buf, &off, &set, 1, NOID, u"", 0);	/* empty name */
	ck_assert_uint_le(off, sizeof(buf));
	ck_assert_uint_eq(PerfAddCounters(q, (PPERF_COUNTER_IDENTIFIER)buf, (DWORD)off),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(b[0]->Status, ERROR_SUCCESS);
	ck_assert_uint_eq(b[1]->Status, ERROR_WMI_GUID_NOT_FOUND);
	ck_assert_uint_eq(b[2]->Status, ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(b[3]->Status, ERROR_NOT_FOUND);
	ck_assert_uint_eq(b[4]->Status, ERROR_ALREADY_EXISTS);
	ck_assert_uint_eq(b[5]->Status, ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(b[6]->Status, ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(b[7]->Status, ERROR_SUCCESS);
	ck_assert_uint_eq(b[8]->Status, ERROR_INVALID_PARAMETER);
	ck_assert_uint_eq(b[9]->Status, ERROR_INVALID_PARAMETER);

	/* out of memory: that block only */
	live = f.live_allocs;
	f.alloc_fail_in = 1;
	ck_assert_uint_eq(add1(q, 2, NOID, u"*"), ERROR_NOT_ENOUGH_MEMORY);
	f.alloc_fail_in = 0;
	ck_assert_int_eq(f.live_allocs, live);

	/* delete: present once, then not found */
	off = 0;
	b[0] = put_block(buf, &off, &set, 1, NOID, u"*", 0);
	b[1] = put_block(buf, &off, &set, 1, NOID, u"*", 0);
	b[2] = put_block(buf, &off, &set, 1, 5, u"*", 0);
	ck_assert_uint_eq(PerfDeleteCounters(q, (PPERF_COUNTER_IDENTIFIER)buf, (DWORD)off),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(b[0]->Status, ERROR_SUCCESS);
	ck_assert_uint_eq(b[1]->Status, ERROR_NOT_FOUND);
	ck_assert_uint_eq(b[2]->Status, ERROR_NOT_FOUND);
	ck_assert_int_eq(f.live_allocs, live - 1);
	fake_exit(&f);
}
END_TEST

/* Malformed sequences: the call fails and no block is touched. */
START_TEST(test_perf_hostile_sequences)
{
	static const struct {
		ULONG size0;		/* first block's Size */
		size_t cb;		/* bytes given */
		size_t alloc;		/* bytes of the heap buffer */
	} cases[] = {
		{ 0x28, 0x20, 0x20 },	/* truncated: less than one structure */
		{ 0x28, 0x28 + 0x10, 0x38 },	/* trailing partial block */
		{ 0, 0x28, 0x28 },	/* Size 0 would loop forever */
		{ 0x20, 0x28, 0x28 },	/* Size below the structure */
		{ 0x2c, 0x30, 0x30 },	/* Size not a multiple of 8 */
		{ 0x30, 0x28, 0x28 },	/* Size past the end */
		{ 0xFFFFFFF8u, 0x28, 0x28 },	/* Size past the end, near 4 GiB */
	};
	HANDLE q;

	fake_init(&f, 5, 1);
	q = open_query();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *buf = calloc(1, cases[i].alloc);
		PERF_COUNTER_IDENTIFIER *id = (PERF_COUNTER_IDENTIFIER *)buf;

		if (cases[i].alloc >= 0x18) {
			id->Status = 0xdead;
			id->Size = cases[i].size0;
		}
		ck_assert_msg(PerfAddCounters(q, id, (DWORD)cases[i].cb) == ERROR_INVALID_PARAMETER,
			      "case %zu", i);
		ck_assert_msg(PerfDeleteCounters(q, id, (DWORD)cases[i].cb) ==
			      ERROR_INVALID_PARAMETER, "case %zu", i);
		if (cases[i].alloc >= 0x18)
			ck_assert_uint_eq(id->Status, 0xdead);
		free(buf);
	}
	ck_assert_uint_eq(PerfAddCounters(q, NULL, 0x28), ERROR_INVALID_PARAMETER);
	{
		/* unaligned blocks */
		uint64_t raw[12] = { 0 };
		PERF_COUNTER_IDENTIFIER *id = (PERF_COUNTER_IDENTIFIER *)((uint8_t *)raw + 4);

		ck_assert_uint_eq(PerfAddCounters(q, id, 0x28), ERROR_INVALID_PARAMETER);
	}
	fake_exit(&f);
}
END_TEST

/* Names: unterminated to the last byte, oversized, the largest allowed. */
START_TEST(test_perf_hostile_names)
{
	HANDLE q;
	size_t len;

	fake_init(&f, 5, 1);
	q = open_query();
	for (len = 1; len <= 9; len++) {
		/* a block whose name fills it with no NUL, in an exact-size buffer */
		size_t size = (0x28 + len * 2 + 7) & ~(size_t)7;
		PERF_COUNTER_IDENTIFIER *id = malloc(size);

		memset(id, 0, size);
		id->CounterSetGuid = set;
		id->Size = (ULONG)size;
		id->InstanceId = NOID;
		for (size_t i = 0; i < (size - 0x28) / 2; i++)
			((WCHAR *)(id + 1))[i] = u'7';
		ck_assert_uint_eq(PerfAddCounters(q, id, (DWORD)size), ERROR_SUCCESS);
		ck_assert_uint_eq(id->Status, ERROR_INVALID_PARAMETER);
		free(id);
	}
	for (len = PERF_MAX_INSTANCE_NAME - 2; len <= PERF_MAX_INSTANCE_NAME + 1; len++) {
		size_t size = ntpmu_perf_block_size(len, true);
		PERF_COUNTER_IDENTIFIER *id = calloc(1, size);

		id->CounterSetGuid = set;
		id->Size = (ULONG)size;
		id->InstanceId = NOID;
		for (size_t i = 0; i < len; i++)
			((WCHAR *)(id + 1))[i] = u'9';
		ck_assert_uint_eq(PerfAddCounters(q, id, (DWORD)size), ERROR_SUCCESS);
		/* the name and its NUL must fit PERF_MAX_INSTANCE_NAME units */
		ck_assert_uint_eq(id->Status, len + 1 <= PERF_MAX_INSTANCE_NAME ?
				  ERROR_SUCCESS : ERROR_INVALID_PARAMETER);
		free(id);
	}
	fake_exit(&f);
}
END_TEST

START_TEST(test_perf_counter_info)
{
	DWORD need = 0, n;
	uint8_t *buf;
	const PERF_COUNTER_IDENTIFIER *id;
	HANDLE q;

	fake_init(&f, 5, 2);
	q = open_query();
	ck_assert_uint_eq(add1(q, 1, NOID, u"0"), ERROR_SUCCESS);
	ck_assert_uint_eq(add1(q, PERF_WILDCARD_COUNTER, 1, u"_Total1"), ERROR_SUCCESS);
	ck_assert_uint_eq(PerfQueryCounterInfo(q, NULL, 0, &need), ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_uint_eq(need, 0x30 + 0x38);
	buf = malloc(need);
	ck_assert_uint_eq(PerfQueryCounterInfo(q, (PPERF_COUNTER_IDENTIFIER)buf, need - 1, &n),
			  ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_uint_eq(n, need);
	ck_assert_uint_eq(PerfQueryCounterInfo(q, (PPERF_COUNTER_IDENTIFIER)buf, need, &n),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(n, need);
	id = (const PERF_COUNTER_IDENTIFIER *)buf;
	ck_assert_mem_eq(&id->CounterSetGuid, &set, sizeof(set));
	ck_assert_uint_eq(id->Size, 0x30);
	ck_assert_uint_eq(id->CounterId, 1);
	ck_assert_uint_eq(id->InstanceId, NOID);
	ck_assert_uint_eq(id->Index, 0);
	ck_assert_uint_eq(id->Status, 0);
	ck_assert_uint_eq(id->Reserved, 0);
	ck_assert_mem_eq(id + 1, u"0\0\0", 8);
	id = (const PERF_COUNTER_IDENTIFIER *)(buf + 0x30);
	ck_assert_uint_eq(id->Size, 0x38);
	ck_assert_uint_eq(id->CounterId, PERF_WILDCARD_COUNTER);
	ck_assert_uint_eq(id->InstanceId, 1);
	ck_assert_uint_eq(id->Index, 1);
	ck_assert_mem_eq(id + 1, u"_Total1", 16);
	free(buf);
	fake_exit(&f);
}
END_TEST

/* Bounds-checked reads from a result buffer. */
struct rd {
	const uint8_t *p;
	size_t len, off;
};

static const void *take(struct rd *r, size_t n)
{
	const void *p = r->p + r->off;

	ck_assert_uint_le(r->off + n, r->len);
	r->off += n;
	return p;
}

static uint64_t take_value(struct rd *r)
{
	const PERF_COUNTER_DATA *d = take(r, sizeof(*d));

	ck_assert_uint_eq(d->dwDataSize, 8);
	ck_assert_uint_eq(d->dwSize, 16);
	return *(const uint64_t *)take(r, 8);
}

static void take_counter_ids(struct rd *r, unsigned int n)
{
	const PERF_MULTI_COUNTERS *mc = take(r, sizeof(*mc));
	const DWORD *ids;

	ck_assert_uint_eq(mc->dwCounters, n);
	ck_assert_uint_eq(mc->dwSize, 8 + ((n * 4 + 7) & ~7u));
	ids = take(r, mc->dwSize - 8);
	for (unsigned int i = 0; i < n; i++)
		ck_assert_uint_eq(ids[i], i);
}

static void take_instance(struct rd *r, unsigned int cpu)
{
	const PERF_INSTANCE_HEADER *ih = take(r, sizeof(*ih));
	const WCHAR *name = take(r, 8);

	ck_assert_uint_eq(ih->Size, 16);
	ck_assert_uint_eq(ih->InstanceId, cpu);
	ck_assert_uint_eq(name[0], u'0' + cpu);
	ck_assert_uint_eq(name[1], 0);
}

static const PERF_COUNTER_HEADER *take_header(struct rd *r, PerfCounterDataType type,
					      ULONG size)
{
	const PERF_COUNTER_HEADER *h = take(r, sizeof(*h));

	ck_assert_uint_eq(h->dwType, type);
	ck_assert_uint_eq(h->dwSize, size);
	return h;
}

START_TEST(test_perf_counter_data)
{
	/* per processor: instructions, branches; other events 0 */
	static const uint64_t val[2][8] = { { 0, 1000, 0, 0, 0, 10, 0, 0 },
					    { 0, 2000, 0, 0, 0, 20, 0, 0 } };
	DWORD need = 0, n;
	uint8_t *buf;
	struct rd r;
	const PERF_DATA_HEADER *dh;
	const PERF_MULTI_INSTANCES *mi;
	HANDLE q;
	unsigned int i;

	fake_init(&f, 5, 2);
	f.tsc = 777;
	q = open_query();
	ck_assert_uint_eq(add1(q, 1, NOID, u"0"), ERROR_SUCCESS);		/* single */
	ck_assert_uint_eq(add1(q, PERF_WILDCARD_COUNTER, NOID, u"1"), ERROR_SUCCESS);
	ck_assert_uint_eq(add1(q, 5, NOID, u"*"), ERROR_SUCCESS);		/* instances */
	ck_assert_uint_eq(add1(q, PERF_WILDCARD_COUNTER, 1, u"*"), ERROR_SUCCESS);
	ck_assert_uint_eq(add1(q, 1, NOID, u"7"), ERROR_SUCCESS);		/* no such */
	ck_assert_uint_eq(add1(q, 1, 0, u"1"), ERROR_SUCCESS);		/* ID and name differ */
	f.cur = 0;
	fake_work(&f, PMU_EV_INSTRUCTIONS, 1000);
	fake_work(&f, PMU_EV_BRANCHES, 10);
	f.cur = 1;
	fake_work(&f, PMU_EV_INSTRUCTIONS, 2000);
	fake_work(&f, PMU_EV_BRANCHES, 20);

	ck_assert_uint_eq(PerfQueryCounterData(q, NULL, 0, &need), ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_uint_eq(need, 0x30 + 32 + 184 + 88 + 208 + 16 + 16);
	buf = malloc(need);
	ck_assert_uint_eq(PerfQueryCounterData(q, (PPERF_DATA_HEADER)buf, need - 8, &n),
			  ERROR_NOT_ENOUGH_MEMORY);
	ck_assert_uint_eq(n, need);
	f.alloc_fail_in = 1;
	ck_assert_uint_eq(PerfQueryCounterData(q, (PPERF_DATA_HEADER)buf, need, &n),
			  ERROR_NOT_ENOUGH_MEMORY);
	f.alloc_fail_in = 0;
	ck_assert_uint_eq(PerfQueryCounterData(q, (PPERF_DATA_HEADER)buf, need, &n),
			  ERROR_SUCCESS);
	ck_assert_uint_eq(n, need);

	r = (struct rd){ .p = buf, .len = need };
	dh = take(&r, sizeof(*dh));
	ck_assert_uint_eq(dh->dwTotalSize, need);
	ck_assert_uint_eq(dh->dwNumCounters, 6);
	ck_assert_int_eq(dh->PerfTimeStamp, 777);
	/* the fake's CPUID stops at 0xd: no TSC frequency, no time */
	ck_assert_int_eq(dh->PerfFreq, 0);
	ck_assert_int_eq(dh->PerfTime100NSec, 0);
	ck_assert_uint_eq(dh->SystemTime.wYear, 0);
	ck_assert_uint_eq(dh->SystemTime.wDay, 0);

	take_header(&r, PERF_SINGLE_COUNTER, 32);
	ck_assert_uint_eq(take_value(&r), 1000);

	take_header(&r, PERF_MULTIPLE_COUNTERS, 184);
	take_counter_ids(&r, 8);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(take_value(&r), val[1][i]);

	take_header(&r, PERF_MULTIPLE_INSTANCES, 88);
	mi = take(&r, sizeof(*mi));
	ck_assert_uint_eq(mi->dwTotalSize, 72);
	ck_assert_uint_eq(mi->dwInstances, 2);
	for (i = 0; i < 2; i++) {
		take_instance(&r, i);
		ck_assert_uint_eq(take_value(&r), val[i][5]);
	}

	take_header(&r, PERF_COUNTERSET, 208);
	take_counter_ids(&r, 8);
	mi = take(&r, sizeof(*mi));
	ck_assert_uint_eq(mi->dwTotalSize, 8 + 16 + 128);
	ck_assert_uint_eq(mi->dwInstances, 1);
	take_instance(&r, 1);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(take_value(&r), val[1][i]);

	ck_assert_uint_eq(take_header(&r, PERF_ERROR_RETURN, 16)->dwStatus,
			  ERROR_WMI_INSTANCE_NOT_FOUND);
	ck_assert_uint_eq(take_header(&r, PERF_ERROR_RETURN, 16)->dwStatus,
			  ERROR_WMI_INSTANCE_NOT_FOUND);
	ck_assert_uint_eq(r.off, need);
	free(buf);
	fake_exit(&f);
}
END_TEST

/* The provider's counters are HAL grants: shared with drivers and ETW. */
START_TEST(test_perf_counters_arbitrated)
{
	HANDLE full, q, q2;

	fake_init(&f, 5, 2);
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, NULL, &full), STATUS_SUCCESS);
	q = (HANDLE)1;
	ck_assert_uint_eq(PerfOpenQueryHandle(NULL, &q), ERROR_NO_SYSTEM_RESOURCES);
	ck_assert_ptr_null(q);
	ck_assert_int_eq(HalFreeHardwareCounters(full), STATUS_SUCCESS);
	q = open_query();
	q2 = open_query();
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, NULL, &full),
			 STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_uint_eq(PerfCloseQueryHandle(q), ERROR_SUCCESS);
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, NULL, &full),
			 STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_uint_eq(PerfCloseQueryHandle(q2), ERROR_SUCCESS);
	ck_assert_int_eq(HalAllocateHardwareCounters(NULL, 0, NULL, &full), STATUS_SUCCESS);
	fake_exit(&f);
}
END_TEST

/* Fewer GP counters than events: the set has the first ones only. */
START_TEST(test_perf_few_counters)
{
	HANDLE q;

	struct vpmu_config cfg;

	fake_init(&f, 5, 1);
	ntpmu_exit();
	vpmu_config_default(&cfg, 5);
	cfg.nr_gp = 2;
	cfg.available_events &= ~(1u << PMU_EV_CORE_CYCLES);
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&f.pmu[0], &cfg);
	ntpmu_init(&fake_ops, &f);
	q = open_query();
	ck_assert_uint_eq(add1(q, PMU_EV_INSTRUCTIONS, NOID, u"0"), ERROR_SUCCESS);
	ck_assert_uint_eq(add1(q, PMU_EV_REF_CYCLES, NOID, u"0"), ERROR_SUCCESS);
	ck_assert_uint_eq(add1(q, PMU_EV_CORE_CYCLES, NOID, u"0"), ERROR_NOT_FOUND);
	ck_assert_uint_eq(add1(q, PMU_EV_LLC_REFERENCES, NOID, u"0"), ERROR_NOT_FOUND);
	fake_exit(&f);
}
END_TEST

/* Only the PERF_DATA_HEADER of a query with one counter. */
static PERF_DATA_HEADER query_header(void)
{
	uint8_t buf[256];
	PERF_DATA_HEADER h;
	DWORD n;
	HANDLE q = open_query();

	ck_assert_uint_eq(add1(q, 1, NOID, u"0"), ERROR_SUCCESS);
	ck_assert_uint_eq(PerfQueryCounterData(q, (PPERF_DATA_HEADER)buf, sizeof(buf), &n),
			  ERROR_SUCCESS);
	memcpy(&h, buf, sizeof(h));
	ck_assert_uint_eq(PerfCloseQueryHandle(q), ERROR_SUCCESS);
	return h;
}

/* PerfFreq from CPUID 15H (crystal * EBX / EAX), else the tsc_hz op, else 16H, else 0. */
START_TEST(test_perf_clock)
{
	PERF_DATA_HEADER h;

	fake_init(&f, 5, 1);
	f.max_leaf = 0x16;
	/* 24 MHz crystal * 125 / 2 = 1.5 GHz; 16H would say 3 GHz */
	f.leaf15[0] = 2;
	f.leaf15[1] = 125;
	f.leaf15[2] = 24000000;
	f.leaf16 = 3000;
	/* 2 days 1:01:01.5 after reset */
	f.tsc = 1500000000ull * (2 * 86400 + 3661) + 750000000ull;
	h = query_header();
	ck_assert_int_eq(h.PerfTimeStamp, (LONGLONG)f.tsc);
	ck_assert_int_eq(h.PerfFreq, 1500000000);
	ck_assert_int_eq(h.PerfTime100NSec, (2 * 86400 + 3661) * 10000000ll + 5000000);
	ck_assert_uint_eq(h.SystemTime.wYear, 1601);
	ck_assert_uint_eq(h.SystemTime.wMonth, 1);
	ck_assert_uint_eq(h.SystemTime.wDay, 3);
	ck_assert_uint_eq(h.SystemTime.wDayOfWeek, 3);		/* Wednesday */
	ck_assert_uint_eq(h.SystemTime.wHour, 1);
	ck_assert_uint_eq(h.SystemTime.wMinute, 1);
	ck_assert_uint_eq(h.SystemTime.wSecond, 1);
	ck_assert_uint_eq(h.SystemTime.wMilliseconds, 500);
	/* the TSC moves on: so do the times */
	f.tsc += 1500000;
	h = query_header();
	ck_assert_int_eq(h.PerfTime100NSec, (2 * 86400 + 3661) * 10000000ll + 5010000);
	ck_assert_uint_eq(h.SystemTime.wMilliseconds, 501);

	/* 15H without the crystal: the platform op before 16H */
	f.leaf15[2] = 0;
	f.tsc_hz = 2445000000ull;
	f.tsc = 2445000000ull * 7;
	h = query_header();
	ck_assert_int_eq(h.PerfFreq, 2445000000ll);
	ck_assert_int_eq(h.PerfTime100NSec, 70000000);
	f.tsc_hz = 0;
	/* then 16H's base frequency */
	f.tsc = 3000000000ull * 5;
	h = query_header();
	ck_assert_int_eq(h.PerfFreq, 3000000000ll);
	ck_assert_int_eq(h.PerfTime100NSec, 50000000);
	ck_assert_uint_eq(h.SystemTime.wSecond, 5);
	ck_assert_uint_eq(h.SystemTime.wDayOfWeek, 1);		/* 1601-01-01: Monday */

	/* neither: unknown, all 0 */
	f.leaf16 = 0;
	h = query_header();
	ck_assert_int_eq(h.PerfTimeStamp, (LONGLONG)f.tsc);
	ck_assert_int_eq(h.PerfFreq, 0);
	ck_assert_int_eq(h.PerfTime100NSec, 0);
	ck_assert_uint_eq(h.SystemTime.wYear, 0);
	ck_assert_uint_eq(h.SystemTime.wMonth, 0);
	/* a max leaf below 15H is not asked */
	f.max_leaf = 0x14;
	f.leaf15[2] = 24000000;
	f.leaf16 = 3000;
	h = query_header();
	ck_assert_int_eq(h.PerfFreq, 0);
	fake_exit(&f);
}
END_TEST

/* The calendar, leap rules included (values from Python's datetime). */
START_TEST(test_perf_systemtime)
{
	static const struct {
		uint64_t ft;
		uint16_t st[8];
	} c[] = {
		{ 125963424000000000ull, { 2000, 3, 3, 1, 0, 0, 0, 0 } },
		{ 133537247989990000ull, { 2024, 2, 4, 29, 23, 59, 58, 999 } },
		{ 94669776000000000ull, { 1900, 12, 1, 31, 12, 0, 0, 0 } },
		{ 0, { 1601, 1, 1, 1, 0, 0, 0, 0 } },
	};
	uint16_t st[8];

	for (unsigned int i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ntpmu_filetime_to_systemtime(c[i].ft, st);
		for (unsigned int k = 0; k < 8; k++)
			ck_assert_uint_eq(st[k], c[i].st[k]);
	}
	ck_assert_uint_eq(ntpmu_tsc_to_100ns(~0ull, 1000000000), 184467440737095516ull);
	ck_assert_uint_eq(ntpmu_tsc_to_100ns(123, 0), 0);
}
END_TEST

static Suite *ntpmu_perflib_suite(void)
{
	Suite *s = suite_create("ntpmu_perflib");
	TCase *tc = tcase_create("perflib");

	tcase_add_test(tc, test_perf_enumerate);
	tcase_add_test(tc, test_perf_no_pmu);
	tcase_add_test(tc, test_perf_handles);
	tcase_add_test(tc, test_perf_add_statuses);
	tcase_add_test(tc, test_perf_hostile_sequences);
	tcase_add_test(tc, test_perf_hostile_names);
	tcase_add_test(tc, test_perf_counter_info);
	tcase_add_test(tc, test_perf_counter_data);
	tcase_add_test(tc, test_perf_counters_arbitrated);
	tcase_add_test(tc, test_perf_few_counters);
	tcase_add_test(tc, test_perf_clock);
	tcase_add_test(tc, test_perf_systemtime);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_perflib_suite)
