/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ELF symbol lookup for profiles, and the RDPMC scan of an image's
 * functions (rdpmc/sites.c), on this test binary's own symbol table.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/image.h"
#include "boot/symbols.h"
#include "rdpmc/rdpmc.h"
#include "suite.h"

/*
 * Never called: code for the RDPMC scan.  One RDPMC one byte into its
 * function, the same two bytes (0F 33) inside a MOV's immediate, which are
 * no instruction of their own, one after KVM's forced emulation prefix (UD2
 * and "kvm", then a JNE whose second byte, AAS, is no instruction once the
 * prefix's bytes and the JNE's first are taken for an IMUL), an RDPMC in a function that does not
 * decode to its end (PUSH ES is no 64-bit instruction), and an RDPMC under
 * a label that is no function (no .type): the scan must not trust the last
 * two.
 */
__asm__(".text\n"
	".globl unit_rdpmc_site\n.type unit_rdpmc_site, @function\n"
	"unit_rdpmc_site:\n\tnop\n\trdpmc\n\tret\n"
	".size unit_rdpmc_site, . - unit_rdpmc_site\n"
	".globl unit_rdpmc_bytes\n.type unit_rdpmc_bytes, @function\n"
	"unit_rdpmc_bytes:\n\tmovl $0x330f, %eax\n\tret\n"
	".size unit_rdpmc_bytes, . - unit_rdpmc_bytes\n"
	".globl unit_rdpmc_fep\n.type unit_rdpmc_fep, @function\n"
	"unit_rdpmc_fep:\n\tud2\n\t.ascii \"kvm\"\n\t.byte 0x75, 0x3f\n\trdpmc\n\tret\n"
	".size unit_rdpmc_fep, . - unit_rdpmc_fep\n"
	".globl unit_rdpmc_undecodable\n.type unit_rdpmc_undecodable, @function\n"
	"unit_rdpmc_undecodable:\n\trdpmc\n\t.byte 0x06\n\tret\n"
	".size unit_rdpmc_undecodable, . - unit_rdpmc_undecodable\n"
	"unit_rdpmc_label:\n\trdpmc\n\tret\n");

START_TEST(test_own_symbols)
{
	struct file_buf f;
	struct symtab t;
	const struct symbol *s = NULL, *hit;
	size_t i;

	ck_assert_int_eq(file_read("/proc/self/exe", &f), 0);
	ck_assert_int_eq(symtab_load(&t, f.data, f.size), 0);
	ck_assert(t.nr > 100);
	for (i = 1; i < t.nr; i++)
		ck_assert(t.syms[i - 1].addr <= t.syms[i].addr);
	for (i = 0; i < t.nr; i++)
		if (!strcmp(t.syms[i].name, "symtab_lookup"))
			s = &t.syms[i];
	ck_assert_ptr_nonnull(s);
	ck_assert(s->size > 0);
	hit = symtab_lookup(&t, s->addr);
	ck_assert_str_eq(hit->name, "symtab_lookup");
	hit = symtab_lookup(&t, s->addr + s->size - 1);
	ck_assert_str_eq(hit->name, "symtab_lookup");
	hit = symtab_lookup(&t, s->addr + s->size);
	ck_assert(!hit || strcmp(hit->name, "symtab_lookup"));
	ck_assert_ptr_null(symtab_lookup(&t, 0));
	symtab_free(&t);
	file_free(&f);
}
END_TEST

START_TEST(test_not_elf_and_truncated)
{
	static const uint8_t junk[64] = "not an elf";
	struct file_buf f;
	struct symtab t;

	ck_assert_int_ne(symtab_load(&t, junk, sizeof(junk)), 0);
	ck_assert_int_eq(file_read("/proc/self/exe", &f), 0);
	/* Cut before the section headers: refused, never read past the end. */
	ck_assert_int_ne(symtab_load(&t, f.data, f.size / 2), 0);
	ck_assert_uint_eq(t.nr, 0);
	file_free(&f);
}
END_TEST

static const struct symbol *find_symbol(const struct symtab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->syms[i].name, name))
			return &t->syms[i];
	return NULL;
}

/*
 * This binary has exactly two RDPMCs in its functions that decode, at
 * unit_rdpmc_site + 1 and unit_rdpmc_fep + 7 (`max` bounds what is
 * stored), one in a function that does not and one outside them: not
 * complete.
 */
START_TEST(test_rdpmc_sites)
{
	const struct symbol *site, *bytes, *fep;
	uint64_t sites[3] = { 0, 0, 0 };
	bool complete;
	struct file_buf f;
	struct symtab t;

	ck_assert_int_eq(file_read("/proc/self/exe", &f), 0);
	ck_assert_int_eq(symtab_load(&t, f.data, f.size), 0);
	site = find_symbol(&t, "unit_rdpmc_site");
	bytes = find_symbol(&t, "unit_rdpmc_bytes");
	fep = find_symbol(&t, "unit_rdpmc_fep");
	ck_assert_ptr_nonnull(fep);
	ck_assert_ptr_nonnull(site);
	ck_assert_ptr_nonnull(bytes);
	ck_assert_ptr_nonnull(site->code);
	ck_assert_uint_eq(site->size, 4);
	ck_assert_uint_eq(site->code[1], 0x0f);
	ck_assert_uint_eq(site->code[2], 0x33);
	ck_assert_uint_eq(bytes->code[1], 0x0f);
	ck_assert_int_eq(rdpmc_sites_scan(&t, sites, 1, &complete), 2);
	ck_assert(!complete);
	ck_assert_uint_eq(sites[0], site->addr + 1);
	ck_assert_uint_eq(sites[1], 0);
	ck_assert_int_eq(rdpmc_sites_scan(&t, sites, 3, &complete), 2);
	ck_assert_uint_eq(sites[1], fep->addr + 7);
	ck_assert_uint_eq(sites[2], 0);
	ck_assert_int_eq(rdpmc_sites_scan(&t, sites, 0, &complete), 2);
	symtab_free(&t);
	file_free(&f);
}
END_TEST

static Suite *symbols_suite(void)
{
	Suite *s = suite_create("symbols");
	TCase *tc = tcase_create("elf");

	tcase_add_test(tc, test_own_symbols);
	tcase_add_test(tc, test_not_elf_and_truncated);
	tcase_add_test(tc, test_rdpmc_sites);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(symbols_suite)
