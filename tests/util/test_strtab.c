#include "testutil.h"

#include <string.h>

#include "error.h" /* CG_ELIMIT */
#include "strtab.h"

static void same_string_gets_same_id(void **state)
{
	cg_strtab *t = cg_strtab_new(0);
	cg_str a, b, c;
	assert_int_equal(cg_strtab_intern(t, "aten::mm", 8, &a), 0);
	assert_int_equal(cg_strtab_intern(t, "aten::add", 9, &b), 0);
	assert_int_equal(cg_strtab_intern(t, "aten::mm", 8, &c), 0);
	assert_int_equal(a, c);
	assert_int_not_equal(a, b);
	assert_string_equal(cg_strtab_get(t, a), "aten::mm");
	assert_int_equal(cg_strtab_len(t, b), 9);
	assert_int_equal(cg_strtab_count(t), 3); /* "" is id 0 */
	cg_strtab_free(t);
}

/* Strings are compared in pieces by length (short ones by two loads):
 * at every length to 40, a string differing from another in any one byte
 * is another string, and the same bytes elsewhere in memory the same. */
static void strings_differing_in_any_byte_at_any_length_are_distinct(void **state)
{
	cg_strtab *t = cg_strtab_new(0);
	char s[41], copy[41];
	for (size_t n = 1; n <= 40; n++) {
		for (size_t i = 0; i < n; i++)
			s[i] = (char)('a' + (n + i) % 26);
		cg_str base, again;
		assert_int_equal(cg_strtab_intern(t, s, n, &base), 0);
		memcpy(copy, s, n);
		assert_int_equal(cg_strtab_intern(t, copy, n, &again), 0);
		assert_int_equal(again, base);
		assert_true(cg_strtab_equals(t, base, copy, n));
		for (size_t i = 0; i < n; i++) {
			copy[i] ^= 0x20;
			cg_str other;
			assert_false(cg_strtab_equals(t, base, copy, n));
			assert_int_equal(cg_strtab_find(t, copy, n, &other), 0);
			assert_int_equal(cg_strtab_intern(t, copy, n, &other), 0);
			assert_int_not_equal(other, base);
			assert_int_equal(cg_strtab_len(t, other), n);
			copy[i] ^= 0x20;
		}
		assert_false(cg_strtab_equals(t, base, copy, n - 1));
	}
	cg_strtab_free(t);
}

static void short_keys_spread_over_the_low_bits_of_the_hash(void **state)
{
	/* Table slots are the hash's low bits; ids like "#1234" differ only in
	 * their later bytes. 10,000 random 16-bit values give ~9,270 distinct. */
	static bool seen[1 << 16];
	size_t distinct = 0;
	for (int i = 0; i < 10000; i++) {
		char key[16];
		int n = snprintf(key, sizeof key, "#%d", i);
		uint64_t h = cg_hash_bytes(key, (size_t)n) & 0xffff;
		if (!seen[h]) {
			seen[h] = true;
			distinct++;
		}
	}
	assert_true(distinct > 9000);
}

static void empty_string_is_id_zero(void **state)
{
	cg_strtab *t = cg_strtab_new(0);
	cg_str e;
	assert_int_equal(cg_strtab_intern(t, "", 0, &e), 0);
	assert_int_equal(e, CG_STR_EMPTY);
	assert_string_equal(cg_strtab_get(t, CG_STR_EMPTY), "");
	cg_strtab_free(t);
}

static void binary_strings_with_nul_bytes_are_distinct(void **state)
{
	cg_strtab *t = cg_strtab_new(0);
	cg_str a, b;
	assert_int_equal(cg_strtab_intern(t, "a\0b", 3, &a), 0);
	assert_int_equal(cg_strtab_intern(t, "a\0c", 3, &b), 0);
	assert_int_not_equal(a, b);
	assert_memory_equal(cg_strtab_get(t, b), "a\0c", 3);
	cg_strtab_free(t);
}

static void many_strings_survive_rehashing(void **state)
{
	cg_strtab *t = cg_strtab_new(0);
	char buf[32];
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(buf, sizeof buf, "tensor#%d", i);
		cg_str id;
		assert_int_equal(cg_strtab_intern(t, buf, (size_t)n, &id), 0);
		assert_int_equal(id, (cg_str)i + 1);
	}
	for (int i = 0; i < 100000; i++) { /* every one: a string placed as the slots double too */
		int n = snprintf(buf, sizeof buf, "tensor#%d", i);
		cg_str id;
		assert_true(cg_strtab_find(t, buf, (size_t)n, &id));
		assert_int_equal(id, (cg_str)i + 1);
	}
	assert_false(cg_strtab_find(t, "nope", 4, &(cg_str){0}));
	cg_strtab_free(t);
}

static void limit_is_reported_not_exceeded(void **state)
{
	cg_strtab *t = cg_strtab_new(64 << 10);
	char buf[64];
	int rc = 0, i;
	for (i = 0; i < 100000 && rc == 0; i++) {
		int n = snprintf(buf, sizeof buf, "a-long-enough-string-number-%d", i);
		cg_str id;
		rc = cg_strtab_intern(t, buf, (size_t)n, &id);
	}
	assert_int_equal(rc, CG_ELIMIT);
	assert_true(i > 100);
	assert_true(cg_strtab_bytes(t) <= (64 << 10) + 1024);
	/* Strings already in the table are still found. */
	cg_str id;
	assert_int_equal(cg_strtab_intern(t, "a-long-enough-string-number-1", 29, &id), 0);
	cg_strtab_free(t);
}

/* Interns "a-long-enough-string-number-<i>" for i from *i until the limit
 * stops it (or end); returns the code. */
static int fill(cg_strtab *t, int *i, int end)
{
	char buf[64];
	int rc = 0;
	for (; *i < end && rc == 0; (*i)++) {
		int n = snprintf(buf, sizeof buf, "a-long-enough-string-number-%d", *i);
		cg_str id;
		rc = cg_strtab_intern(t, buf, (size_t)n, &id);
	}
	return rc;
}

/* Room made ahead (cg_strtab_expect) is not counted by the limit: the same
 * string reaches it as without the room, and every string is found. */
static void room_made_ahead_changes_no_limit_and_no_id(void **state)
{
	cg_strtab *plain = cg_strtab_new(256 << 10), *roomy = cg_strtab_new(256 << 10);
	cg_strtab *batch = cg_strtab_new(0);
	int made = 0;
	assert_int_equal(fill(batch, &made, 50), 0);
	size_t before = cg_strtab_bytes(roomy);
	/* 51 strings said to be a fiftieth: room for about 2,550, within the limit */
	cg_strtab_expect(roomy, batch, 50.0, UINT64_MAX);
	assert_true(cg_strtab_bytes(roomy) > before + 2000 * 30);
	int i = 0, j = 0;
	int rc_plain = fill(plain, &i, 100000), rc_roomy = fill(roomy, &j, 100000);
	assert_int_equal(rc_plain, CG_ELIMIT);
	assert_int_equal(rc_roomy, CG_ELIMIT);
	assert_int_equal(i, j);
	assert_int_equal(cg_strtab_count(plain), cg_strtab_count(roomy));
	char buf[64];
	for (int k = 0; k < i - 1; k += 7) {
		int n = snprintf(buf, sizeof buf, "a-long-enough-string-number-%d", k);
		cg_str a, b;
		assert_true(cg_strtab_find(plain, buf, (size_t)n, &a));
		assert_true(cg_strtab_find(roomy, buf, (size_t)n, &b));
		assert_int_equal(a, b);
	}
	/* room that would pass the limit, or the bound, is not made */
	cg_strtab *small = cg_strtab_new(4 << 10);
	before = cg_strtab_bytes(small);
	cg_strtab_expect(small, batch, 50.0, UINT64_MAX);
	assert_int_equal(cg_strtab_bytes(small), before);
	cg_strtab *bounded = cg_strtab_new(0);
	before = cg_strtab_bytes(bounded);
	cg_strtab_expect(bounded, batch, 50.0, 4 << 10);
	assert_int_equal(cg_strtab_bytes(bounded), before);
	cg_strtab_free(bounded);
	cg_strtab_free(small);
	cg_strtab_free(batch);
	cg_strtab_free(plain);
	cg_strtab_free(roomy);
}

/* An estimate a little short is no reason to move the text: room made
 * ahead holds a quarter more than asked (address space only), so a table
 * said to get twice a batch takes 2.2 times it in place. */
static void room_made_ahead_holds_a_short_estimate(void **state)
{
	(void)state;
	cg_strtab *t = cg_strtab_new(0), *batch = cg_strtab_new(0);
	int made = 0;
	assert_int_equal(fill(batch, &made, 100000), 0); /* 3.4 MB of text */
	cg_strtab_expect(t, batch, 2.0, UINT64_MAX);
	const char *text = cg_strtab_get(t, 0);
	int i = 0;
	assert_int_equal(fill(t, &i, 220000), 0);
	assert_ptr_equal(cg_strtab_get(t, 0), text);
	char buf[64];
	int n = snprintf(buf, sizeof buf, "a-long-enough-string-number-%d", 219999);
	cg_str id;
	assert_true(cg_strtab_find(t, buf, (size_t)n, &id));
	assert_string_equal(cg_strtab_get(t, id), buf);
	cg_strtab_free(batch);
	cg_strtab_free(t);
}

/* The slots, written all over as they fill, get room ahead only once a
 * quarter of the source is in: an early estimate can be well off. */
static void slots_get_room_ahead_only_from_a_quarter_in(void **state)
{
	(void)state;
	cg_strtab *batch = cg_strtab_new(0);
	int made = 0;
	assert_int_equal(fill(batch, &made, 10000), 0);
	cg_strtab *early = cg_strtab_new(0), *late = cg_strtab_new(0);
	size_t before = cg_strtab_used_bytes(early);
	cg_strtab_expect(early, batch, 4.5, UINT64_MAX); /* a fifth of it read */
	assert_int_equal(cg_strtab_used_bytes(early), before);
	cg_strtab_expect(late, batch, 4.0, UINT64_MAX); /* a quarter */
	/* 40,000 strings fill at most 3/4 of the slots: 65,536 of 8 bytes
	 * instead of a new table's 64 */
	assert_int_equal(cg_strtab_used_bytes(late) - before, (65536 - 64) * 8);
	cg_strtab_free(early);
	cg_strtab_free(late);
	cg_strtab_free(batch);
}

/* Trace ids are short and sequential ("s890000", "s890001", ...): their
 * hashes must still spread over the table, or every lookup walks one long
 * cluster. 1024 keys into 1024 buckets fill about 1 - 1/e of them. */
static void short_sequential_ids_spread_over_the_buckets(void **state)
{
	const char *forms[] = {"s%d", "t%d", "a7fe%d#0", "s%dx"};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		bool used[1024] = {false};
		unsigned buckets = 0;
		for (int i = 0; i < 1024; i++) {
			char key[32];
			int n = snprintf(key, sizeof key, forms[f], 890000 + i);
			uint32_t b = (uint32_t)cg_hash_bytes(key, (size_t)n) & 1023;
			buckets += !used[b];
			used[b] = true;
		}
		if (buckets < 550)
			fail_msg("\"%s\" keys fill only %u of 1024 buckets", forms[f], buckets);
	}
}

/* "shared-<i>", then for i not a multiple of 7 a NUL and up to 256 more
 * bytes: lengths from 8 to 264 with a NUL inside. Returns the length. */
static size_t padded(char *buf, int i)
{
	size_t n = (size_t)sprintf(buf, "shared-%d", i), pad = (size_t)(i % 7) * 41 % 257;
	if (pad)
		memset(buf + n + 1, 'a' + i % 26, pad - 1);
	return n + pad;
}

/* A table's strings moved into another keep their bytes and lengths
 * (a length is where the next string starts: checked across runs of
 * 1,024 ids); those new to it take ids in the source's order, those it
 * had keep theirs. */
static void interning_a_table_maps_each_of_its_ids(void **state)
{
	cg_strtab *t = cg_strtab_new(0), *from = cg_strtab_new(0);
	char buf[320];
	cg_str id;
	for (int i = 0; i < 1000; i += 2) /* ids 1.. for "shared-0", "shared-2", ... */
		assert_int_equal(cg_strtab_intern(t, buf, (size_t)sprintf(buf, "shared-%d", i), &id), 0);
	uint32_t had = cg_strtab_count(t);
	for (int i = 0; i < 3000; i++) {
		assert_int_equal(cg_strtab_intern(from, buf, padded(buf, i), &id), 0);
		assert_int_equal(id, (cg_str)i + 1);
	}
	cg_str *map = test_malloc(cg_strtab_count(from) * sizeof *map);
	assert_int_equal(cg_strtab_intern_all(t, from, map), 0);
	assert_int_equal(map[0], CG_STR_EMPTY);
	cg_str next = had;
	for (int i = 0; i < 3000; i++) {
		size_t len = padded(buf, i);
		if (i % 14 == 0 && i < 1000) /* no padding, even: t had it */
			assert_int_equal(map[i + 1], (cg_str)i / 2 + 1);
		else
			assert_int_equal(map[i + 1], next++);
		assert_int_equal(cg_strtab_len(from, (cg_str)i + 1), len);
		assert_int_equal(cg_strtab_len(t, map[i + 1]), len);
		assert_memory_equal(cg_strtab_get(t, map[i + 1]), buf, len);
		assert_int_equal(cg_strtab_get(t, map[i + 1])[len], '\0');
		assert_true(cg_strtab_equals(t, map[i + 1], buf, len));
		assert_false(cg_strtab_equals(t, map[i + 1], buf, len - 1));
	}
	assert_int_equal(next, cg_strtab_count(t));
	test_free(map);
	cg_strtab_free(from);
	cg_strtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_sequential_ids_spread_over_the_buckets),
		cmocka_unit_test(same_string_gets_same_id),
		cmocka_unit_test(strings_differing_in_any_byte_at_any_length_are_distinct),
		cmocka_unit_test(empty_string_is_id_zero),
		cmocka_unit_test(short_keys_spread_over_the_low_bits_of_the_hash),
		cmocka_unit_test(binary_strings_with_nul_bytes_are_distinct),
		cmocka_unit_test(many_strings_survive_rehashing),
		cmocka_unit_test(limit_is_reported_not_exceeded),
		cmocka_unit_test(room_made_ahead_changes_no_limit_and_no_id),
		cmocka_unit_test(room_made_ahead_holds_a_short_estimate),
		cmocka_unit_test(slots_get_room_ahead_only_from_a_quarter_in),
		cmocka_unit_test(interning_a_table_maps_each_of_its_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
