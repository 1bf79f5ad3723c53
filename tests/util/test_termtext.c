/* Terminal text: every control a terminal acts on comes out as a visible
 * escape, the rest as it is. Expected strings are worked by hand from the
 * table in termtext.h. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "termtext.h"
#include "xalloc.h"

/* s escaped whole, as a heap string. */
static char *esc(const char *s, size_t n)
{
	size_t len = cg_termtext_escape(NULL, 0, s, n);
	char *out = malloc(len + 1);
	assert_int_equal(cg_termtext_escape(out, len + 1, s, n), len);
	assert_int_equal(strlen(out), len);
	return out;
}

static void check(const char *s, size_t n, const char *want)
{
	char *got = esc(s, n);
	assert_string_equal(got, want);
	assert_int_equal(cg_termtext_plain(s, n), strcmp(s, want) == 0 && strlen(want) == n);
	free(got);
}

#define CHECK(lit, want) check(lit, sizeof lit - 1, want)

static void printable_text_and_valid_utf8_stay_as_they_are(void **state)
{
	CHECK("", "");
	CHECK("aten::mm step#3 cuda:0 ~!@#$%^&*()_+{}|:\"<>?", "aten::mm step#3 cuda:0 ~!@#$%^&*()_+{}|:\"<>?");
	/* é U+00E9, the first character after C1 U+00A0, € and an emoji */
	CHECK("\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xf0\x9f\x98\x80", "\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* a backslash is not escaped: C:\x1b is text, not ESC */
	CHECK("C:\\x1b\\n", "C:\\x1b\\n");
	assert_true(cg_termtext_plain("C:\\x1b", 6));
}

static void c0_controls_and_del_become_escapes(void **state)
{
	CHECK("\x1b[2J", "\\x1b[2J");
	CHECK("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
	CHECK("FAIL\rok  ", "FAIL\\rok  ");
	CHECK("a\nb\tc", "a\\nb\\tc");
	CHECK("\x01\x08\x0b\x0c\x1f\x7f", "\\x01\\x08\\x0b\\x0c\\x1f\\x7f");
	/* a NUL inside a counted string */
	check("a\0b", 3, "a\\x00b");
}

static void c1_controls_and_bidi_overrides_become_code_points(void **state)
{
	/* U+0080, U+009B (CSI), U+009F */
	CHECK("\xc2\x80\xc2\x9b" "31m\xc2\x9f", "\\u0080\\u009b31m\\u009f");
	/* RLO U+202E, LRE U+202A, LRI U+2066, PDI U+2069; U+2029 and U+206A stay */
	CHECK("\xe2\x80\xae" "abc\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9", "\\u202eabc\\u202a\\u2066\\u2069");
	CHECK("\xe2\x80\xa9\xe2\x81\xaa", "\xe2\x80\xa9\xe2\x81\xaa");
}

static void bytes_outside_valid_utf8_become_hex_one_by_one(void **state)
{
	/* raw 0x9B (a C1 CSI to an 8-bit terminal), 0xFF, a stray continuation */
	CHECK("a\x9b" "b\xff\x80", "a\\x9bb\\xff\\x80");
	/* a lead byte cut short, then ASCII: the lead alone is escaped */
	CHECK("\xe2\x82" "x", "\\xe2\\x82x");
	/* overlong "/" and a UTF-16 surrogate in UTF-8 form */
	CHECK("\xc0\xaf\xed\xa0\x80", "\\xc0\\xaf\\xed\\xa0\\x80");
	/* a character cut by the end of the counted text */
	check("\xe2\x82\xac", 2, "\\xe2\\x82");
}

static void escaping_twice_changes_nothing(void **state)
{
	const char s[] = "\x1b[2J\r\xc2\x9b\x7f\xff\xe2\x80\xae ok";
	char *once = esc(s, sizeof s - 1), *twice = esc(once, strlen(once));
	assert_string_equal(once, "\\x1b[2J\\r\\u009b\\x7f\\xff\\u202e ok");
	assert_string_equal(twice, once);
	assert_true(cg_termtext_plain(once, strlen(once)));
	free(once);
	free(twice);
}

static void a_cut_keeps_whole_escapes_and_characters(void **state)
{
	char buf[16];
	/* "ab\x1b" is 6 bytes: in 6 bytes (5 and the NUL) only "ab" fits */
	assert_int_equal(cg_termtext_escape(buf, 6, "ab\x1b" "c", 4), 7);
	assert_string_equal(buf, "ab");
	assert_int_equal(cg_termtext_escape(buf, 7, "ab\x1b" "c", 4), 7);
	assert_string_equal(buf, "ab\\x1b");
	/* "€" needs 4 bytes with the NUL; nothing after a piece that did not fit */
	assert_int_equal(cg_termtext_escape(buf, 4, "a\xe2\x82\xac" "b", 5), 5);
	assert_string_equal(buf, "a");
	assert_int_equal(cg_termtext_escape(buf, 1, "abc", 3), 3);
	assert_string_equal(buf, "");
	assert_int_equal(cg_termtext_escape(NULL, 0, "\xc2\x9b", 2), 6);
}

static void dup_and_write_agree_with_escape(void **state)
{
	const char s[] = "dev\x1b[2J\xc2\x9b\xff\r";
	const char want[] = "dev\\x1b[2J\\u009b\\xff\\r";
	char *d = cg_termtext_dup(s);
	assert_string_equal(d, want);
	cg_free(d);
	char *mem = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&mem, &size);
	assert_non_null(f);
	assert_int_equal(cg_termtext_write(f, s, sizeof s - 1), 0);
	assert_int_equal(cg_termtext_line(f, "%s: %d", "x\ny", 7), 0);
	fclose(f);
	assert_string_equal(mem, "dev\\x1b[2J\\u009b\\xff\\rx\\ny: 7\n");
	free(mem);
}

static void a_long_line_is_written_whole(void **state)
{
	/* longer than vline's stack buffer: 3000 'a', ESC, 3000 'b' */
	char *s = malloc(6002), *mem = NULL;
	memset(s, 'a', 3000);
	s[3000] = '\x1b';
	memset(s + 3001, 'b', 3000);
	s[6001] = '\0';
	size_t size = 0;
	FILE *f = open_memstream(&mem, &size);
	assert_int_equal(cg_termtext_line(f, "<%s>", s), 0);
	fclose(f);
	assert_int_equal(size, 1 + 3000 + 4 + 3000 + 1 + 1);
	assert_memory_equal(mem + 3001, "\\x1b", 4);
	assert_int_equal(mem[size - 2], '>');
	assert_int_equal(mem[size - 1], '\n');
	free(s);
	free(mem);
}

static void a_write_error_is_reported(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(cg_termtext_line(f, "%s", "x"), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(printable_text_and_valid_utf8_stay_as_they_are),
		cmocka_unit_test(c0_controls_and_del_become_escapes),
		cmocka_unit_test(c1_controls_and_bidi_overrides_become_code_points),
		cmocka_unit_test(bytes_outside_valid_utf8_become_hex_one_by_one),
		cmocka_unit_test(escaping_twice_changes_nothing),
		cmocka_unit_test(a_cut_keeps_whole_escapes_and_characters),
		cmocka_unit_test(dup_and_write_agree_with_escape),
		cmocka_unit_test(a_long_line_is_written_whole),
		cmocka_unit_test(a_write_error_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
