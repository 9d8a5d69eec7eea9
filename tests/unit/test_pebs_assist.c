/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PEBS assist (docs/intel-pmu.md 4.2) against a fake guest RAM with 4-level page
 * tables: records, index, reload, threshold PMI and bit 62, the absolute
 * maximum, and DS pointers that must never lead to a write outside RAM.
 */
#include <stdlib.h>
#include <string.h>

#include "pebs/pebs.h"
#include "suite.h"

#define RAM_SIZE	(16u << 20)
#define P		0x1ULL
#define RW		0x2ULL
#define PML4		0x100000ULL

#define DS_LA		0x400000ULL	/* -> DS_PA */
#define DS_PA		0x200000ULL
#define BUF_LA		0x401000ULL	/* two pages -> BUF_PA */
#define BUF_PA		0x201000ULL
#define RO_LA		0x403000ULL	/* read-only page -> 0x203000 */
#define MMIO_LA		0x404000ULL	/* -> LAPIC page */
#define BEYOND_LA	0x405000ULL	/* -> past the end of RAM */
#define HOLE_LA		0x406000ULL	/* not present */
#define LAST_LA		0x407000ULL	/* mapped; LAST_LA + 0x1000 is the hole above */

static uint8_t *ram;
static struct guest_mem mem;
static struct paging_state ps;
static uint64_t next_table;
static struct vpmu pmu;
static struct pebs_stats stats;
static struct pebs_state st;

static uint64_t new_table(void)
{
	uint64_t t = next_table;

	next_table += 0x1000;
	return t;
}

static uint64_t next_level(uint64_t table, unsigned int idx)
{
	uint64_t e;

	memcpy(&e, ram + table + idx * 8, 8);
	if (!(e & P)) {
		e = new_table() | P | RW;
		memcpy(ram + table + idx * 8, &e, 8);
	}
	return e & ~0xfffULL;
}

static void map4k(uint64_t la, uint64_t pa, uint64_t bits)
{
	uint64_t pdpt = next_level(PML4, (la >> 39) & 0x1ff);
	uint64_t pd = next_level(pdpt, (la >> 30) & 0x1ff);
	uint64_t pt = next_level(pd, (la >> 21) & 0x1ff);
	uint64_t e = pa | bits;

	memcpy(ram + pt + ((la >> 12) & 0x1ff) * 8, &e, 8);
}

static void put(uint64_t pa, uint64_t v)
{
	memcpy(ram + pa, &v, 8);
}

static uint64_t get(uint64_t pa)
{
	uint64_t v;

	memcpy(&v, ram + pa, 8);
	return v;
}

/* A v5 PMU with PEBS `fmt`, GP0 on instructions (OS) with PEBS, preset to -1. */
static void make_pmu(unsigned int fmt)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, 5);
	cfg.pebs = true;
	cfg.pebs_format = fmt;
	cfg.pebs_baseline = fmt >= 4;
	ck_assert_int_eq(vpmu_config_validate(&cfg), 0);
	vpmu_init(&pmu, &cfg);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_DS_AREA, DS_LA), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PMC0, 0xffffffff), VPMU_OK);	/* -1 */
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERFEVTSEL0,
				    EVTSEL_EN | EVTSEL_OS | 0xc0), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PEBS_ENABLE, 1), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 1), VPMU_OK);
}

/* DS management area: buffer of `n` records of `size`, threshold after `thr`. */
static void set_ds(uint64_t base, uint64_t size, unsigned int n, unsigned int thr)
{
	put(DS_PA + DS_PEBS_BASE, base);
	put(DS_PA + DS_PEBS_INDEX, base);
	put(DS_PA + DS_PEBS_ABS_MAX, base + n * size);
	put(DS_PA + DS_PEBS_THRESHOLD, base + thr * size);
	put(DS_PA + DS_PEBS_RESET_GP, -100ULL);
}

static void setup(void)
{
	ram = calloc(1, RAM_SIZE);
	ck_assert_ptr_nonnull(ram);
	guest_mem_layout(&mem, ram, RAM_SIZE);
	next_table = PML4 + 0x1000;
	ps = (struct paging_state){ .cr0 = 0x80010001ULL, .cr3 = PML4, .cr4 = 0x20,
				    .efer = 0x500 };
	map4k(DS_LA, DS_PA, P | RW);
	map4k(BUF_LA, BUF_PA, P | RW);
	map4k(BUF_LA + 0x1000, BUF_PA + 0x1000, P | RW);
	map4k(RO_LA, 0x203000, P);
	map4k(MMIO_LA, 0xfee00000ULL, P | RW);
	map4k(BEYOND_LA, RAM_SIZE + 0x10000, P | RW);
	map4k(LAST_LA, 0x207000, P | RW);
	memset(&stats, 0, sizeof(stats));
	memset(&st, 0, sizeof(st));
	st.rip = 0x1002;
	st.eventing_ip = 0x1000;
	st.gpr[PEBS_RCX] = 7;
	st.tsc = 1234;
}

static void teardown(void)
{
	free(ram);
}

/* One instruction at CPL0: GP0 wraps and arms. */
static void overflow(void)
{
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1, 0);
	ck_assert_uint_eq(pmu.pebs_armed, 1);
	ck_assert_uint_eq(pmu.global_status & 1, 1);
}

START_TEST(test_record_index_reload)
{
	make_pmu(4);
	set_ds(BUF_LA, 0x20, 4, 4);
	overflow();
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_WRITTEN);
	/* Basic-only (no Adaptive_Record): 0x20 bytes. */
	ck_assert_uint_eq(get(BUF_PA), 0x20ULL << 48);
	ck_assert_uint_eq(get(BUF_PA + 8), 0x1000);
	ck_assert_uint_eq(get(BUF_PA + 16), 1);
	ck_assert_uint_eq(get(BUF_PA + 24), 1234);
	ck_assert_uint_eq(get(DS_PA + DS_PEBS_INDEX), BUF_LA + 0x20);
	ck_assert_uint_eq(pmu.gp[0].value, -100ULL & pmu.gp_mask);
	ck_assert_uint_eq(pmu.global_status, 0);
	ck_assert_uint_eq(pmu.pebs_armed, 0);
	ck_assert(!vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(stats.records, 1);
	/* Nothing armed: nothing happens. */
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_NONE);
	ck_assert_uint_eq(get(DS_PA + DS_PEBS_INDEX), BUF_LA + 0x20);
}
END_TEST

/* Only PEBS-enabled counters arm; the others just overflow. */
START_TEST(test_only_pebs_counters_arm)
{
	make_pmu(4);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PEBS_ENABLE, 0), VPMU_OK);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1, 0);
	ck_assert_uint_eq(pmu.global_status, 1);
	ck_assert_uint_eq(pmu.pebs_armed, 0);
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_NONE);
}
END_TEST

START_TEST(test_threshold_pmi)
{
	make_pmu(4);
	set_ds(BUF_LA, 0x20, 4, 2);
	overflow();
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_WRITTEN);
	ck_assert(!vpmu_take_pmi(&pmu));
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PMC0, 0xffffffff), VPMU_OK);
	overflow();
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_WRITTEN);
	ck_assert_uint_eq(get(DS_PA + DS_PEBS_INDEX), BUF_LA + 0x40);
	ck_assert(vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(pmu.global_status, GLOBAL_STATUS_BUFFER_OVF);
	ck_assert_uint_eq(stats.threshold_pmis, 1);
}
END_TEST

/* docs/intel-pmu.md 4.2 step 3: at the absolute maximum nothing is written, no signal. */
START_TEST(test_absolute_maximum)
{
	make_pmu(4);
	set_ds(BUF_LA, 0x20, 1, 1);
	put(DS_PA + DS_PEBS_INDEX, BUF_LA + 0x20);
	overflow();
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_FULL);
	ck_assert_uint_eq(get(BUF_PA + 0x20), 0);
	ck_assert_uint_eq(get(DS_PA + DS_PEBS_INDEX), BUF_LA + 0x20);
	ck_assert(!vpmu_take_pmi(&pmu));
	ck_assert_uint_eq(pmu.gp[0].value, 0);		/* not reloaded */
	ck_assert_uint_eq(pmu.global_status, 1);	/* overflow bit kept */
	ck_assert_uint_eq(stats.skipped_full, 1);
	ck_assert_uint_eq(stats.records, 0);
}
END_TEST

/* Format 3: 0xc8 bytes, applicable counters at 0x90, eventing IP at 0xb0. */
START_TEST(test_format3_assist)
{
	make_pmu(3);
	set_ds(BUF_LA, PEBS_FMT3_SIZE, 4, 4);
	overflow();
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_WRITTEN);
	ck_assert_uint_eq(get(BUF_PA + 0x08), 0x1002);
	ck_assert_uint_eq(get(BUF_PA + 0x20), 7);	/* RCX, legacy slot */
	ck_assert_uint_eq(get(BUF_PA + 0x90), 1);
	ck_assert_uint_eq(get(BUF_PA + 0xb0), 0x1000);
	ck_assert_uint_eq(get(BUF_PA + 0xc0), 1234);
	ck_assert_uint_eq(get(DS_PA + DS_PEBS_INDEX), BUF_LA + 0xc8);
}
END_TEST

/* Fixed counter 0: reset slot 0x80 up to format 4, 0x140 in format 5 (docs/intel-pmu.md 4.1). */
START_TEST(test_fixed_reset_slot)
{
	unsigned int fmt = (unsigned int)_i;

	make_pmu(fmt);
	set_ds(BUF_LA, 0x20, 4, 4);
	put(DS_PA + DS_PEBS_RESET_FIXED_FMT4, -5ULL);
	put(DS_PA + DS_PEBS_RESET_FIXED_FMT5, -9ULL);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_FIXED_CTR0, pmu.fixed_mask), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0)), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PEBS_ENABLE, 1ULL << 32), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERF_GLOBAL_CTRL, 1ULL << 32), VPMU_OK);
	vpmu_count(&pmu, PMU_EV_INSTRUCTIONS, 1, 0);
	ck_assert_uint_eq(pmu.pebs_armed, 1ULL << 32);
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_WRITTEN);
	ck_assert_uint_eq(get(BUF_PA + 16), 1ULL << 32);
	ck_assert_uint_eq(pmu.fixed[0].value, (fmt == 5 ? -9ULL : -5ULL) & pmu.fixed_mask);
}
END_TEST

/* Adaptive with every modelled group: 0x1d0 bytes, GPRs after MemInfo. */
START_TEST(test_adaptive_assist)
{
	make_pmu(4);
	set_ds(BUF_LA, 0x1d0, 4, 4);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_PEBS_DATA_CFG, 0x7), VPMU_OK);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PERFEVTSEL0,
				    EVTSEL_EN | EVTSEL_OS | EVTSEL_ADAPTIVE | 0xc0), VPMU_OK);
	overflow();
	ck_assert(pebs_wants_xmm(&pmu));
	st.xmm[15][15] = 0x5a;
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_WRITTEN);
	ck_assert_uint_eq(get(BUF_PA), 0x7 | 0x1d0ULL << 48);
	ck_assert_uint_eq(get(BUF_PA + 0x40 + 0x08), 0x1002);		/* GPR RIP */
	ck_assert_uint_eq(get(BUF_PA + 0x40 + 0x10 + 8), 7);		/* GPR RCX */
	ck_assert_uint_eq(ram[BUF_PA + 0x1cf], 0x5a);
	ck_assert_uint_eq(get(DS_PA + DS_PEBS_INDEX), BUF_LA + 0x1d0);
}
END_TEST

/* Runs an assist expected to drop, and checks nothing in RAM changed. */
static void expect_drop(void)
{
	uint8_t *copy = malloc(RAM_SIZE);

	ck_assert_ptr_nonnull(copy);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_PMC0, 0xffffffff), VPMU_OK);
	overflow();
	memcpy(copy, ram, RAM_SIZE);
	ck_assert_int_eq(pebs_assist(&pmu, &mem, &ps, &st, &stats), PEBS_DROPPED);
	ck_assert_int_eq(memcmp(copy, ram, RAM_SIZE), 0);
	free(copy);
	ck_assert_uint_eq(stats.records, 0);
	ck_assert_uint_eq(pmu.pebs_armed, 0);
	ck_assert_uint_eq(pmu.global_status, 1);	/* the overflow stays visible */
	ck_assert(!vpmu_take_pmi(&pmu));
}

START_TEST(test_ds_area_bad)
{
	make_pmu(4);
	set_ds(BUF_LA, 0x20, 4, 1);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_DS_AREA, HOLE_LA), VPMU_OK);
	expect_drop();
	ck_assert_uint_eq(stats.drop_unmapped, 1);
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_DS_AREA, MMIO_LA), VPMU_OK);
	expect_drop();
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_DS_AREA, BEYOND_LA), VPMU_OK);
	expect_drop();
	ck_assert_uint_eq(stats.drop_not_ram, 2);
	/* The DS area's PEBS fields run off the top of the lower half. */
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_DS_AREA, 0x00007ffffffffff0ULL), VPMU_OK);
	expect_drop();
	ck_assert_uint_eq(stats.drop_noncanonical, 1);
	/* Read-only DS: the index cannot be written back. */
	ck_assert_int_eq(vpmu_wrmsr(&pmu, MSR_IA32_DS_AREA, RO_LA), VPMU_OK);
	put(0x203000 + DS_PEBS_INDEX, BUF_LA);
	put(0x203000 + DS_PEBS_ABS_MAX, BUF_LA + 0x100);
	expect_drop();
	ck_assert_uint_eq(stats.drop_unmapped, 2);
	ck_assert_uint_eq(stats.assists, 5);
}
END_TEST

static void buffer_at(uint64_t la)
{
	put(DS_PA + DS_PEBS_INDEX, la);
	put(DS_PA + DS_PEBS_ABS_MAX, la + 0x100);
	if (la + 0x100 < la)
		put(DS_PA + DS_PEBS_ABS_MAX, ~0ULL);
}

START_TEST(test_buffer_bad)
{
	make_pmu(4);
	set_ds(BUF_LA, 0x20, 4, 1);
	buffer_at(HOLE_LA);
	expect_drop();
	buffer_at(RO_LA);
	expect_drop();
	ck_assert_uint_eq(stats.drop_unmapped, 2);
	buffer_at(MMIO_LA);
	expect_drop();
	buffer_at(BEYOND_LA);
	expect_drop();
	ck_assert_uint_eq(stats.drop_not_ram, 2);
	buffer_at(0x0000800000000000ULL);		/* non-canonical */
	expect_drop();
	buffer_at(0xfffffffffffffff0ULL);		/* canonical, but the record wraps */
	expect_drop();
	ck_assert_uint_eq(stats.drop_noncanonical, 2);
	/* First half mapped, second in the hole: no half record. */
	buffer_at(LAST_LA + 0xff0);
	put(DS_PA + DS_PEBS_ABS_MAX, LAST_LA + 0x2000);
	map4k(LAST_LA + 0x1000, 0, 0);
	expect_drop();
	ck_assert_uint_eq(stats.drop_unmapped, 3);
}
END_TEST

static Suite *pebs_assist_suite(void)
{
	Suite *s = suite_create("pebs_assist");
	TCase *tc = tcase_create("assist");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_record_index_reload);
	tcase_add_test(tc, test_only_pebs_counters_arm);
	tcase_add_test(tc, test_threshold_pmi);
	tcase_add_test(tc, test_absolute_maximum);
	tcase_add_test(tc, test_format3_assist);
	tcase_add_loop_test(tc, test_fixed_reset_slot, 4, 6);
	tcase_add_test(tc, test_adaptive_assist);
	tcase_add_test(tc, test_ds_area_bad);
	tcase_add_test(tc, test_buffer_bad);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pebs_assist_suite)
