/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest page-table walker against page tables built in a fake guest RAM. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mem/pagewalk.h"
#include "mem/va_map.h"
#include "suite.h"

#define RAM_SIZE	(64u << 20)
#define P		0x1ULL
#define RW		0x2ULL
#define US		0x4ULL
#define A		0x20ULL
#define D		0x40ULL
#define PS		0x80ULL
/* Entries a CPU has walked and written through: va_map.c maps only those. */
#define PAD		(P | A | D)

#define CR0_PG_PE	0x80000001ULL
#define CR0_WP		(1ULL << 16)
#define CR4_PSE		(1ULL << 4)
#define CR4_PAE		(1ULL << 5)
#define CR4_LA57	(1ULL << 12)
#define EFER_LMA_LME	0x500ULL

static uint8_t *ram;
static struct guest_mem mem;
static uint64_t next_table;

static void setup(void)
{
	ram = calloc(1, RAM_SIZE);
	ck_assert_ptr_nonnull(ram);
	guest_mem_layout(&mem, ram, RAM_SIZE);
	next_table = 0x100000;
}

static void teardown(void)
{
	free(ram);
}

static uint64_t new_table(void)
{
	uint64_t t = next_table;

	next_table += 0x1000;
	return t;
}

static void set64(uint64_t table, unsigned int idx, uint64_t v)
{
	memcpy(ram + table + idx * 8, &v, 8);
}

static void set32(uint64_t table, unsigned int idx, uint32_t v)
{
	memcpy(ram + table + idx * 4, &v, 4);
}

/* The table an entry points to, creating it (with bits `ibits`) if absent. */
static uint64_t next_level(uint64_t table, unsigned int idx, uint64_t ibits)
{
	uint64_t e;

	memcpy(&e, ram + table + idx * 8, 8);
	if (!(e & P)) {
		e = new_table() | ibits;
		set64(table, idx, e);
	}
	return e & ~0xfffULL;
}

/* Maps la -> pa with a 4 KiB page in 4-level paging; intermediate bits `ibits`. */
static void map4k(uint64_t pml4, uint64_t la, uint64_t pa, uint64_t ibits, uint64_t lbits)
{
	uint64_t pdpt = next_level(pml4, (la >> 39) & 0x1ff, ibits);
	uint64_t pd = next_level(pdpt, (la >> 30) & 0x1ff, ibits);
	uint64_t pt = next_level(pd, (la >> 21) & 0x1ff, ibits);

	set64(pt, (la >> 12) & 0x1ff, pa | lbits);
}

static struct paging_state long_mode(uint64_t cr3)
{
	return (struct paging_state){ .cr0 = CR0_PG_PE | CR0_WP, .cr3 = cr3, .cr4 = CR4_PAE,
				      .efer = EFER_LMA_LME };
}

START_TEST(test_paging_off)
{
	struct paging_state ps = { .cr0 = 1 };
	uint64_t gpa;

	ck_assert_int_eq(pagewalk(&mem, &ps, 0x12345, 0, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x12345);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x100000000ULL, 0, &gpa), -EINVAL);
}
END_TEST

START_TEST(test_long_4k_2m_1g)
{
	uint64_t pml4 = new_table(), pdpt, pd, gpa;
	struct paging_state ps = long_mode(pml4);

	map4k(pml4, 0x7f0000401000ULL, 0x345000, P | RW | US, P | RW | US);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x7f0000401abcULL, PW_USER | PW_WRITE, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x345abc);

	/* 2 MiB page at 0x40000000 -> 0x600000, 1 GiB page at 0x80000000 -> 0. */
	pdpt = new_table();
	pd = new_table();
	set64(pml4, 0, pdpt | P | RW);
	set64(pdpt, 1, pd | P | RW);
	set64(pd, 0, 0x600000 | P | RW | PS);
	set64(pdpt, 2, 0x0 | P | RW | PS);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x40012345, 0, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x612345);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x80000000 + 0x2345678, PW_WRITE, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x2345678);
	/* Supervisor-only mapping refused to a user access. */
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x40012345, PW_USER, &gpa), -EACCES);
	/* Not present. */
	ck_assert_int_eq(pagewalk(&mem, &ps, 0xc0000000, 0, &gpa), -EFAULT);
	/* Non-canonical. */
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x0000800000000000ULL, 0, &gpa), -EINVAL);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0xffff800000000000ULL, 0, &gpa), -EFAULT);
}
END_TEST

START_TEST(test_write_protect)
{
	uint64_t pml4 = new_table(), gpa;
	struct paging_state ps = long_mode(pml4);

	map4k(pml4, 0x5000, 0x9000, P | RW | US, P | US);	/* read-only leaf */
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x5000, 0, &gpa), 0);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x5000, PW_WRITE, &gpa), -EACCES);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x5000, PW_WRITE | PW_USER, &gpa), -EACCES);
	ps.cr0 &= ~CR0_WP;	/* supervisor writes ignore R/W without CR0.WP */
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x5000, PW_WRITE, &gpa), 0);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x5000, PW_WRITE | PW_USER, &gpa), -EACCES);
}
END_TEST

START_TEST(test_five_level)
{
	uint64_t pml5 = new_table(), pml4 = new_table(), gpa;
	struct paging_state ps = long_mode(pml5);
	uint64_t la = 0x00ff800000403000ULL;	/* needs bits above 47 */

	ps.cr4 |= CR4_LA57;
	set64(pml5, (la >> 48) & 0x1ff, pml4 | P | RW);
	map4k(pml4, la, 0x777000, P | RW, P | RW);
	ck_assert_int_eq(pagewalk(&mem, &ps, la + 0x10, 0, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x777010);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x0100000000000000ULL, 0, &gpa), -EINVAL);
}
END_TEST

START_TEST(test_pae_and_32bit)
{
	uint64_t pdpt = 0x200000, pd = new_table(), pt = new_table(), gpa, dir;
	struct paging_state ps = { .cr0 = CR0_PG_PE, .cr3 = pdpt, .cr4 = CR4_PAE };

	set64(pdpt, 3, pd | P);
	set64(pd, 1, pt | P | RW);
	set64(pt, 2, 0x123000 | P | RW);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0xc0202456, 0, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x123456);
	set64(pd, 4, 0xa00000 | P | RW | PS);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0xc0812345, 0, &gpa), 0);
	ck_assert_uint_eq(gpa, 0xa12345);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x100000000ULL, 0, &gpa), -EINVAL);

	/* 32-bit paging: 4 KiB page, and a 4 MiB page only with CR4.PSE. */
	dir = new_table();
	pt = new_table();
	ps = (struct paging_state){ .cr0 = CR0_PG_PE, .cr3 = dir };
	set32(dir, 1, (uint32_t)pt | P | RW | US);
	set32(pt, 5, 0x321000 | P | RW | US);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x405678, PW_USER, &gpa), 0);
	ck_assert_uint_eq(gpa, 0x321678);
	set32(dir, 2, 0xc00000 | P | RW | PS);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x812345, 0, &gpa), -EFAULT); /* PS ignored: table 0xc00000 empty */
	ps.cr4 = CR4_PSE;
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x812345, 0, &gpa), 0);
	ck_assert_uint_eq(gpa, 0xc12345);
}
END_TEST

START_TEST(test_tables_outside_ram)
{
	uint64_t pml4 = new_table(), gpa;
	struct paging_state ps = long_mode(pml4);

	/* A PML4 entry pointing at MMIO space, and a CR3 beyond RAM. */
	set64(pml4, 0, 0xfee00000ULL | P | RW);
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x1000, 0, &gpa), -EFAULT);
	ps.cr3 = 0xffffffffff000ULL;
	ck_assert_int_eq(pagewalk(&mem, &ps, 0x1000, 0, &gpa), -EFAULT);
}
END_TEST

START_TEST(test_linear_copy)
{
	uint64_t pml4 = new_table();
	struct paging_state ps = long_mode(pml4);
	uint8_t buf[0x1800], back[0x1800];
	unsigned int i;

	/* Two consecutive virtual pages on non-consecutive frames, then a hole. */
	map4k(pml4, 0x400000, 0x700000, P | RW, P | RW);
	map4k(pml4, 0x401000, 0x500000, P | RW, P | RW);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	ck_assert_int_eq(guest_linear_write(&mem, &ps, 0x400800, buf, sizeof(buf)), 0);
	ck_assert_int_eq(memcmp(ram + 0x700800, buf, 0x800), 0);
	ck_assert_int_eq(memcmp(ram + 0x500000, buf + 0x800, 0x1000), 0);
	ck_assert_int_eq(guest_linear_read(&mem, &ps, 0x400800, back, sizeof(back)), 0);
	ck_assert_int_eq(memcmp(back, buf, sizeof(buf)), 0);
	/* Running into the unmapped third page fails. */
	ck_assert_int_eq(guest_linear_write(&mem, &ps, 0x401800, buf, 0x1000), -EFAULT);
	/* Wrapping the address space is refused. */
	ck_assert_int_eq(guest_linear_read(&mem, &ps, 0xfffffffffffff800ULL, back, 0x1000),
			 -EINVAL);
	/* A frame at the end of RAM whose copy would run past it. */
	map4k(pml4, 0x600000, RAM_SIZE - 0x1000, P | RW, P | RW);
	map4k(pml4, 0x601000, RAM_SIZE, P | RW, P | RW);
	ck_assert_int_eq(guest_linear_write(&mem, &ps, 0x600800, buf, 0x1000), -EFAULT);
}
END_TEST


/* The runs of an address space (va_map.c): merged, clipped to RAM, with the rights each CPL sees. */
START_TEST(test_va_map_runs)
{
	uint64_t pml4 = new_table();
	struct paging_state ps = long_mode(pml4);
	struct va_run r[8];

	/* Two 4 KiB pages contiguous in both spaces: one run; a third elsewhere: another. */
	map4k(pml4, 0x400000, 0x200000, PAD | RW | US, PAD | RW | US);
	map4k(pml4, 0x401000, 0x201000, PAD | RW | US, PAD | RW | US);
	map4k(pml4, 0x402000, 0x205000, PAD | RW | US, PAD | RW | US);
	/* Read-only, supervisor-only, and execute-disabled pages. */
	map4k(pml4, 0x403000, 0x206000, PAD | RW | US, PAD | US);
	map4k(pml4, 0x404000, 0x207000, PAD | RW | US, PAD | RW);
	map4k(pml4, 0x405000, 0x208000, PAD | RW | US, PAD | RW | US | (1ULL << 63));
	/* A page beyond RAM (MMIO): no run. */
	map4k(pml4, 0x406000, 0xfee00000ULL, PAD | RW | US, PAD | RW | US);
	/* A negative (kernel-half) address: canonical. */
	map4k(pml4, 0xffff800000001000ULL, 0x300000, PAD | RW, PAD | RW);
	ps.efer |= 1ULL << 11;	/* NXE */

	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 8), 6);
	ck_assert_uint_eq(r[0].la, 0x400000);
	ck_assert_uint_eq(r[0].len, 0x2000);
	ck_assert_ptr_eq(r[0].host, ram + 0x200000);
	ck_assert_uint_eq(r[0].prot, VA_READ | VA_WRITE | VA_EXEC);
	ck_assert_uint_eq(r[1].la, 0x402000);
	ck_assert_ptr_eq(r[1].host, ram + 0x205000);
	ck_assert_uint_eq(r[2].la, 0x403000);
	ck_assert_uint_eq(r[2].prot, VA_READ | VA_EXEC);	/* CR0.WP set */
	ck_assert_uint_eq(r[3].la, 0x404000);
	ck_assert_uint_eq(r[4].la, 0x405000);
	ck_assert_uint_eq(r[4].prot, VA_READ | VA_WRITE);
	ck_assert_uint_eq(r[5].la, 0xffff800000001000ULL);

	/* At CPL3 the supervisor pages go. */
	ck_assert_int_eq(va_map_build(&mem, &ps, true, r, 8), 4);
	ck_assert_uint_eq(r[2].la, 0x403000);
	ck_assert_uint_eq(r[3].la, 0x405000);

	/* CR0.WP clear: the kernel writes read-only pages; SMEP: it runs no user page. */
	ps.cr0 &= ~CR0_WP;
	ps.cr4 |= 1ULL << 20;
	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 8), 5);
	ck_assert_uint_eq(r[0].prot, VA_READ | VA_WRITE);
	ck_assert_uint_eq(r[1].la, 0x402000);
	ck_assert_uint_eq(r[1].len, 0x2000);	/* the read-only page is writable now: merged */
	ck_assert_uint_eq(r[1].prot, VA_READ | VA_WRITE);
	ck_assert_uint_eq(r[2].la, 0x404000);
	ck_assert_uint_eq(r[2].prot, VA_READ | VA_WRITE | VA_EXEC);

	/* More runs than room. */
	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 2), -E2BIG);

	/* One page's run at a time: the page alone, with its rights; none for MMIO or the wrong CPL. */
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x401234, &r[0]), 0);
	ck_assert_uint_eq(r[0].la, 0x401000);
	ck_assert_uint_eq(r[0].len, 0x1000);
	ck_assert_ptr_eq(r[0].host, ram + 0x201000);
	ck_assert_uint_eq(r[0].prot, VA_READ | VA_WRITE);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x404000, &r[0]), 0);
	ck_assert_uint_eq(r[0].prot, VA_READ | VA_WRITE | VA_EXEC);
	ck_assert_int_eq(va_map_page(&mem, &ps, true, 0x404000, &r[0]), -EFAULT);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x406000, &r[0]), -EFAULT);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x407000, &r[0]), -EFAULT);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0xffff800000001fffULL, &r[0]), 0);
	ck_assert_uint_eq(r[0].la, 0xffff800000001000ULL);
}
END_TEST

START_TEST(test_va_map_large_and_modes)
{
	uint64_t pml4 = new_table(), pdpt = next_level(pml4, 0, PAD | RW);
	uint64_t pd = next_level(pdpt, 0, PAD | RW);
	struct paging_state ps = long_mode(pml4);
	struct va_run r[4];

	/* 2 MiB pages, merged; one whose address has bit 12 (PAT) set; one beyond RAM. */
	set64(pd, 0, 0x0 | PAD | RW | PS);
	set64(pd, 1, 0x200000 | PAD | RW | PS);
	set64(pd, 2, (RAM_SIZE - 0x200000) | 0x1000 | PAD | RW | PS);
	set64(pd, 3, (uint64_t)RAM_SIZE | PAD | RW | PS);
	/* A 1 GiB page at 1 GiB over guest-physical 0: clipped to RAM's 64 MiB. */
	set64(pdpt, 1, 0 | PAD | RW | PS);
	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 4), 3);
	ck_assert_uint_eq(r[0].la, 0);
	ck_assert_uint_eq(r[0].len, 0x400000);
	ck_assert_uint_eq(r[1].la, 0x400000);
	ck_assert_ptr_eq(r[1].host, ram + RAM_SIZE - 0x200000);
	ck_assert_uint_eq(r[1].len, 0x200000);
	ck_assert_uint_eq(r[2].la, 0x40000000ULL);
	ck_assert_ptr_eq(r[2].host, ram);
	ck_assert_uint_eq(r[2].len, RAM_SIZE);

	/* One page's run: the 2 MiB page, and the 1 GiB page clipped to RAM. */
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x212345, &r[0]), 0);
	ck_assert_uint_eq(r[0].la, 0x200000);
	ck_assert_uint_eq(r[0].len, 0x200000);
	ck_assert_ptr_eq(r[0].host, ram + 0x200000);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x40001000ULL, &r[0]), 0);
	ck_assert_uint_eq(r[0].la, 0x40000000ULL);
	ck_assert_uint_eq(r[0].len, RAM_SIZE);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x40000000ULL + RAM_SIZE, &r[0]), -EFAULT);

	ps.cr4 |= CR4_LA57;
	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 4), -EOPNOTSUPP);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0, &r[0]), -EOPNOTSUPP);
	ps = (struct paging_state){ .cr0 = 1 };
	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 4), -EOPNOTSUPP);
}
END_TEST


/* Accessed and dirty flags (SDM vol. 3A 4.8): the emulator cannot set them, so KVM must. */
START_TEST(test_va_map_accessed_dirty)
{
	uint64_t pml4 = new_table();
	struct paging_state ps = long_mode(pml4);
	struct va_run r[4];

	map4k(pml4, 0x400000, 0x200000, PAD | RW, PAD | RW);		/* walked, written */
	map4k(pml4, 0x401000, 0x201000, PAD | RW, P | A | RW);		/* clean: read-only */
	map4k(pml4, 0x402000, 0x202000, PAD | RW, P | RW | D);		/* never accessed: left out */
	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 4), 2);
	ck_assert_uint_eq(r[0].la, 0x400000);
	ck_assert_uint_eq(r[0].prot, VA_READ | VA_WRITE | VA_EXEC);
	ck_assert_uint_eq(r[1].la, 0x401000);
	ck_assert_uint_eq(r[1].prot, VA_READ | VA_EXEC);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x401000, &r[0]), 0);
	ck_assert_uint_eq(r[0].prot, VA_READ | VA_EXEC);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x402000, &r[0]), -EFAULT);
	/* A clean page stays read-only with CR0.WP clear: a write must set its dirty flag. */
	ps.cr0 &= ~CR0_WP;
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x401000, &r[0]), 0);
	ck_assert_uint_eq(r[0].prot, VA_READ | VA_EXEC);
	/* A table entry never accessed: nothing below it. */
	map4k(pml4, 0x8000000000ULL, 0x203000, P | RW, PAD | RW);
	ck_assert_int_eq(va_map_page(&mem, &ps, false, 0x8000000000ULL, &r[0]), -EFAULT);
	ck_assert_int_eq(va_map_build(&mem, &ps, false, r, 4), 2);
}
END_TEST

static Suite *pagewalk_suite(void)
{
	Suite *s = suite_create("pagewalk");
	TCase *tc = tcase_create("walk");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_paging_off);
	tcase_add_test(tc, test_long_4k_2m_1g);
	tcase_add_test(tc, test_write_protect);
	tcase_add_test(tc, test_five_level);
	tcase_add_test(tc, test_pae_and_32bit);
	tcase_add_test(tc, test_tables_outside_ram);
	tcase_add_test(tc, test_linear_copy);
	tcase_add_test(tc, test_va_map_runs);
	tcase_add_test(tc, test_va_map_large_and_modes);
	tcase_add_test(tc, test_va_map_accessed_dirty);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(pagewalk_suite)
