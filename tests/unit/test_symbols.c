/* ELF symbol lookup for profiles, on this test binary's own symbol table. */
#include <stdlib.h>
#include <string.h>

#include "boot/image.h"
#include "profile/symbols.h"
#include "suite.h"

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

static Suite *symbols_suite(void)
{
	Suite *s = suite_create("symbols");
	TCase *tc = tcase_create("elf");

	tcase_add_test(tc, test_own_symbols);
	tcase_add_test(tc, test_not_elf_and_truncated);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(symbols_suite)
