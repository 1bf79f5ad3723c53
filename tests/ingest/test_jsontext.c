/* JSON number literals read exactly: microsecond timestamps into integer
 * nanoseconds without going through a double. */
#include "testutil.h"

#include <string.h>

#include "jsontext.h"

static int64_t dec(const char *s, int scale)
{
	int64_t v = -1;
	assert_int_equal(cg_json_decimal(s, strlen(s), scale, &v, NULL), 0);
	return v;
}

static void microsecond_timestamps_become_exact_nanoseconds(void **state)
{
	assert_int_equal(dec("6520430071090.153", 3), INT64_C(6520430071090153));
	assert_int_equal(dec("1414456661820.89", 3), INT64_C(1414456661820890));
	assert_int_equal(dec("1414456661820.8", 3), INT64_C(1414456661820800));
	assert_int_equal(dec("1623142623460016", 3), INT64_C(1623142623460016000));
	assert_int_equal(dec("0", 3), 0);
	assert_int_equal(dec("-2.5", 3), -2500);
	/* Through a double, 9007199254740.993 x 1000 comes out as ...992. */
	assert_int_equal(dec("9007199254740.993", 3), INT64_C(9007199254740993));
}

static void exponents_shift_the_decimal_point(void **state)
{
	assert_int_equal(dec("1.5e3", 3), 1500000);
	assert_int_equal(dec("1623142623460016E-3", 3), INT64_C(1623142623460016));
	assert_int_equal(dec("1e+2", 0), 100);
	assert_int_equal(dec("0e999999", 0), 0);
}

static void digits_beyond_a_nanosecond_round_half_away_from_zero(void **state)
{
	bool exact = true;
	int64_t v;
	assert_int_equal(cg_json_decimal("1.0004", 6, 3, &v, &exact), 0);
	assert_int_equal(v, 1000);
	assert_false(exact);
	assert_int_equal(dec("1.0005", 3), 1001);
	assert_int_equal(dec("-1.0005", 3), -1001);
	assert_int_equal(dec("0.0004999", 3), 0);
	assert_int_equal(cg_json_decimal("2.000000", 8, 3, &v, &exact), 0);
	assert_true(exact);
}

static void integers_must_be_whole_and_fit_in_64_bits(void **state)
{
	int64_t v;
	assert_int_equal(cg_json_int("9223372036854775807", 19, &v), 0);
	assert_int_equal(v, INT64_MAX);
	assert_int_equal(cg_json_int("-9223372036854775808", 20, &v), 0);
	assert_int_equal(v, INT64_MIN);
	assert_int_equal(cg_json_int("9223372036854775808", 19, &v), CG_JSON_RANGE);
	assert_int_equal(cg_json_int("18446744073709551616", 20, &v), CG_JSON_RANGE);
	assert_int_equal(cg_json_int("1e30", 4, &v), CG_JSON_RANGE);
	assert_int_equal(cg_json_int("1.5", 3, &v), CG_JSON_INEXACT);
	assert_int_equal(cg_json_int("1024.0", 6, &v), 0);
	assert_int_equal(v, 1024);
}

static void text_that_is_not_a_number_is_refused(void **state)
{
	const char *bad[] = {"", "-", "abc", "1.", ".5", "1e", "1e+", "1x", "0x10", "+1", " 1", "NaN"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int64_t v;
		assert_int_equal(cg_json_decimal(bad[i], strlen(bad[i]), 0, &v, NULL), CG_JSON_NOT_NUMBER);
	}
}

static void children_give_the_text_of_each_value(void **state)
{
	const char *obj = "{ \"a\" : 12.50, \"b\":\"x,}\\\"y\", \"c\": [1, {\"d\": 2}], \"e\":null }";
	cg_json_span v[8];
	assert_int_equal(cg_json_children(obj, obj + strlen(obj), CG_JSON_WS_JSON, v, 8), 4);
	assert_int_equal(v[0].n, 5);
	assert_memory_equal(v[0].p, "12.50", 5);
	assert_memory_equal(v[1].p, "\"x,}\\\"y\"", v[1].n);
	assert_memory_equal(v[2].p, "[1, {\"d\": 2}]", v[2].n);
	assert_memory_equal(v[3].p, "null", v[3].n);
	const char *arr = "[-1, 1, 37888, 7]";
	assert_int_equal(cg_json_children(arr, arr + strlen(arr), CG_JSON_WS_JSON, v, 2), 4); /* counts all, fills 2 */
	assert_memory_equal(v[1].p, "1", v[1].n);
}

static void whitespace_follows_the_rule_asked_for(void **state)
{
	/* cJSON takes every byte up to 32 as whitespace, JSON only four: a walk
	 * of text cJSON accepted must skip what cJSON skipped. */
	const char *obj = "{\x01\"a\"\x02:\x03" "12\x1f,\"b\":[\x0b" "1,2]\x0c}";
	cg_json_span v[4];
	assert_int_equal(cg_json_children(obj, obj + strlen(obj), CG_JSON_WS_CJSON, v, 4), 2);
	assert_int_equal(v[0].n, 2);
	assert_memory_equal(v[0].p, "12", 2);
	assert_int_equal(v[1].n, strlen("[\x0b" "1,2]"));
	const char *ws = "\x01\x1f \t\r\nx";
	assert_ptr_equal(cg_json_skip_ws(ws, ws + strlen(ws), CG_JSON_WS_CJSON), ws + 6);
	assert_ptr_equal(cg_json_skip_ws(ws, ws + strlen(ws), CG_JSON_WS_JSON), ws);
	assert_ptr_equal(cg_json_skip_ws(ws + 2, ws + strlen(ws), CG_JSON_WS_JSON), ws + 6);
	/* A number ends at whitespace of the rule, or at a delimiter. */
	const char *num = "-1.5e3\x01]";
	assert_ptr_equal(cg_json_skip_value(num, num + strlen(num), CG_JSON_WS_CJSON), num + 6);
	const char *str = "\"a\\\"b\" x";
	assert_ptr_equal(cg_json_skip_value(str, str + strlen(str), CG_JSON_WS_JSON), str + 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(microsecond_timestamps_become_exact_nanoseconds),
		cmocka_unit_test(exponents_shift_the_decimal_point),
		cmocka_unit_test(digits_beyond_a_nanosecond_round_half_away_from_zero),
		cmocka_unit_test(integers_must_be_whole_and_fit_in_64_bits),
		cmocka_unit_test(text_that_is_not_a_number_is_refused),
		cmocka_unit_test(children_give_the_text_of_each_value),
		cmocka_unit_test(whitespace_follows_the_rule_asked_for),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
