/* The command line: help, version, usage errors and exit statuses. */
#include "runutil.h"

#include <string.h>

static void help_and_version_exit_zero(void **state)
{
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "--help", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem COMMAND"));
	assert_non_null(strstr(out, "report"));
	assert_non_null(strstr(out, "summary"));
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
		/* several files are the ranks of one job (check_ranks.py) */
		{{"report", "a.jsonl", "--rank-from", "r([0-9]+)", "-o", "x", NULL},
		 "cgmem report: --rank-from numbers the ranks of several files; one was given"},
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

/* Every line of the terminal summary fits 100 columns (one per character). */
static void the_summary_fits_a_terminal_of_100_columns(void **state)
{
	const char *names[] = {"mlp_adam.jsonl", "cnn_sgd.jsonl", "leak_loss_history.jsonl", "mlp_adam_cut.jsonl"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *out, *err;
		assert_int_equal(tu_run(&out, &err, NULL, "summary", tu_sample(names[i]), NULL), 0);
		size_t cols = 0, lines = 0;
		for (const char *p = out; *p; p++) {
			if (*p == '\n') {
				lines++;
				cols = 0;
			} else if (((unsigned char)*p & 0xc0) != 0x80 && ++cols > 100) {
				fail_msg("%s: line %zu is wider than 100 columns", names[i], lines + 1);
			}
		}
		assert_true(lines > 50);
		free(out);
		free(err);
	}
}

static void the_summary_puts_the_key_figures_first(void **state)
{
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "summary", tu_sample("leak_loss_history.jsonl"), "--top", "2", NULL), 0);
	const char *peak = strstr(out, "  peak                18.48 MiB (19,379,476 B) at 0.647 s\n");
	assert_non_null(peak);
	assert_non_null(strstr(out, "  live at end         12.18 MiB (12,770,528 B), 86 allocations, at 0.649 s\n"));
	assert_non_null(strstr(out, "steps: 6 \xc3\x97 train_step#*\n"));
	assert_non_null(strstr(out, "  each of the 6 steps left 519.0 KiB behind\n"));
	assert_non_null(strstr(out, "largest allocations live at the peak (2 of "));
	assert_true(peak < strstr(out, "at the peak, by category"));
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "summary", tu_sample("mlp_adam_cut.jsonl"), NULL), 0);
	assert_non_null(strstr(out, "  The trace was cut off mid-record at line 3,974"));
	free(out);
	free(err);
}

static void top_must_be_a_count(void **state)
{
	const char *bad[] = {"0", "lots", "20k", "100001", "-3"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out, *err;
		int rc = tu_run(&out, &err, NULL, "summary", tu_sample("mlp_adam.jsonl"), "--top", bad[i], NULL);
		assert_int_equal(rc, 2);
		assert_non_null(strstr(err, "is not a number from 1 to 100000"));
		free(out);
		free(err);
	}
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("top3"), "-q",
				"--top", "3", NULL),
			 0);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", tu_path("top3"));
	cJSON *j = tu_json_file(path);
	assert_int_equal(cJSON_GetArraySize(tu_json_at(j, "devices", "0", "at_peak", "top", NULL)), 3);
	assert_int_equal(tu_json_u64(j, "options", "top", NULL), 3);
	cJSON_Delete(j);
	free(out);
	free(err);
}

/* A trace built to multiply costs: many devices, each allocating at the
 * bottom of one very deep chain of spans, and many steps. It must finish
 * (under the test's timeout) with every figure. */
static void many_devices_deep_spans_and_many_steps_stay_fast(void **state)
{
	enum { DEPTH = 3000, DEVICES = 500, STEPS = 200 };
	size_t cap = 8 << 20, len = 0;
	char *t = malloc(cap);
	len += (size_t)snprintf(t + len, cap - len, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n");
	for (int i = 0; i < DEPTH; i++) {
		char parent[48] = "";
		if (i)
			snprintf(parent, sizeof parent, "\"parent_id\":\"d%d\",", i - 1);
		len += (size_t)snprintf(t + len, cap - len,
					"{\"kind\":\"span_start\",\"id\":\"d%d\",%s\"name\":\"level\",\"start_ns\":%d,"
					"\"span_kind\":\"function\"}\n", i, parent, i);
	}
	for (int k = 0; k < STEPS; k++) {
		int t0 = 10000 + 100 * k;
		len += (size_t)snprintf(t + len, cap - len,
					"{\"kind\":\"span_start\",\"id\":\"s%d\",\"name\":\"step#%d\",\"start_ns\":%d,"
					"\"span_kind\":\"function\"}\n"
					"{\"kind\":\"span_start\",\"id\":\"f%d\",\"parent_id\":\"s%d\",\"name\":\"fwd\","
					"\"start_ns\":%d,\"span_kind\":\"function\",\"step\":\"forward\"}\n"
					"{\"kind\":\"span_end\",\"id\":\"f%d\",\"duration_ns\":50}\n"
					"{\"kind\":\"span_end\",\"id\":\"s%d\",\"duration_ns\":90}\n",
					k, k, t0, k, k, t0 + 1, k, k);
	}
	for (int d = 0; d < DEVICES; d++)
		len += (size_t)snprintf(t + len, cap - len,
					"{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"x\",\"span_id\":\"d%d\","
					"\"device\":\"cuda:%d\",\"bytes\":%d,\"action\":\"alloc\",\"dtype\":\"f32\"}\n",
					10000 + 40 * d, DEPTH - 1, d, 64 + d);
	assert_true(len < cap - 1);
	const char *p = tu_write("pathological.jsonl", t, len);
	free(t);
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "summary", p, "--top", "3", NULL), 0);
	assert_non_null(strstr(out, "steps: 200 \xc3\x97 step#*"));
	assert_non_null(strstr(out, "cuda:499\n  peak                563 B (563 B) at 30 \xc2\xb5s"));
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
		cmocka_unit_test(the_summary_fits_a_terminal_of_100_columns),
		cmocka_unit_test(the_summary_puts_the_key_figures_first),
		cmocka_unit_test(top_must_be_a_count),
		cmocka_unit_test(many_devices_deep_spans_and_many_steps_stay_fast),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
