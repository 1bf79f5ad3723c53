/* One JSONL line into the field table: the fast scanner first, cJSON for
 * what it declines (jsonl.c), and cJSON's path itself (jsonl_cjson.c): its
 * messages, numbers kept as their text, arrays, meta members, cJSON's
 * whitespace, and the first of duplicate keys. */
#include "testutil.h"

#include <string.h>

#include "jsonl.h"

/* Parses s (a C string: the NUL after it is the one the parser needs). */
static int parse(cg_jsonl_parser *p, const char *s, const cg_fields **f, char *msg)
{
	msg[0] = '\0';
	return cg_jsonl_parse(p, s, strlen(s), f, msg, 256);
}

/* The literal text of a value, NUL-terminated here for comparisons. */
static const char *text(const cg_jval *v)
{
	static char buf[4][256];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, 256, "%.*s", (int)v->n, v->s ? v->s : "");
	return b;
}

static void cg_jsonl_parse_gives_cjsons_error_for_lines_the_scanner_declines(void **state)
{
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	const cg_fields *f;
	char msg[256];
	const char *line = "{\"kind\":\"memory\",\"bytes\":1,}";
	assert_int_equal(cg_jsonl_parse(p, line, strlen(line), &f, msg, sizeof msg), -1);
	assert_string_equal(msg, "not valid JSON (error near column 29)");
	uint64_t fast, cjson;
	cg_jsonl_parser_counts(p, &fast, &cjson);
	assert_int_equal(fast, 0);
	assert_int_equal(cjson, 1);
	line = "{\"kind\":\"memory\",\"bytes\":1}";
	assert_int_equal(cg_jsonl_parse(p, line, strlen(line), &f, msg, sizeof msg), 0);
	cg_jsonl_parser_counts(p, &fast, &cjson);
	assert_int_equal(fast, 1);
	cg_jsonl_parser_free(p);
}

static void lines_the_scanner_declines_are_read_by_cjson(void **state)
{
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	const cg_fields *f;
	char msg[256];
	uint64_t fast, cjson;
	/* A common shape: the scanner's. */
	assert_int_equal(parse(p, "{\"kind\":\"memory\",\"bytes\":12}", &f, msg), 0);
	assert_string_equal(text(&f->v[CG_F_BYTES]), "12");
	/* An escape: cJSON's, unescaped. */
	assert_int_equal(parse(p, "{\"kind\":\"mem\\u006fry\",\"name\":\"a\\u00e9\\n\\\"\"}", &f, msg), 0);
	assert_string_equal(f->v[CG_F_KIND].s, "memory");
	assert_int_equal(f->v[CG_F_NAME].n, 5); /* 'a', two bytes of U+00E9, '\n', '"' */
	assert_string_equal(f->v[CG_F_NAME].s, "a\xc3\xa9\n\"");
	/* A meta line: cJSON's, to keep its members. */
	assert_int_equal(parse(p, "{\"kind\":\"meta\",\"schema\":\"s\"}", &f, msg), 0);
	assert_true(f->is_meta);
	cg_jsonl_parser_counts(p, &fast, &cjson);
	assert_int_equal(fast, 1);
	assert_int_equal(cjson, 2);

	/* cjson_only: every line through cJSON, with the same fields. */
	cg_jsonl_parser_set_cjson_only(p, true);
	assert_int_equal(parse(p, "{\"kind\":\"memory\",\"bytes\":12}", &f, msg), 0);
	assert_string_equal(text(&f->v[CG_F_BYTES]), "12");
	assert_int_equal(f->v[CG_F_BYTES].type, CG_JT_NUMBER);
	cg_jsonl_parser_counts(p, &fast, &cjson);
	assert_int_equal(fast, 1);
	assert_int_equal(cjson, 3);
	cg_jsonl_parser_set_cjson_only(p, false);
	assert_int_equal(parse(p, "{\"kind\":\"memory\",\"bytes\":12}", &f, msg), 0);
	cg_jsonl_parser_counts(p, &fast, &cjson);
	assert_int_equal(fast, 2);
	cg_jsonl_parser_free(p);
}

static void a_line_that_is_not_json_says_near_which_column(void **state)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		/* The column is where cJSON gave up, counting from 1: the byte it
		 * could not take, or for a string it could not read (a member
		 * name, here the '}' at column 8) the byte after its start. */
		{"{\"a\":1,}", "not valid JSON (error near column 9)"},
		{"not json", "not valid JSON (error near column 1)"},
		{"", "not valid JSON (error near column 1)"},
		{"{\"a\":1} x", "not valid JSON (error near column 9)"},	 /* trailing text */
		{"{\"a\":tru}", "not valid JSON (error near column 6)"}, /* the literal */
		{"{\"a\":\"open}", "not valid JSON (error near column 7)"}, /* the string from column 6 */
		{"[1,2]", "not a JSON object"},
		{"\"text\"", "not a JSON object"},
		{"42", "not a JSON object"},
		{"null", "not a JSON object"},
	};
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const cg_fields *f;
		char msg[256];
		assert_int_equal(parse(p, cases[i].line, &f, msg), -1);
		if (strcmp(msg, cases[i].msg) != 0)
			fail_msg("%s: \"%s\", expected \"%s\"", cases[i].line, msg, cases[i].msg);
	}
	cg_jsonl_parser_free(p);
}

static void nul_bytes_and_invalid_utf8_are_reported_by_column_and_byte(void **state)
{
	static const struct {
		const char *line;
		size_t len;
		const char *msg;
	} cases[] = {
		{"{\"a\":\"b\0\"}", 10, "NUL byte at column 8"},
		{"{\"a\":\"\xc3(\"}", 10, "not valid UTF-8 at column 7 (byte 0xc3)"},	   /* lead byte, no continuation */
		{"{\"a\":\"\xc0\xaf\"}", 10, "not valid UTF-8 at column 7 (byte 0xc0)"},  /* overlong '/' */
		{"{\"a\":\"\xed\xa0\x80\"}", 11, "not valid UTF-8 at column 7 (byte 0xed)"}, /* a surrogate */
		{"{\"a\":\"\xf4\x90\x80\x80\"}", 12, "not valid UTF-8 at column 7 (byte 0xf4)"}, /* beyond U+10FFFF */
		{"{\"a\":\"x\x80\"}", 10, "not valid UTF-8 at column 8 (byte 0x80)"},	   /* stray continuation */
		{"{\"a\":1}\xe2\x82", 9, "not valid UTF-8 at column 8 (byte 0xe2)"},	   /* cut at the end */
		{"\xff", 1, "not valid UTF-8 at column 1 (byte 0xff)"},
	};
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int only = 0; only < 2; only++) {
			cg_jsonl_parser_set_cjson_only(p, only);
			char line[32];
			memcpy(line, cases[i].line, cases[i].len);
			line[cases[i].len] = '\0';
			const cg_fields *f;
			char msg[256];
			assert_int_equal(cg_jsonl_parse(p, line, cases[i].len, &f, msg, sizeof msg), -1);
			if (strcmp(msg, cases[i].msg) != 0)
				fail_msg("case %zu: \"%s\", expected \"%s\"", i, msg, cases[i].msg);
		}
	}
	/* Valid multi-byte text is fine. */
	const cg_fields *f;
	char msg[256];
	assert_int_equal(parse(p, "{\"name\":\"\xe2\x82\xac \xf0\x9f\x98\x80\"}", &f, msg), 0);
	assert_string_equal(f->v[CG_F_NAME].s, "\xe2\x82\xac \xf0\x9f\x98\x80");
	cg_jsonl_parser_free(p);
}

static void numbers_are_kept_as_their_literal_text(void **state)
{
	/* 2^64 - 1 and 2^53 + 1 are not doubles; the text is what record.c reads. */
	const char *line = "{\"bytes\":18446744073709551615,\"timestamp_ns\":9007199254740993,"
			   "\"norm\":-1.50e+3,\"step\":0,\"used_bytes\":-0}";
	for (int only = 0; only < 2; only++) {
		cg_jsonl_parser *p = cg_jsonl_parser_new();
		cg_jsonl_parser_set_cjson_only(p, only);
		const cg_fields *f;
		char msg[256];
		assert_int_equal(parse(p, line, &f, msg), 0);
		assert_int_equal(f->v[CG_F_BYTES].type, CG_JT_NUMBER);
		assert_string_equal(text(&f->v[CG_F_BYTES]), "18446744073709551615");
		assert_string_equal(text(&f->v[CG_F_TIMESTAMP_NS]), "9007199254740993");
		assert_string_equal(text(&f->v[CG_F_NORM]), "-1.50e+3");
		assert_string_equal(text(&f->v[CG_F_STEP]), "0");
		assert_string_equal(text(&f->v[CG_F_USED_BYTES]), "-0");
		/* Literals of every type. */
		assert_int_equal(parse(p, "{\"measured\":true,\"requires_grad\":false,\"output\":null,\"key\":{\"a\":[1]}}",
				       &f, msg), 0);
		assert_int_equal(f->v[CG_F_MEASURED].type, CG_JT_BOOL);
		assert_true(f->v[CG_F_MEASURED].boolean);
		assert_false(f->v[CG_F_REQUIRES_GRAD].boolean);
		assert_int_equal(f->v[CG_F_OUTPUT].type, CG_JT_NULL);
		assert_int_equal(f->v[CG_F_KEY].type, CG_JT_OBJECT);
		assert_string_equal(text(&f->v[CG_F_KEY]), "{\"a\":[1]}");
		assert_int_equal(f->v[CG_F_BYTES].type, CG_JT_ABSENT); /* the last line's fields are gone */
		cg_jsonl_parser_free(p);
	}
}

static void arrays_give_each_element(void **state)
{
	/* An escape sends the line to cJSON. */
	const char *line = "{\"shape\":[4, 16 ,\"x\\u0041\",null,true,[1, 2],{\"a\":1}],\"inputs\":[],"
			   "\"name\":\"n\",\"output\":[\"o\"]}";
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	const cg_fields *f;
	char msg[256];
	assert_int_equal(parse(p, line, &f, msg), 0);
	uint64_t fast, cjson;
	cg_jsonl_parser_counts(p, &fast, &cjson);
	assert_int_equal(cjson, 1);
	const cg_jval *shape = &f->v[CG_F_SHAPE];
	assert_int_equal(shape->type, CG_JT_ARRAY);
	assert_string_equal(text(shape), "[4, 16 ,\"x\\u0041\",null,true,[1, 2],{\"a\":1}]");
	assert_int_equal(shape->first, 0);
	assert_int_equal(shape->count, 7);
	const cg_jval *e = &f->elems[shape->first];
	assert_int_equal(e[0].type, CG_JT_NUMBER);
	assert_string_equal(text(&e[0]), "4");
	assert_string_equal(text(&e[1]), "16");
	assert_int_equal(e[2].type, CG_JT_STRING);
	assert_string_equal(e[2].s, "xA");
	assert_int_equal(e[3].type, CG_JT_NULL);
	assert_int_equal(e[4].type, CG_JT_BOOL);
	assert_true(e[4].boolean);
	assert_int_equal(e[5].type, CG_JT_ARRAY);
	assert_string_equal(text(&e[5]), "[1, 2]");
	assert_int_equal(e[6].type, CG_JT_OBJECT);
	assert_string_equal(text(&e[6]), "{\"a\":1}");
	/* The next arrays' elements follow. */
	assert_int_equal(f->v[CG_F_INPUTS].count, 0);
	assert_int_equal(f->v[CG_F_OUTPUT].first, 7);
	assert_int_equal(f->v[CG_F_OUTPUT].count, 1);
	assert_string_equal(f->elems[7].s, "o");
	assert_int_equal(f->nelems, 8);
	cg_jsonl_parser_free(p);
}

static void meta_lines_keep_every_member_in_order(void **state)
{
	const char *line = "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"r1\","
			   "\"devices\":[\"cpu\", \"cuda:0\"],\"steps\":4.0,\"extra\":{\"a\":1},\"run_id\":\"again\"}";
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	const cg_fields *f;
	char msg[256];
	assert_int_equal(parse(p, line, &f, msg), 0);
	assert_true(f->is_meta);
	static const char *const keys[] = {"kind", "schema", "run_id", "devices", "steps", "extra", "run_id"};
	static const char *const raws[] = {"\"meta\"", "\"candle-graph/trace/6\"", "\"r1\"", "[\"cpu\", \"cuda:0\"]",
					   "4.0", "{\"a\":1}", "\"again\""};
	assert_int_equal(f->nmembers, 7); /* a repeated key is a member twice */
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(f->members[i].key_len, strlen(keys[i]));
		assert_memory_equal(f->members[i].key, keys[i], strlen(keys[i]));
		assert_int_equal(f->members[i].raw_len, strlen(raws[i]));
		assert_memory_equal(f->members[i].raw, raws[i], strlen(raws[i]));
	}
	assert_int_equal(f->members[2].value.type, CG_JT_STRING);
	assert_string_equal(f->members[2].value.s, "r1");
	assert_int_equal(f->members[3].value.type, CG_JT_ARRAY);
	assert_int_equal(f->members[4].value.type, CG_JT_NUMBER);
	assert_string_equal(text(&f->members[4].value), "4.0");
	assert_string_equal(f->v[CG_F_SCHEMA].s, "candle-graph/trace/6");

	/* The next line is no meta line, and keeps no members. */
	assert_int_equal(parse(p, "{\"kind\":\"op\",\"name\":\"x\\u0041\"}", &f, msg), 0);
	assert_false(f->is_meta);
	assert_int_equal(f->nmembers, 0);
	/* The first "kind" decides. */
	assert_int_equal(parse(p, "{\"kind\":\"op\",\"kind\":\"meta\"}", &f, msg), 0);
	assert_false(f->is_meta);
	assert_int_equal(parse(p, "{\"kind\":\"meta\",\"kind\":\"op\"}", &f, msg), 0);
	assert_true(f->is_meta);
	assert_string_equal(f->v[CG_F_KIND].s, "meta");
	cg_jsonl_parser_free(p);
}

static void cjsons_whitespace_still_gives_the_literal_text(void **state)
{
	/* cJSON takes every byte from 1 to 32 as whitespace; the texts must
	 * still be found where cJSON found the values. */
	const char *line = "\x01{\x02\"bytes\"\x03:\x04" "12\x1f,\"shape\"\x0b:[\x0c" "1\x0e,\x1e" "2\x7f]," /* 0x7f is no whitespace */
			   "\"norm\":\t-3\r}\x1d";
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	const cg_fields *f;
	char msg[256];
	/* 0x7f inside the array is not whitespace: cJSON refuses it. */
	assert_int_equal(parse(p, line, &f, msg), -1);
	assert_non_null(strstr(msg, "not valid JSON"));

	line = "\x01{\x02\"bytes\"\x03:\x04" "12\x1f,\"shape\"\x0b:[\x0c" "1\x0e,\x1e" "2\x10],\"norm\":\t-3\r,"
	       "\"kind\"\x05:\x06\"meta\"\x07}\x1d";
	assert_int_equal(parse(p, line, &f, msg), 0);
	uint64_t fast, cjson;
	cg_jsonl_parser_counts(p, &fast, &cjson);
	assert_int_equal(fast, 0);
	assert_string_equal(text(&f->v[CG_F_BYTES]), "12");
	assert_string_equal(text(&f->v[CG_F_NORM]), "-3");
	assert_int_equal(f->v[CG_F_SHAPE].count, 2);
	assert_string_equal(text(&f->elems[0]), "1");
	assert_string_equal(text(&f->elems[1]), "2");
	/* A meta line's members too. */
	assert_true(f->is_meta);
	assert_int_equal(f->nmembers, 4);
	assert_int_equal(f->members[3].raw_len, 6);
	assert_memory_equal(f->members[3].raw, "\"meta\"", 6);
	assert_memory_equal(f->members[1].key, "shape", 5);
	assert_int_equal(f->members[1].raw_len, strlen("[\x0c" "1\x0e,\x1e" "2\x10]"));
	cg_jsonl_parser_free(p);
}

static void a_byte_order_mark_before_a_line_is_skipped_by_both_paths(void **state)
{
	/* cJSON skips the mark; the walk of the raw text must too, or the
	 * members lose their values (a meta line's, numbers). */
	const char *meta = "\xef\xbb\xbf {\"kind\":\"meta\",\"schema\":\"s\",\"seed\":42}";
	const char *mem = "\xef\xbb\xbf{\"kind\":\"memory\",\"bytes\":12,\"shape\":[3,4]}";
	for (int only = 0; only < 2; only++) {
		cg_jsonl_parser *p = cg_jsonl_parser_new();
		cg_jsonl_parser_set_cjson_only(p, only);
		const cg_fields *f;
		char msg[256];
		assert_int_equal(parse(p, meta, &f, msg), 0);
		assert_true(f->is_meta);
		assert_int_equal(f->nmembers, 3);
		assert_memory_equal(f->members[2].key, "seed", 4);
		assert_int_equal(f->members[2].raw_len, 2);
		assert_memory_equal(f->members[2].raw, "42", 2);
		assert_string_equal(f->v[CG_F_KIND].s, "meta");
		assert_int_equal(parse(p, mem, &f, msg), 0);
		assert_string_equal(f->v[CG_F_KIND].s, "memory");
		assert_string_equal(text(&f->v[CG_F_BYTES]), "12");
		assert_int_equal(f->v[CG_F_SHAPE].count, 2);
		assert_string_equal(text(&f->elems[1]), "4");
		cg_jsonl_parser_free(p);
	}
}

static void the_first_of_duplicate_keys_wins_in_both_paths(void **state)
{
	for (int only = 0; only < 2; only++) {
		cg_jsonl_parser *p = cg_jsonl_parser_new();
		cg_jsonl_parser_set_cjson_only(p, only);
		const cg_fields *f;
		char msg[256];
		assert_int_equal(parse(p, "{\"bytes\":1,\"kind\":\"memory\",\"bytes\":2,\"kind\":\"op\",\"shape\":[3],\"shape\":[4,5]}",
				       &f, msg), 0);
		assert_string_equal(text(&f->v[CG_F_BYTES]), "1");
		assert_string_equal(f->v[CG_F_KIND].s, "memory");
		assert_int_equal(f->v[CG_F_SHAPE].count, 1);
		assert_int_equal(f->nelems, 1); /* the second shape's elements are not kept */
		/* Whatever the first one's type. */
		assert_int_equal(parse(p, "{\"bytes\":\"x\",\"bytes\":2}", &f, msg), 0);
		assert_int_equal(f->v[CG_F_BYTES].type, CG_JT_STRING);
		cg_jsonl_parser_free(p);
	}
}

static void huge_and_deep_lines_are_read_or_refused_without_harm(void **state)
{
	/* A 1 MiB string, beyond the arena's 256 KiB chunks, then a small line. */
	size_t big = 1u << 20;
	char *line = malloc(big + 64);
	size_t n = (size_t)sprintf(line, "{\"kind\":\"op\\u0020\",\"name\":\"");
	memset(line + n, 'q', big);
	n += big;
	n += (size_t)sprintf(line + n, "\"}");
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	const cg_fields *f;
	char msg[256];
	assert_int_equal(cg_jsonl_parse(p, line, n, &f, msg, sizeof msg), 0);
	assert_int_equal(f->v[CG_F_NAME].n, big);
	assert_string_equal(f->v[CG_F_KIND].s, "op ");
	assert_int_equal(parse(p, "{\"kind\":\"x\\u0041\"}", &f, msg), 0);
	assert_string_equal(f->v[CG_F_KIND].s, "xA");
	assert_int_equal(f->v[CG_F_NAME].type, CG_JT_ABSENT);
	free(line);

	/* 5000 nested arrays: past cJSON's nesting limit, refused. */
	line = malloc(10100);
	n = (size_t)sprintf(line, "{\"a\":");
	memset(line + n, '[', 5000);
	memset(line + n + 5000, ']', 5000);
	n += 10000;
	line[n++] = '}';
	line[n] = '\0';
	assert_int_equal(cg_jsonl_parse(p, line, n, &f, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "not valid JSON (error near column "));
	free(line);
	cg_jsonl_parser_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cg_jsonl_parse_gives_cjsons_error_for_lines_the_scanner_declines),
		cmocka_unit_test(lines_the_scanner_declines_are_read_by_cjson),
		cmocka_unit_test(a_line_that_is_not_json_says_near_which_column),
		cmocka_unit_test(nul_bytes_and_invalid_utf8_are_reported_by_column_and_byte),
		cmocka_unit_test(numbers_are_kept_as_their_literal_text),
		cmocka_unit_test(arrays_give_each_element),
		cmocka_unit_test(meta_lines_keep_every_member_in_order),
		cmocka_unit_test(cjsons_whitespace_still_gives_the_literal_text),
		cmocka_unit_test(a_byte_order_mark_before_a_line_is_skipped_by_both_paths),
		cmocka_unit_test(the_first_of_duplicate_keys_wins_in_both_paths),
		cmocka_unit_test(huge_and_deep_lines_are_read_or_refused_without_harm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
