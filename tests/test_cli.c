/* The command line: help, version, usage errors and exit statuses. */
#include "testutil.h"

#include <string.h>

static void help_and_version_exit_zero(void **state)
{
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "--help", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem COMMAND"));
	assert_non_null(strstr(out, "report"));
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "--version", NULL), 0);
	assert_string_equal(out, "cgmem " CGMEM_VERSION "\n");
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "help", "report", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem report [options] FILE"));
	assert_non_null(strstr(out, "--output DIR"));
	assert_non_null(strstr(out, "--strict"));
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "report", "--help", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem report"));
	free(out);
	free(err);
}

static void usage_errors_exit_two_and_say_why(void **state)
{
	struct {
		const char *args[8];
		const char *message;
	} cases[] = {
		{{NULL}, "usage: cgmem COMMAND"},
		{{"frobnicate", NULL}, "cgmem: 'frobnicate' is not a command"},
		{{"help", "frobnicate", NULL}, "no command named 'frobnicate'"},
		{{"report", NULL}, "cgmem report: no trace file given"},
		{{"report", "a.jsonl", NULL}, "cgmem report: no output folder given (-o DIR)"},
		{{"report", "a.jsonl", "b.jsonl", "-o", "x", NULL}, "give exactly one trace file"},
		{{"report", "a.jsonl", "--bogus", NULL}, "cgmem report: unknown option --bogus"},
		{{"report", "a.jsonl", "-o", NULL}, "option --output needs a value (DIR)"},
		{{"report", "a.jsonl", "-o", "x", "--max-line-bytes", "lots", NULL},
		 "--max-line-bytes: 'lots' is not a size"},
		{{"report", "a.jsonl", "-o", "x", "--strict=yes", NULL}, "option --strict takes no value"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		const char **a = cases[i].args;
		/* the argument list ends at the first NULL */
		int rc = tu_run(&out, &err, NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
		assert_int_equal(rc, 2);
		if (!strstr(err, cases[i].message))
			fail_msg("case %zu: expected \"%s\" in stderr, got: %s", i, cases[i].message, err);
		free(out);
		free(err);
	}
}

static void unreadable_input_exits_one_and_leaves_no_folder(void **state)
{
	char *out, *err;
	const char *dir = tu_path("never");
	int rc = tu_run(&out, &err, NULL, "report", tu_path("missing.jsonl"), "-o", dir, NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "cgmem report: "));
	assert_non_null(strstr(err, "missing.jsonl: No such file or directory"));
	assert_false(tu_exists(dir));
	free(out);
	free(err);
}

static void bad_lines_are_printed_with_file_and_line(void **state)
{
	const char *p = tu_write("bad.jsonl",
				 "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
				 "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"a\",\"span_id\":\"s\",\"device\":\"cpu\","
				 "\"bytes\":-1,\"action\":\"alloc\",\"dtype\":\"f32\"}\n"
				 "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"a\",\"span_id\":\"s\",\"device\":\"cpu\","
				 "\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\"}\n",
				 (size_t)-1);
	char *out, *err;
	int rc = tu_run(&out, &err, NULL, "report", p, "-o", tu_path("bad-out"), NULL);
	assert_int_equal(rc, 0);
	char expect[600];
	snprintf(expect, sizeof expect, "%s:2: field \"bytes\" must be a non-negative integer: -1 is negative", p);
	assert_non_null(strstr(err, expect));
	assert_non_null(strstr(out, "cpu: peak 8 B (8 B) at 1 ns"));
	free(out);
	free(err);
	rc = tu_run(&out, &err, NULL, "report", p, "-o", tu_path("bad-out2"), "--strict", NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, expect));
	assert_false(tu_exists(tu_path("bad-out2")));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(help_and_version_exit_zero),
		cmocka_unit_test(usage_errors_exit_two_and_say_why),
		cmocka_unit_test(unreadable_input_exits_one_and_leaves_no_folder),
		cmocka_unit_test(bad_lines_are_printed_with_file_and_line),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
