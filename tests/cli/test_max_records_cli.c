/* --max-records: the limit on records every format counts the same way,
 * its message, and its default, which keeps a gzip bomb under `ulimit -v`
 * from running the process out of memory. */
#include "runutil.h"

#include <string.h>
#include <zlib.h>

static const char limit_tail[] = "each takes about 100 bytes of memory; raise the limit if the machine has it\n";

/* Runs cmd (report, summary, check or diff) on trace with --max-records n
 * and more; asserts exit 1, the message "cgmem CMD: " want limit_tail, and
 * no output folder. */
static void assert_limit(const char *cmd, const char *trace, const char *n, const char *threads, const char *want)
{
	const char *out = tu_path("limit-out");
	char *so, *se;
	int rc;
	if (strcmp(cmd, "report") == 0)
		rc = tu_run(&so, &se, NULL, cmd, trace, "--max-records", n, "--threads", threads, "-o", out, "-q", NULL);
	else if (strcmp(cmd, "diff") == 0)
		rc = tu_run(&so, &se, NULL, cmd, trace, trace, "--max-records", n, "--threads", threads, "-o", out, "-q",
			    NULL);
	else if (strcmp(cmd, "check") == 0)
		rc = tu_run(&so, &se, NULL, cmd, trace, "--max-peak", "1GiB", "--max-records", n, "--threads", threads,
			    "-q", NULL);
	else
		rc = tu_run(&so, &se, NULL, cmd, trace, "--max-records", n, "--threads", threads, "-q", NULL);
	char expected[1024];
	snprintf(expected, sizeof expected, "cgmem %s: %s%s", cmd, want, limit_tail);
	assert_string_equal(se, expected);
	assert_int_equal(rc, 1);
	assert_string_equal(so, "");
	assert_false(tu_exists(out));
	free(so);
	free(se);
}

/* The line of the n-th record of a JSONL file: lines that are not "meta". */
static unsigned line_of_record(const char *path, unsigned n)
{
	char *text = tu_read(path, NULL);
	assert_non_null(text);
	unsigned line = 1, seen = 0;
	for (char *p = text; *p; line++) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!strstr(p, "\"kind\":\"meta\"") && !strstr(p, "\"kind\": \"meta\"") && ++seen == n)
			break;
		p = nl ? nl + 1 : p + strlen(p);
	}
	free(text);
	assert_int_equal(seen, n);
	return line;
}

static void ten_records_stop_a_jsonl_sample_at_its_eleventh_whatever_the_threads(void **state)
{
	const char *trace = tu_sample("mlp_adam.jsonl");
	char want[1024];
	snprintf(want, sizeof want, "%s:%u: more than 10 records (--max-records 10): ", trace, line_of_record(trace, 11));
	const char *cmds[] = {"report", "summary", "check", "diff"};
	for (int i = 0; i < 4; i++)
		assert_limit(cmds[i], trace, "10", "1", want);
	/* Shards parsed on other threads count toward the same limit. */
	assert_limit("report", trace, "10", "4", want);
	/* The same lines in gzip. */
	char gz[600];
	snprintf(gz, sizeof gz, "%s.gz", trace);
	snprintf(want, sizeof want, "%s:%u: more than 10 records (--max-records 10): ", gz, line_of_record(trace, 11));
	assert_limit("summary", gz, "10", "3", want);
}

/* A complete event is two records (a span and its end), each [memory]
 * event one: with 4, the second [memory] event is the fifth record. */
static void a_kineto_trace_names_the_event_that_went_over(void **state)
{
	const char *trace = tu_write("k.json",
				     "{\"traceEvents\": ["
				     "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
				     "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"Device Type\":1,"
				     "\"Device Id\":0,\"Addr\":16,\"Bytes\":8}},"
				     "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":2,\"args\":{\"Device Type\":1,"
				     "\"Device Id\":0,\"Addr\":16,\"Bytes\":-8}},"
				     "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{\"Device Type\":1,"
				     "\"Device Id\":0,\"Addr\":32,\"Bytes\":8}}]}",
				     (size_t)-1);
	char want[600];
	snprintf(want, sizeof want, "%s: event 3: more than 3 records (--max-records 3): ", trace);
	assert_limit("summary", trace, "3", "1", want);
	/* And with room for all five it reads. */
	char *so, *se;
	assert_int_equal(tu_run(&so, &se, NULL, "summary", trace, "--max-records", "5", "-q", NULL), 0);
	free(so);
	free(se);
}

static void a_raw_memory_timeline_names_the_record_that_went_over(void **state)
{
	const char *trace = tu_write("raw.json", "[[0, 2, 8, 1], [1, 2, 8, 1], [2, 4, 8, 1]]", (size_t)-1);
	char want[600];
	snprintf(want, sizeof want, "%s: record 3: more than 2 records (--max-records 2): ", trace);
	assert_limit("summary", trace, "2", "1", want);
}

static void an_allocator_snapshot_stops_at_the_limit_too(void **state)
{
	const char *trace = tu_sample("snapshots/yiyi_1.3b_snapshot_41810bae.pickle");
	char want[600];
	snprintf(want, sizeof want, "%s: more than 10 records (--max-records 10): ", trace);
	assert_limit("summary", trace, "10", "1", want);
}

static void zero_is_no_limit_and_a_bad_count_is_a_usage_error(void **state)
{
	char *so, *se;
	assert_int_equal(tu_run(&so, &se, NULL, "summary", tu_sample("mlp_adam.jsonl"), "--max-records", "0", "-q", NULL), 0);
	free(so);
	free(se);
	assert_int_equal(tu_run(&so, &se, NULL, "summary", tu_sample("mlp_adam.jsonl"), "--max-records", "1k", NULL), 2);
	assert_non_null(strstr(se, "--max-records: '1k' is not a number of records (0 for no limit)"));
	free(so);
	free(se);
}

/* 3 M copies of one valid line, 2.8 MB of gzip for 360 MB of text, under
 * `ulimit -v 500000` (500 MB of address space): the default limit, from
 * the memory the process may use at 200 bytes a record, is about 2.5 M
 * records, so cgmem stops with the limit's message, not "out of memory". */
static void a_gzip_bomb_under_ulimit_v_meets_the_default_limit(void **state)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	skip(); /* the sanitizers reserve terabytes of address space */
#endif
	const char *bomb = tu_path("bomb.jsonl.gz");
	gzFile g = gzopen(bomb, "wb1");
	assert_non_null(g);
	gzputs(g, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
		  "{\"kind\":\"span_start\",\"id\":\"r\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}\n");
	static const char line[] = "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"t\",\"span_id\":\"r\","
				   "\"device\":\"cuda:0\",\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\"}\n";
	size_t n = strlen(line);
	char *chunk = malloc(n * 10000);
	for (int i = 0; i < 10000; i++)
		memcpy(chunk + (size_t)i * n, line, n);
	for (int i = 0; i < 300; i++)
		assert_int_equal(gzwrite(g, chunk, (unsigned)(n * 10000)), (int)(n * 10000));
	free(chunk);
	assert_int_equal(gzclose(g), Z_OK);

	char cmd[2048];
	snprintf(cmd, sizeof cmd, "ulimit -v 500000 && exec '%s' summary '%s' -q >'%s' 2>'%s'", CGMEM_BIN, bomb,
		 tu_path("bomb.out"), tu_path("bomb.err"));
	int status = system(cmd);
	char *err = tu_read(tu_path("bomb.err"), NULL);
	assert_non_null(err);
	print_message("%s", err);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	char head[700];
	snprintf(head, sizeof head, "cgmem summary: %s:", bomb);
	assert_memory_equal(err, head, strlen(head));
	assert_non_null(strstr(err, " records (--max-records "));
	assert_non_null(strstr(err, limit_tail));
	assert_null(strstr(err, "out of memory"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ten_records_stop_a_jsonl_sample_at_its_eleventh_whatever_the_threads),
		cmocka_unit_test(a_kineto_trace_names_the_event_that_went_over),
		cmocka_unit_test(a_raw_memory_timeline_names_the_record_that_went_over),
		cmocka_unit_test(an_allocator_snapshot_stops_at_the_limit_too),
		cmocka_unit_test(zero_is_no_limit_and_a_bad_count_is_a_usage_error),
		cmocka_unit_test(a_gzip_bomb_under_ulimit_v_meets_the_default_limit),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
