/* UTF-8: validation of trace text, the shared decoder of one sequence, and
 * prefixes that never cut a character. The reference for what is valid is
 * the Unicode Standard's table of well-formed byte sequences (Table 3-7),
 * written out independently below. */
#include "testutil.h"

#include <stdarg.h>
#include <string.h>

#include "utf8.h"

/* Table 3-7, Well-Formed UTF-8 Byte Sequences: the length of the sequence
 * at s[0..n), 0 when it is not well-formed. */
static size_t table_3_7(const unsigned char *s, size_t n)
{
	static const struct {
		unsigned char lo[4], hi[4];
		size_t len;
	} rows[] = {
		{{0x00}, {0x7f}, 1},
		{{0xc2, 0x80}, {0xdf, 0xbf}, 2},
		{{0xe0, 0xa0, 0x80}, {0xe0, 0xbf, 0xbf}, 3},
		{{0xe1, 0x80, 0x80}, {0xec, 0xbf, 0xbf}, 3},
		{{0xed, 0x80, 0x80}, {0xed, 0x9f, 0xbf}, 3},
		{{0xee, 0x80, 0x80}, {0xef, 0xbf, 0xbf}, 3},
		{{0xf0, 0x90, 0x80, 0x80}, {0xf0, 0xbf, 0xbf, 0xbf}, 4},
		{{0xf1, 0x80, 0x80, 0x80}, {0xf3, 0xbf, 0xbf, 0xbf}, 4},
		{{0xf4, 0x80, 0x80, 0x80}, {0xf4, 0x8f, 0xbf, 0xbf}, 4},
	};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		if (s[0] < rows[r].lo[0] || s[0] > rows[r].hi[0])
			continue;
		if (n < rows[r].len)
			return 0;
		for (size_t k = 1; k < rows[r].len; k++)
			if (s[k] < rows[r].lo[k] || s[k] > rows[r].hi[k])
				return 0;
		return rows[r].len;
	}
	return 0;
}

static cg_utf8_status check(const char *s, size_t n, size_t *offset)
{
	*offset = (size_t)-1;
	return cg_utf8_check(s, n, offset);
}

static void the_decoder_agrees_with_the_unicode_table_on_every_lead_and_second_byte(void **state)
{
	/* Every first and second byte, with third and fourth bytes on and
	 * just off the continuation range 80..BF. */
	const unsigned char tails[] = {0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
	unsigned char s[4];
	for (unsigned b0 = 0; b0 < 256; b0++)
		for (unsigned b1 = 0; b1 < 256; b1++)
			for (size_t i = 0; i < sizeof tails; i++)
				for (size_t j = 0; j < sizeof tails; j++) {
					s[0] = (unsigned char)b0;
					s[1] = (unsigned char)b1;
					s[2] = tails[i];
					s[3] = tails[j];
					size_t want = table_3_7(s, 4), got = cg_utf8_sequence(s, 4);
					if (got != want)
						fail_msg("%02x %02x %02x %02x: decoder says %zu, table %zu", s[0], s[1],
							 s[2], s[3], got, want);
				}
}

static void sequences_at_the_edges_of_each_length(void **state)
{
	struct {
		const char *s;
		size_t len;
	} cases[] = {
		{"\x00", 1},		 /* NUL is ASCII to the decoder; the checker refuses it */
		{"\x7f", 1},		 /* U+007F */
		{"\xc2\x80", 2},	 /* U+0080, the first two-byte character */
		{"\xdf\xbf", 2},	 /* U+07FF */
		{"\xe0\xa0\x80", 3},	 /* U+0800 */
		{"\xed\x9f\xbf", 3},	 /* U+D7FF, just below the surrogates */
		{"\xee\x80\x80", 3},	 /* U+E000, just above them */
		{"\xef\xbf\xbf", 3},	 /* U+FFFF */
		{"\xf0\x90\x80\x80", 4}, /* U+10000 */
		{"\xf4\x8f\xbf\xbf", 4}, /* U+10FFFF, the last code point */
		{"\xc0\x80", 0},	 /* overlong NUL */
		{"\xc1\xbf", 0},	 /* overlong U+007F */
		{"\xe0\x9f\xbf", 0},	 /* overlong U+07FF */
		{"\xf0\x8f\xbf\xbf", 0}, /* overlong U+FFFF */
		{"\xed\xa0\x80", 0},	 /* U+D800 */
		{"\xed\xbf\xbf", 0},	 /* U+DFFF */
		{"\xf4\x90\x80\x80", 0}, /* U+110000 */
		{"\xf5\x80\x80\x80", 0}, /* lead byte beyond U+10FFFF */
		{"\xff", 0},
		{"\x80", 0}, /* a stray continuation byte */
		{"\xe2\x82z", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const unsigned char *s = (const unsigned char *)cases[i].s;
		size_t n = cases[i].len ? cases[i].len : strlen(cases[i].s);
		assert_int_equal(cg_utf8_sequence(s, n ? n : 1), cases[i].len);
	}
	/* Cut short by n, though the bytes beyond are right */
	assert_int_equal(cg_utf8_sequence((const unsigned char *)"\xc3\xa9", 1), 0);
	assert_int_equal(cg_utf8_sequence((const unsigned char *)"\xe2\x82\xac", 2), 0);
	assert_int_equal(cg_utf8_sequence((const unsigned char *)"\xf0\x9f\x98\x80", 3), 0);
	assert_int_equal(cg_utf8_sequence((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
}

static void valid_text_passes(void **state)
{
	size_t off;
	assert_int_equal(check("", 0, &off), CG_UTF8_OK);
	const char *s = "aten::mm \xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80 \x7f end of a longer line";
	assert_int_equal(check(s, strlen(s), &off), CG_UTF8_OK);
	/* n bounds the check: the NUL terminator itself is not looked at */
	assert_int_equal(check("abc", 3, &off), CG_UTF8_OK);
}

static void the_first_problem_is_reported_with_its_offset(void **state)
{
	size_t off;
	/* 13 ASCII bytes (one fast 8-byte word, then bytewise), then an overlong form */
	const char *a = "0123456789abc\xc0\x80xyz";
	assert_int_equal(check(a, strlen(a) + 0, &off), CG_UTF8_INVALID);
	assert_int_equal(off, 13);
	/* NUL at 20, after a valid three-byte character at 3..5 */
	const char b[] = "abc\xe2\x82\xac" "defghijklmnopq\0rs";
	assert_int_equal(check(b, sizeof b - 1, &off), CG_UTF8_NUL);
	assert_int_equal(off, 20);
	/* a surrogate at 1, though a NUL follows: the first problem counts */
	const char c[] = "x\xed\xa0\x80\0";
	assert_int_equal(check(c, sizeof c - 1, &off), CG_UTF8_INVALID);
	assert_int_equal(off, 1);
	/* above U+10FFFF at 2 */
	assert_int_equal(check("ab\xf4\x90\x80\x80", 6, &off), CG_UTF8_INVALID);
	assert_int_equal(off, 2);
	/* a NUL inside a sequence makes the sequence invalid where it starts */
	assert_int_equal(check("ab\xc3\0", 4, &off), CG_UTF8_INVALID);
	assert_int_equal(off, 2);
}

static void a_sequence_cut_by_the_end_of_the_text_is_invalid(void **state)
{
	size_t off;
	/* "€" is e2 82 ac; "😀" is f0 9f 98 80 */
	assert_int_equal(check("\xe2\x82", 2, &off), CG_UTF8_INVALID);
	assert_int_equal(off, 0);
	assert_int_equal(check("abcdefghij\xf0\x9f\x98", 13, &off), CG_UTF8_INVALID);
	assert_int_equal(off, 10);
	/* the full text is fine, and n one short of it is not */
	assert_int_equal(check("abcdefghij\xf0\x9f\x98\x80", 14, &off), CG_UTF8_OK);
	assert_int_equal(check("abcdefg\xe2\x82\xac", 9, &off), CG_UTF8_INVALID);
	assert_int_equal(off, 7);
}

/* Every problem at every position of a 40-byte line, at every alignment of
 * the line in memory: the 8-byte fast path must neither skip nor invent one.
 * The line lies in a heap block of exactly its size, so a read past n is an
 * error under AddressSanitizer. */
static void the_fast_path_finds_problems_at_every_offset_and_alignment(void **state)
{
	const unsigned char bad[] = {0x00, 0x80, 0xc0, 0xff, 0xed};
	for (size_t align = 0; align < 8; align++) {
		for (size_t n = 0; n <= 40; n++) {
			unsigned char *block = malloc(align + n + 1);
			unsigned char *line = block + align;
			memset(line, 'a', n);
			size_t off;
			assert_int_equal(check((const char *)line, n, &off), CG_UTF8_OK);
			for (size_t pos = 0; pos < n; pos++) {
				for (size_t b = 0; b < sizeof bad; b++) {
					line[pos] = bad[b];
					cg_utf8_status want = bad[b] == 0 ? CG_UTF8_NUL : CG_UTF8_INVALID;
					if (check((const char *)line, n, &off) != want || off != pos)
						fail_msg("byte %02x at %zu of %zu (alignment %zu): status %d offset %zu",
							 bad[b], pos, n, align, (int)check((const char *)line, n, &off),
							 off);
				}
				line[pos] = 'a';
			}
			free(block);
		}
	}
}

static void multibyte_characters_straddling_a_word_pass_at_every_offset(void **state)
{
	/* "€" at every position of a 24-byte ASCII line, across the 8-byte words */
	char line[24];
	for (size_t pos = 0; pos + 3 <= sizeof line; pos++) {
		memset(line, 'q', sizeof line);
		memcpy(line + pos, "\xe2\x82\xac", 3);
		size_t off;
		assert_int_equal(check(line, sizeof line, &off), CG_UTF8_OK);
		/* its last byte replaced: invalid where the character starts */
		line[pos + 2] = 'q';
		assert_int_equal(check(line, sizeof line, &off), CG_UTF8_INVALID);
		assert_int_equal(off, pos);
	}
}

static void a_prefix_never_cuts_a_character(void **state)
{
	/* "a" "é" "€" "😀" "b": characters start at 0, 1, 3, 6, 10; n = 11 */
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "b";
	const size_t n = 11, starts[] = {0, 1, 3, 6, 10, 11};
	for (size_t max = 0; max <= n + 3; max++) {
		size_t want = 0; /* the last character boundary not beyond max */
		for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
			if (starts[k] <= max)
				want = starts[k];
		assert_int_equal(cg_utf8_prefix(s, n, max), want);
	}
	assert_int_equal(cg_utf8_prefix("", 0, 0), 0);
	assert_int_equal(cg_utf8_prefix("abc", 3, 0), 0);
	assert_int_equal(cg_utf8_prefix("abc", 3, 2), 2);
	assert_int_equal(cg_utf8_prefix("\xf0\x9f\x98\x80", 4, 3), 0);
}

static void a_prefix_of_invalid_bytes_cuts_between_bytes(void **state)
{
	/* stray continuation bytes and a lead cut short are one byte each */
	assert_int_equal(cg_utf8_prefix("a\x80\x80\x80\x80" "b", 6, 3), 3);
	assert_int_equal(cg_utf8_prefix("ab\xe2\x82" "cd", 6, 3), 3);
	/* a valid character after junk is still not cut */
	assert_int_equal(cg_utf8_prefix("\xff\xe2\x82\xac", 4, 2), 1);
}

static void an_excerpt_ends_at_a_character_with_an_ellipsis(void **state)
{
	char buf[64];
	/* 39 'a' then "€" at bytes 39..41: 40 bytes would cut the euro sign */
	char s[48];
	memset(s, 'a', 39);
	memcpy(s + 39, "\xe2\x82\xac" "xyz", 6);
	char want[48];
	memset(want, 'a', 39);
	memcpy(want + 39, "\xe2\x80\xa6", 4);
	assert_string_equal(cg_utf8_excerpt(buf, sizeof buf, s, 45, 40), want);
	/* 42 bytes end right after the euro sign */
	memcpy(want + 39, "\xe2\x82\xac\xe2\x80\xa6", 7);
	assert_string_equal(cg_utf8_excerpt(buf, sizeof buf, s, 45, 42), want);
	/* short enough: as it is, no ellipsis */
	assert_string_equal(cg_utf8_excerpt(buf, sizeof buf, "ab\xc3\xa9", 4, 40), "ab\xc3\xa9");
	assert_string_equal(cg_utf8_excerpt(buf, sizeof buf, "ab\xc3\xa9", 4, 4), "ab\xc3\xa9");
	assert_string_equal(cg_utf8_excerpt(buf, sizeof buf, "ab\xc3\xa9", 4, 3), "ab\xe2\x80\xa6");
	/* a buffer smaller than the excerpt: cut to fit, still at a character */
	assert_string_equal(cg_utf8_excerpt(buf, 7, "abc\xc3\xa9" "def", 8, 40), "abc\xe2\x80\xa6");
	assert_string_equal(cg_utf8_excerpt(buf, 3, "abcdef", 6, 40), "ab");
	assert_string_equal(cg_utf8_excerpt(buf, 1, "abcdef", 6, 40), "");
}

static char *format(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

static void a_formatted_message_too_long_ends_at_a_character(void **state)
{
	char buf[10];
	assert_string_equal(format(buf, sizeof buf, "%s", "short"), "short");
	assert_string_equal(format(buf, sizeof buf, "%s", "123456789"), "123456789");
	/* 10 bytes hold 6 and "…"; "é" at bytes 5..6 does not fit whole */
	assert_string_equal(format(buf, sizeof buf, "%s", "12345\xc3\xa9" "789"), "12345\xe2\x80\xa6");
	assert_string_equal(format(buf, sizeof buf, "%s", "1234\xc3\xa9" "6789"), "1234\xc3\xa9\xe2\x80\xa6");
	/* "😀" at bytes 3..6 */
	assert_string_equal(format(buf, sizeof buf, "ab%s%s", "c\xf0\x9f\x98\x80", "zzzz"), "abc\xe2\x80\xa6");
	/* too small for an ellipsis: cut at a character only */
	assert_string_equal(format(buf, 3, "%s", "a\xc3\xa9"), "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_decoder_agrees_with_the_unicode_table_on_every_lead_and_second_byte),
		cmocka_unit_test(sequences_at_the_edges_of_each_length),
		cmocka_unit_test(valid_text_passes),
		cmocka_unit_test(the_first_problem_is_reported_with_its_offset),
		cmocka_unit_test(a_sequence_cut_by_the_end_of_the_text_is_invalid),
		cmocka_unit_test(the_fast_path_finds_problems_at_every_offset_and_alignment),
		cmocka_unit_test(multibyte_characters_straddling_a_word_pass_at_every_offset),
		cmocka_unit_test(a_prefix_never_cuts_a_character),
		cmocka_unit_test(a_prefix_of_invalid_bytes_cuts_between_bytes),
		cmocka_unit_test(an_excerpt_ends_at_a_character_with_an_ellipsis),
		cmocka_unit_test(a_formatted_message_too_long_ends_at_a_character),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
