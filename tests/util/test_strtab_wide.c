/* The string table built with offsets "wide" from 64 bytes into a run of
 * ids, where the real table's start at 4 GiB: the side list of whole
 * offsets is used here by strings of a few hundred bytes. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "strtab.h"

_Static_assert(CG_STRTAB_WIDE_FROM == 64, "built with wide offsets from 64 bytes");

/* String i: its number, then 0 to 300 bytes of one letter. */
static size_t make(char *buf, int i)
{
	size_t n = (size_t)sprintf(buf, "%d:", i), pad = (size_t)(i * 37 % 301);
	memset(buf + n, 'a' + i % 26, pad);
	return n + pad;
}

/* Strings shift .. shift + count - 1 are ids first .. */
static void check_all(cg_strtab *t, int shift, int count, cg_str first)
{
	char buf[400];
	for (int i = 0; i < count; i++) {
		size_t len = make(buf, shift + i);
		cg_str id = first + (cg_str)i, found;
		assert_int_equal(cg_strtab_len(t, id), len);
		assert_memory_equal(cg_strtab_get(t, id), buf, len);
		assert_int_equal(cg_strtab_get(t, id)[len], '\0');
		assert_true(cg_strtab_find(t, buf, len, &found));
		assert_int_equal(found, id);
	}
}

/* Most offsets of each run of 1,024 ids are wide: every string keeps its
 * bytes and length, is found, and moves into another table whole. */
static void strings_past_a_wide_offset_keep_their_place(void **state)
{
	cg_strtab *t = cg_strtab_new(0);
	char buf[400];
	cg_str id;
	for (int i = 0; i < 3000; i++) {
		assert_int_equal(cg_strtab_intern(t, buf, make(buf, i), &id), 0);
		assert_int_equal(id, (cg_str)i + 1);
	}
	check_all(t, 0, 3000, 1);

	cg_strtab *into = cg_strtab_new(0);
	assert_int_equal(cg_strtab_intern(into, "other", 5, &id), 0);
	cg_str *map = test_malloc(cg_strtab_count(t) * sizeof *map);
	assert_int_equal(cg_strtab_intern_all(into, t, map), 0);
	for (int i = 0; i < 3000; i++)
		assert_int_equal(map[i + 1], (cg_str)i + 2);
	check_all(into, 0, 3000, 2);
	test_free(map);
	cg_strtab_free(into);

	/* cleared, the table forgets the wide offsets with the strings: other
	 * strings take the same ids at other offsets */
	cg_strtab_clear(t);
	assert_int_equal(cg_strtab_count(t), 1);
	for (int i = 0; i < 1500; i++)
		assert_int_equal(cg_strtab_intern(t, buf, make(buf, 5000 + i), &id), 0);
	check_all(t, 5000, 1500, 1);
	assert_false(cg_strtab_find(t, buf, make(buf, 0), &id));
	cg_strtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strings_past_a_wide_offset_keep_their_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
