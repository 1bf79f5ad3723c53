/* The streaming JSON writer (jsonw.h): commas, nesting and indentation in
 * both forms, integers at their limits, doubles that read back exactly
 * (non-finite ones as null, as the header says), strings and keys escaped.
 * Every document is read back with cJSON. */
#include "testutil.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "jsonw.h"

typedef struct doc {
	cg_sink *sink;
	cg_jw w;
} doc;

static void doc_begin(doc *d, bool pretty)
{
	d->sink = cg_sink_memory();
	cg_jw_init(&d->w, d->sink, pretty);
}

static const char *doc_text(const doc *d)
{
	return cg_sink_data(d->sink, NULL);
}

static cJSON *doc_parse(const doc *d)
{
	cJSON *j = cJSON_Parse(doc_text(d));
	if (!j)
		fail_msg("not valid JSON: %s", doc_text(d));
	return j;
}

static void doc_end(doc *d)
{
	cg_sink_close(d->sink, NULL);
}

/* One object with a bit of everything, as the summary writers use it. */
static void write_sample(cg_jw *w)
{
	cg_jw_object(w);
	cg_jw_kv_u64(w, "a", 1);
	cg_jw_key(w, "b");
	cg_jw_array(w);
	cg_jw_bool(w, true);
	cg_jw_bool(w, false);
	cg_jw_null(w);
	cg_jw_end(w);
	cg_jw_key(w, "c");
	cg_jw_object(w);
	cg_jw_end(w);
	cg_jw_key(w, "d");
	cg_jw_array(w);
	cg_jw_end(w);
	cg_jw_key(w, "e");
	cg_jw_array(w);
	cg_jw_object(w);
	cg_jw_kv_string(w, "k", "v");
	cg_jw_end(w);
	cg_jw_object(w);
	cg_jw_end(w);
	cg_jw_end(w);
	cg_jw_end(w);
}

static void the_compact_form_has_no_spaces(void **state)
{
	doc d;
	doc_begin(&d, false);
	write_sample(&d.w);
	assert_string_equal(doc_text(&d), "{\"a\":1,\"b\":[true,false,null],\"c\":{},\"d\":[],\"e\":[{\"k\":\"v\"},{}]}");
	doc_end(&d);
}

/* Two spaces a level, one item a line, empty containers on one line, and
 * a newline after the document. */
static void the_pretty_form_indents_by_level(void **state)
{
	doc d;
	doc_begin(&d, true);
	write_sample(&d.w);
	assert_string_equal(doc_text(&d), "{\n"
					  "  \"a\": 1,\n"
					  "  \"b\": [\n"
					  "    true,\n"
					  "    false,\n"
					  "    null\n"
					  "  ],\n"
					  "  \"c\": {},\n"
					  "  \"d\": [],\n"
					  "  \"e\": [\n"
					  "    {\n"
					  "      \"k\": \"v\"\n"
					  "    },\n"
					  "    {}\n"
					  "  ]\n"
					  "}\n");
	cJSON *j = doc_parse(&d);
	assert_int_equal(tu_json_u64(j, "a", NULL), 1);
	assert_true(cJSON_IsNull(tu_json_at(j, "b", "2", NULL)));
	assert_string_equal(tu_json_at(j, "e", "0", "k", NULL)->valuestring, "v");
	cJSON_Delete(j);
	doc_end(&d);
}

static void integers_are_exact_at_their_limits(void **state)
{
	doc d;
	doc_begin(&d, false);
	cg_jw_array(&d.w);
	cg_jw_u64(&d.w, 0);
	cg_jw_u64(&d.w, UINT64_MAX);
	cg_jw_i64(&d.w, INT64_MIN);
	cg_jw_i64(&d.w, INT64_MAX);
	cg_jw_i64(&d.w, -1);
	cg_jw_u64(&d.w, 9007199254740993u); /* 2^53 + 1: not a double */
	cg_jw_end(&d.w);
	/* JSON numbers are text: the digits are the value, whatever a reader
	 * does with them */
	assert_string_equal(doc_text(&d), "[0,18446744073709551615,-9223372036854775808,9223372036854775807,-1,"
					  "9007199254740993]");
	cJSON *j = doc_parse(&d);
	assert_int_equal(cJSON_GetArraySize(j), 6);
	assert_true(cJSON_GetArrayItem(j, 1)->valuedouble == 18446744073709551615.0);
	assert_true(cJSON_GetArrayItem(j, 4)->valuedouble == -1.0);
	cJSON_Delete(j);
	doc_end(&d);
}

/* Each finite double reads back as the same double; the text is the
 * shortest of 15 to 17 significant digits that does. */
static void doubles_read_back_exactly(void **state)
{
	const double values[] = {0.0, -0.0, 0.1, 1.0 / 3.0, 2.5, -1e-300, 1e300, 5e-324, DBL_MAX, -DBL_MAX,
				 DBL_MIN, 123456789012345678.0, 0.395, 100.0 / 7.0};
	const size_t n = sizeof values / sizeof *values;
	doc d;
	doc_begin(&d, false);
	cg_jw_array(&d.w);
	for (size_t i = 0; i < n; i++)
		cg_jw_double(&d.w, values[i]);
	cg_jw_end(&d.w);
	cJSON *j = doc_parse(&d);
	assert_int_equal(cJSON_GetArraySize(j), (int)n);
	/* read the text back with strtod: cJSON's own reading need not be exact */
	const char *p = doc_text(&d) + 1;
	for (size_t i = 0; i < n; i++) {
		char *end;
		double v = strtod(p, &end);
		assert_true(end > p);
		if (memcmp(&v, &values[i], sizeof v) != 0)
			fail_msg("value %zu: %.17g written as %.*s", i, values[i], (int)(end - p), p);
		p = end + 1;
	}
	cJSON_Delete(j);
	/* short where short is exact */
	assert_non_null(strstr(doc_text(&d), ",0.1,"));
	assert_non_null(strstr(doc_text(&d), ",2.5,"));
	assert_non_null(strstr(doc_text(&d), ",0.395,"));
	doc_end(&d);
}

/* JSON has no NaN or infinity: jsonw.h writes them as null. */
static void non_finite_doubles_are_null(void **state)
{
	doc d;
	doc_begin(&d, false);
	cg_jw_object(&d.w);
	cg_jw_kv_double(&d.w, "nan", NAN);
	cg_jw_kv_double(&d.w, "inf", INFINITY);
	cg_jw_kv_double(&d.w, "-inf", -INFINITY);
	cg_jw_end(&d.w);
	assert_string_equal(doc_text(&d), "{\"nan\":null,\"inf\":null,\"-inf\":null}");
	cJSON *j = doc_parse(&d);
	assert_true(cJSON_IsNull(tu_json_at(j, "inf", NULL)));
	cJSON_Delete(j);
	doc_end(&d);
}

static void strings_and_keys_are_escaped(void **state)
{
	doc d;
	doc_begin(&d, true);
	cg_jw_object(&d.w);
	cg_jw_kv_string(&d.w, "name", "\"<script>\"\n\\");
	cg_jw_key(&d.w, "id\",\"x");
	cg_jw_string_n(&d.w, "a\0b", 3);
	cg_jw_kv_string(&d.w, "bad", "\xff\xc3(");
	cg_jw_kv_string(&d.w, "", "");
	cg_jw_end(&d.w);
	cJSON *j = doc_parse(&d);
	assert_int_equal(cJSON_GetArraySize(j), 4);
	assert_string_equal(tu_json_at(j, "name", NULL)->valuestring, "\"<script>\"\n\\");
	/* the key holding a quote is one key, not two */
	cJSON *odd = tu_json_at(j, "id\",\"x", NULL);
	assert_true(cJSON_IsString(odd));
	assert_null(tu_json_at(j, "x", NULL));
	assert_non_null(strstr(doc_text(&d), "\"a\\u0000b\""));
	assert_string_equal(tu_json_at(j, "bad", NULL)->valuestring, "\xef\xbf\xbd\xef\xbf\xbd(");
	assert_string_equal(tu_json_at(j, "", NULL)->valuestring, "");
	cJSON_Delete(j);
	doc_end(&d);
}

/* Raw JSON and the key-value shorthands take their place among items. */
static void raw_values_and_shorthands_get_their_commas(void **state)
{
	doc d;
	doc_begin(&d, false);
	cg_jw_object(&d.w);
	cg_jw_kv_bool(&d.w, "ok", true);
	cg_jw_key(&d.w, "raw");
	cg_jw_raw(&d.w, "[1,{\"x\":2}]", 11);
	cg_jw_kv_double(&d.w, "half", 0.5);
	cg_jw_key(&d.w, "list");
	cg_jw_array(&d.w);
	cg_jw_raw(&d.w, "-3", 2);
	cg_jw_raw(&d.w, "\"s\"", 3);
	cg_jw_end(&d.w);
	cg_jw_end(&d.w);
	assert_string_equal(doc_text(&d), "{\"ok\":true,\"raw\":[1,{\"x\":2}],\"half\":0.5,\"list\":[-3,\"s\"]}");
	cJSON *j = doc_parse(&d);
	assert_int_equal(tu_json_u64(j, "raw", "1", "x", NULL), 2);
	cJSON_Delete(j);
	doc_end(&d);
}

/* Nesting as deep as the writer allows (CG_JW_MAX_DEPTH - 1 levels), in
 * both forms. */
static void deep_nesting_closes_in_order(void **state)
{
	const int depth = CG_JW_MAX_DEPTH - 1;
	for (int pretty = 0; pretty < 2; pretty++) {
		doc d;
		doc_begin(&d, pretty);
		for (int i = 0; i < depth; i++) {
			if (i % 2 == 0) {
				cg_jw_object(&d.w);
				cg_jw_key(&d.w, "in");
			} else {
				cg_jw_array(&d.w);
				cg_jw_u64(&d.w, (uint64_t)i);
			}
		}
		cg_jw_string(&d.w, "bottom");
		for (int i = 0; i < depth; i++)
			cg_jw_end(&d.w);
		assert_int_equal(d.w.depth, 0);
		cJSON *j = doc_parse(&d);
		cJSON *at = j;
		for (int i = 0; i < depth - 1; i++)
			at = i % 2 == 0 ? cJSON_GetObjectItemCaseSensitive(at, "in") : cJSON_GetArrayItem(at, 1);
		assert_non_null(at);
		/* the innermost container is an object ("in": "bottom") */
		assert_string_equal(cJSON_GetObjectItemCaseSensitive(at, "in")->valuestring, "bottom");
		cJSON_Delete(j);
		doc_end(&d);
	}
}

/* Many items: every one separated, none lost. */
static void long_arrays_have_every_item(void **state)
{
	doc d;
	doc_begin(&d, true);
	cg_jw_array(&d.w);
	for (uint64_t i = 0; i < 10000; i++) {
		cg_jw_array(&d.w);
		cg_jw_u64(&d.w, i);
		cg_jw_u64(&d.w, i * i);
		cg_jw_end(&d.w);
	}
	cg_jw_end(&d.w);
	cJSON *j = doc_parse(&d);
	assert_int_equal(cJSON_GetArraySize(j), 10000);
	assert_int_equal(tu_json_u64(j, "9999", "1", NULL), 9999u * 9999u);
	cJSON_Delete(j);
	doc_end(&d);
}

/* Integers are formatted by hand (jsonw.c): the same text as printf's, at
 * every digit count and across the signed range. */
static void integers_print_as_printf_does(void **state)
{
	uint64_t x = 0x243f6a8885a308d3u; /* an LCG walks the full range */
	for (int i = 0; i < 4000; i++) {
		uint64_t u;
		if (i < 64)
			u = (uint64_t)1 << i;
		else if (i < 84)
			u = 1;
		else
			u = x = x * 6364136223846793005u + 1442695040888963407u;
		if (i >= 64 && i < 84)
			for (int k = 0; k < i - 64; k++)
				u *= 10; /* 10^0 .. 10^19 */
		const uint64_t us[3] = {u, u - 1, u + 1};
		for (int k = 0; k < 3; k++) {
			char want[96];
			doc d;
			doc_begin(&d, false);
			cg_jw_array(&d.w);
			cg_jw_u64(&d.w, us[k]);
			cg_jw_i64(&d.w, (int64_t)us[k]);
			cg_jw_i64(&d.w, -(int64_t)(us[k] >> 1));
			cg_jw_end(&d.w);
			snprintf(want, sizeof want, "[%" PRIu64 ",%" PRId64 ",%" PRId64 "]", us[k], (int64_t)us[k],
				 -(int64_t)(us[k] >> 1));
			assert_string_equal(doc_text(&d), want);
			doc_end(&d);
		}
	}
}

/* The text of a double, as jsonw.h defines it, worked out here again. */
static void reference_double(double v, char *buf, size_t size)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* jsonw.c keeps the text of recent doubles by their bits: written again, a
 * value gives the same text, also after more values than it keeps pushed
 * it out, and 0 and -0 (equal, different bits) keep their own. */
static void repeated_doubles_print_the_same(void **state)
{
	enum { N = 3000 };
	static double values[N];
	for (int i = 0; i < N; i++)
		values[i] = i % 3 == 0 ? 1.0 / (i + 1) : i % 3 == 1 ? (double)i * 1e-310 : 0.7 + i * 1e-9;
	values[10] = 0.0;
	values[11] = -0.0;
	values[12] = 0.0;
	doc d;
	doc_begin(&d, false);
	cg_jw_array(&d.w);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < N; i++)
			cg_jw_double(&d.w, values[round == 1 ? N - 1 - i : i]);
	cg_jw_end(&d.w);
	const char *p = doc_text(&d);
	assert_true(*p++ == '[');
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			char want[40];
			reference_double(values[round == 1 ? N - 1 - i : i], want, sizeof want);
			size_t n = strlen(want);
			if (strncmp(p, want, n) != 0 || (p[n] != ',' && p[n] != ']'))
				fail_msg("round %d, value %d: want %s, got %.30s", round, i, want, p);
			p += n + 1;
		}
	}
	assert_non_null(strstr(doc_text(&d), ",0,-0,0,"));
	doc_end(&d);
}

/* The pretty form's indentation, written in one piece a line, at every
 * depth the writer allows. */
static void pretty_indentation_is_two_spaces_a_level(void **state)
{
	const int depth = CG_JW_MAX_DEPTH - 1;
	doc d;
	doc_begin(&d, true);
	for (int i = 0; i < depth; i++)
		cg_jw_array(&d.w);
	cg_jw_u64(&d.w, 7);
	for (int i = 0; i < depth; i++)
		cg_jw_end(&d.w);
	char want[4096];
	size_t n = 0;
	for (int i = 0; i < depth; i++) {
		if (i > 0) {
			want[n++] = '\n';
			for (int k = 0; k < 2 * i; k++)
				want[n++] = ' ';
		}
		want[n++] = '[';
	}
	want[n++] = '\n';
	for (int k = 0; k < 2 * depth; k++)
		want[n++] = ' ';
	want[n++] = '7';
	for (int i = depth - 1; i >= 0; i--) {
		want[n++] = '\n';
		for (int k = 0; k < 2 * i; k++)
			want[n++] = ' ';
		want[n++] = ']';
	}
	want[n++] = '\n';
	want[n] = '\0';
	assert_string_equal(doc_text(&d), want);
	doc_end(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_compact_form_has_no_spaces),
		cmocka_unit_test(the_pretty_form_indents_by_level),
		cmocka_unit_test(integers_are_exact_at_their_limits),
		cmocka_unit_test(doubles_read_back_exactly),
		cmocka_unit_test(non_finite_doubles_are_null),
		cmocka_unit_test(strings_and_keys_are_escaped),
		cmocka_unit_test(raw_values_and_shorthands_get_their_commas),
		cmocka_unit_test(deep_nesting_closes_in_order),
		cmocka_unit_test(long_arrays_have_every_item),
		cmocka_unit_test(integers_print_as_printf_does),
		cmocka_unit_test(repeated_doubles_print_the_same),
		cmocka_unit_test(pretty_indentation_is_two_spaces_a_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
