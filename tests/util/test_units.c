#include "testutil.h"

#include "units.h"

static void bytes_use_binary_units_with_three_or_four_digits(void **state)
{
	char b[32];
	assert_string_equal(cg_fmt_bytes(b, sizeof b, 0), "0 B");
	assert_string_equal(cg_fmt_bytes(b, sizeof b, 1023), "1023 B");
	assert_string_equal(cg_fmt_bytes(b, sizeof b, 2560), "2.50 KiB");
	assert_string_equal(cg_fmt_bytes(b, sizeof b, 16190672), "15.44 MiB");
	assert_string_equal(cg_fmt_bytes(b, sizeof b, 201216), "196.5 KiB");
	assert_string_equal(cg_fmt_bytes(b, sizeof b, 524288), "512.0 KiB");
	assert_string_equal(cg_fmt_bytes(b, sizeof b, 1048575), "1.00 MiB");
	assert_string_equal(cg_fmt_bytes(b, sizeof b, UINT64_MAX), "16.00 EiB");
}

static void counts_get_thousands_separators(void **state)
{
	char b[32];
	assert_string_equal(cg_fmt_count(b, sizeof b, 0), "0");
	assert_string_equal(cg_fmt_count(b, sizeof b, 999), "999");
	assert_string_equal(cg_fmt_count(b, sizeof b, 1000), "1,000");
	assert_string_equal(cg_fmt_count(b, sizeof b, 16190672), "16,190,672");
	assert_string_equal(cg_fmt_count(b, sizeof b, UINT64_MAX), "18,446,744,073,709,551,615");
}

static void times_pick_their_unit(void **state)
{
	char b[32];
	assert_string_equal(cg_fmt_time(b, sizeof b, 122996229), "0.123 s");
	assert_string_equal(cg_fmt_time(b, sizeof b, 1284000000), "1.284 s");
	assert_string_equal(cg_fmt_time(b, sizeof b, 4300000), "4.3 ms");
	assert_string_equal(cg_fmt_time(b, sizeof b, 850000), "850 \xc2\xb5s");
	assert_string_equal(cg_fmt_time(b, sizeof b, 120), "120 ns");
}

static void percents_say_when_tiny(void **state)
{
	char b[32];
	assert_string_equal(cg_fmt_percent(b, sizeof b, 0.395), "39.5 %");
	assert_string_equal(cg_fmt_percent(b, sizeof b, 0.0001), "<0.1 %");
	assert_string_equal(cg_fmt_percent(b, sizeof b, 0), "0.0 %");
}

static void sizes_parse_binary_and_decimal_suffixes(void **state)
{
	uint64_t v;
	assert_int_equal(cg_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(cg_parse_size("12GiB", &v), 0);
	assert_int_equal(v, 12ull << 30);
	assert_int_equal(cg_parse_size("500MB", &v), 0);
	assert_int_equal(v, 500000000ull);
	assert_int_equal(cg_parse_size("1.5G", &v), 0);
	assert_int_equal(v, 3ull << 29);
	assert_int_equal(cg_parse_size("64k", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(cg_parse_size("18446744073709551000", &v), 0);
	assert_int_equal(v, 18446744073709551000ull);
	assert_int_equal(cg_parse_size("12 GiB", &v), 0);
	assert_int_equal(v, 12ull << 30);
	assert_int_equal(cg_parse_size("", &v), -1);
	assert_int_equal(cg_parse_size("GiB", &v), -1);
	assert_int_equal(cg_parse_size("-5", &v), -1);
	assert_int_equal(cg_parse_size("12 parsecs", &v), -1);
	assert_int_equal(cg_parse_size("99999999999TiB", &v), -1);
	assert_int_equal(cg_parse_size("1e400", &v), -1);
	assert_int_equal(cg_parse_size("18446744073709551616", &v), -1);
}

static void signed_bytes_say_their_sign(void **state)
{
	char b[32];
	assert_string_equal(cg_fmt_bytes_signed(b, sizeof b, 531468), "+519.0 KiB");
	assert_string_equal(cg_fmt_bytes_signed(b, sizeof b, -2097152), "-2.00 MiB");
	assert_string_equal(cg_fmt_bytes_signed(b, sizeof b, 0), "0 B");
	assert_string_equal(cg_fmt_bytes_signed(b, sizeof b, INT64_MIN), "-8.00 EiB");
}

static void text_is_cut_in_the_middle_between_characters(void **state)
{
	char b[64];
	assert_int_equal(cg_text_width("abc"), 3);
	assert_int_equal(cg_text_width("850 \xc2\xb5s"), 6);
	assert_int_equal(cg_text_width(""), 0);
	assert_string_equal(cg_fmt_fit(b, sizeof b, "short", 10), "short");
	assert_string_equal(cg_fmt_fit(b, sizeof b, "abcdefghij", 10), "abcdefghij");
	/* 9 characters kept around the ellipsis: 4 before, 5 after */
	assert_string_equal(cg_fmt_fit(b, sizeof b, "run/train_step#0/forward", 10), "run/\xe2\x80\xa6rward");
	/* multi-byte characters are never split */
	assert_string_equal(cg_fmt_fit(b, sizeof b, "\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5", 4),
			    "\xc2\xb5\xe2\x80\xa6\xc2\xb5\xc2\xb5");
	assert_int_equal(cg_text_width(cg_fmt_fit(b, sizeof b, "abcdefghijklmnop", 7)), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes_use_binary_units_with_three_or_four_digits),
		cmocka_unit_test(counts_get_thousands_separators),
		cmocka_unit_test(times_pick_their_unit),
		cmocka_unit_test(percents_say_when_tiny),
		cmocka_unit_test(sizes_parse_binary_and_decimal_suffixes),
		cmocka_unit_test(signed_bytes_say_their_sign),
		cmocka_unit_test(text_is_cut_in_the_middle_between_characters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
