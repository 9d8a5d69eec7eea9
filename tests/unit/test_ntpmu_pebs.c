/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NtSetSystemInformation(SystemProcessorProfileControlArea)
 * (docs/windows-api.md 5): every status code, on the fake platform whose vPMUs
 * offer PEBS; and the reader turning records of each format into samples.
 */
#include <string.h>

#include "suite.h"
#include "nt/ntexapi.h"
#include "ntpmu_fake.h"
#include "pebs/pebs.h"
#include <ntpmu/pebs.h>

static struct fake_platform f;

/* The fake's vPMUs, rebuilt with PEBS record format `fmt` (0: none). */
static void init_pebs(unsigned int fmt, unsigned int nr_cpus)
{
	struct vpmu_config cfg;

	fake_init(&f, 5, nr_cpus);
	if (!fmt)
		return;
	vpmu_config_default(&cfg, 5);
	cfg.pebs = true;
	cfg.pebs_format = fmt;
	cfg.pebs_baseline = fmt >= 4;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	for (unsigned int c = 0; c < nr_cpus; c++)
		vpmu_init(&f.pmu[c], &cfg);
}

static NTSTATUS call(SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA *s, BOOLEAN allocate)
{
	s->Allocate = allocate;
	return NtSetSystemInformation(SystemProcessorProfileControlArea, s, sizeof(*s));
}

#define JUNK_AREA	((PPROCESSOR_PROFILE_CONTROL_AREA)(uintptr_t)0x1234)

START_TEST(test_allocate_exists_free)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { JUNK_AREA, 0 }, t = { JUNK_AREA, 0 };
	static const uint8_t zero[sizeof(PROCESSOR_PROFILE_CONTROL_AREA)];
	PPROCESSOR_PROFILE_CONTROL_AREA a0;

	init_pebs(4, 2);
	ck_assert_int_eq(call(&s, TRUE), STATUS_SUCCESS);
	a0 = s.ProcessorProfileControlArea;
	ck_assert_ptr_nonnull(a0);
	ck_assert_uint_eq((uintptr_t)a0 % 64, 0);
	ck_assert_int_eq(memcmp(a0, zero, sizeof(zero)), 0);
	ck_assert_uint_eq(f.pmu[0].ds_area, (uintptr_t)a0);
	ck_assert_int_eq(f.live_allocs, 1);

	/* Again on the same CPU: the existing area, the new one freed. */
	ck_assert_int_eq(call(&t, TRUE), STATUS_ADDRESS_ALREADY_EXISTS);
	ck_assert_ptr_eq(t.ProcessorProfileControlArea, a0);
	ck_assert_int_eq(f.live_allocs, 1);

	/* Another CPU gets its own. */
	f.cur = 1;
	ck_assert_int_eq(call(&t, TRUE), STATUS_SUCCESS);
	ck_assert_ptr_ne(t.ProcessorProfileControlArea, a0);
	ck_assert_uint_eq(f.pmu[1].ds_area, (uintptr_t)t.ProcessorProfileControlArea);
	ck_assert_uint_eq(f.pmu[0].ds_area, (uintptr_t)a0);
	f.cur = 0;

	/* Freeing detaches: PEBS off, DS_AREA 0, output NULL. */
	ck_assert_int_eq(vpmu_wrmsr(&f.pmu[0], MSR_IA32_PEBS_ENABLE, 1), VPMU_OK);
	s.ProcessorProfileControlArea = JUNK_AREA;
	ck_assert_int_eq(call(&s, FALSE), STATUS_SUCCESS);
	ck_assert_ptr_null(s.ProcessorProfileControlArea);
	ck_assert_uint_eq(f.pmu[0].ds_area, 0);
	ck_assert_uint_eq(f.pmu[0].pebs_enable, 0);
	ck_assert_int_eq(f.live_allocs, 1);

	s.ProcessorProfileControlArea = JUNK_AREA;
	ck_assert_int_eq(call(&s, FALSE), STATUS_MEMORY_NOT_ALLOCATED);
	ck_assert_ptr_null(s.ProcessorProfileControlArea);
	fake_exit(&f);		/* CPU 1's area is freed by ntpmu_exit() */
}
END_TEST

START_TEST(test_insufficient_resources)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { JUNK_AREA, 0 };

	init_pebs(4, 1);
	f.alloc_fail_in = 1;
	ck_assert_int_eq(call(&s, TRUE), STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_ptr_null(s.ProcessorProfileControlArea);
	ck_assert_uint_eq(f.pmu[0].ds_area, 0);
	fake_exit(&f);
}
END_TEST

/* No PEBS (MISC_ENABLE.PEBS_UNAVAILABLE) or no PMU: not supported, nothing kept. */
START_TEST(test_not_supported)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { JUNK_AREA, 0 };

	init_pebs(0, 1);
	ck_assert_int_eq(call(&s, TRUE), STATUS_NOT_SUPPORTED);
	ck_assert_ptr_null(s.ProcessorProfileControlArea);
	ck_assert_int_eq(f.live_allocs, 0);
	fake_exit(&f);

	fake_init(&f, 0, 1);
	ck_assert_int_eq(call(&s, TRUE), STATUS_NOT_SUPPORTED);
	ck_assert_int_eq(f.live_allocs, 0);
	fake_exit(&f);
}
END_TEST

START_TEST(test_bad_class_and_length)
{
	SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA s = { NULL, TRUE };

	init_pebs(4, 1);
	ck_assert_int_eq(NtSetSystemInformation(0x80, &s, sizeof(s)), STATUS_INVALID_INFO_CLASS);
	ck_assert_int_eq(NtSetSystemInformation(SystemProcessorProfileControlArea, &s, 8),
			 STATUS_INFO_LENGTH_MISMATCH);
	ck_assert_int_eq(f.live_allocs, 0);
	fake_exit(&f);
}
END_TEST

static struct pebs_state state(uint64_t ip)
{
	struct pebs_state st;

	memset(&st, 0, sizeof(st));
	st.eventing_ip = ip;
	st.rip = ip + 2;
	st.rflags = 0x46;
	st.tsc = 1000 + ip;
	for (unsigned int i = 0; i < PEBS_NR_GPRS; i++)
		st.gpr[i] = ip * 100 + i;
	return st;
}

/* Records of `fmt` (groups for format >= 4) written back to back, then read. */
START_TEST(test_reader)
{
	unsigned int fmt = (unsigned int)_i;
	uint64_t groups = fmt >= 4 ? PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GPRS : 0;
	static uint8_t buf[4 * PEBS_RECORD_MAX];
	PROCESSOR_PROFILE_CONTROL_AREA area;
	struct ntpmu_pebs_sample smp[4];
	size_t off = 0;
	uint64_t ip;

	init_pebs(fmt, 1);
	for (ip = 0x1000; ip < 0x1003; ip++) {
		struct pebs_state st = state(ip);

		off += pebs_record_build(fmt, ip == 0x1001 ? 0 : groups, &st, 1, buf + off);
	}
	memset(&area, 0, sizeof(area));
	area.PebsDsSaveArea.As64Bit.PebsBufferBase = (uintptr_t)buf;
	area.PebsDsSaveArea.As64Bit.PebsIndex = (uintptr_t)buf + off;
	ck_assert_int_eq(ntpmu_pebs_read(&area, smp, 4), 3);
	for (unsigned int i = 0; i < 3; i++) {
		struct pebs_state st = state(0x1000 + i);
		bool gprs = fmt == 3 || (groups && i != 1);

		ck_assert_uint_eq(smp[i].EventingIp, st.eventing_ip);
		ck_assert_uint_eq(smp[i].Counters, 1);
		ck_assert_uint_eq(smp[i].Tsc, st.tsc);
		ck_assert_int_eq(smp[i].HasGprs, gprs);
		if (!gprs)
			continue;
		ck_assert_uint_eq(smp[i].Ip, st.rip);
		ck_assert_uint_eq(smp[i].Rflags, st.rflags);
		for (unsigned int r = 0; r < 16; r++)
			ck_assert_uint_eq(smp[i].Gpr[r], st.gpr[r]);
	}
	ck_assert_int_eq(ntpmu_pebs_read(&area, smp, 2), 2);
	/* An index in the middle of a record is malformed. */
	area.PebsDsSaveArea.As64Bit.PebsIndex -= 8;
	ck_assert_int_eq(ntpmu_pebs_read(&area, smp, 4), -1);
	fake_exit(&f);
}
END_TEST

static Suite *ntpmu_pebs_suite(void)
{
	Suite *s = suite_create("ntpmu_pebs");
	TCase *tc = tcase_create("control_area");

	tcase_add_test(tc, test_allocate_exists_free);
	tcase_add_test(tc, test_insufficient_resources);
	tcase_add_test(tc, test_not_supported);
	tcase_add_test(tc, test_bad_class_and_length);
	tcase_add_loop_test(tc, test_reader, 3, 6);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(ntpmu_pebs_suite)
