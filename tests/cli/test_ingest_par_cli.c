/* The command-line half of tests/ingest/test_ingest_par.c: the report of
 * a sample is the same whatever the thread count and the parser, and the
 * options that choose them are checked. */
#include "runutil.h"

#include <string.h>

static char *summary_with(const char *outname, const char *opt1, const char *opt2)
{
	char *so, *se;
	const char *out = tu_path(outname);
	int rc = tu_run(&so, &se, NULL, "report", tu_sample("leak_loss_history.jsonl"), "-o", out, "-q",
			"--no-trace", opt1, opt2, NULL);
	if (rc != 0)
		fail_msg("cgmem report %s %s exited %d: %s", opt1, opt2 ? opt2 : "", rc, se);
	free(so);
	free(se);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", out);
	char *text = tu_read(path, NULL);
	assert_non_null(text);
	return text;
}

static void the_report_is_the_same_for_any_thread_count_and_parser(void **state)
{
	char *one = summary_with("out-t1", "--threads=1", NULL);
	char *three = summary_with("out-t3", "--threads=3", NULL);
	char *cjson = summary_with("out-cj", "--parser=cjson", "--threads=2");
	/* summary.json names no output folder, so the files compare whole. */
	assert_string_equal(one, three);
	assert_string_equal(one, cjson);
	free(one);
	free(three);
	free(cjson);

	char *so, *se;
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("x"),
				"--threads", "0", NULL), 2);
	assert_non_null(strstr(se, "--threads: '0' is not a number from 1 to 64"));
	free(so);
	free(se);
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("x"),
				"--parser", "simd", NULL), 2);
	assert_non_null(strstr(se, "--parser: 'simd' is not fast or cjson"));
	free(so);
	free(se);
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("y"),
				"-q", "--no-trace", "--stats", NULL), 0);
	assert_non_null(strstr(se, "stats: ingest "));
	assert_non_null(strstr(se, "7207 lines, 1160621 bytes read"));
	assert_non_null(strstr(se, "1064 memory records"));
	free(so);
	free(se);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_report_is_the_same_for_any_thread_count_and_parser),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
