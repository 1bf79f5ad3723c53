/* Deciding a file's format from its first bytes, never its name. */
#include "testutil.h"

#include <string.h>

#include "format.h"

static cg_format of(const char *s)
{
	return cg_format_detect_bytes(s, strlen(s));
}

static void jsonl_records_are_one_object_per_line(void **state)
{
	assert_int_equal(of("{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n{\"kind\""), CG_FORMAT_JSONL);
	assert_int_equal(of("{\"schema\":\"x\",\"kind\":\"meta\"}\n"), CG_FORMAT_JSONL);
	/* kind decides even when the first record is cut before its end. */
	assert_int_equal(of("{\"kind\":\"memory\",\"tens"), CG_FORMAT_JSONL);
	/* Not JSON at all, or empty: the JSONL reader says what is wrong. */
	assert_int_equal(of("hello\n"), CG_FORMAT_JSONL);
	assert_int_equal(of(""), CG_FORMAT_JSONL);
	assert_int_equal(of(" \n"), CG_FORMAT_JSONL);
}

static void chrome_documents_are_recognised_in_every_layout(void **state)
{
	/* Kineto: pretty-printed, schemaVersion first. */
	assert_int_equal(of("\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": ["), CG_FORMAT_CHROME);
	/* One line, traceEvents first. */
	assert_int_equal(of("{\"traceEvents\":[{\"ph\":\"X\"}]}"), CG_FORMAT_CHROME);
	/* Harness metadata before traceEvents, on one line and cut off in the peek. */
	assert_int_equal(of("{\"metadata\": {\"kind\": \"huggingface\", \"x\": [1, 2"), CG_FORMAT_CHROME);
	/* A bare array of events, and a byte-order mark. */
	assert_int_equal(of("[{\"ph\":\"i\",\"name\":\"[memory]\"}]"), CG_FORMAT_CHROME);
	assert_int_equal(of("\xef\xbb\xbf [\n]"), CG_FORMAT_CHROME);
}

static void the_raw_memory_timeline_is_an_array_of_arrays(void **state)
{
	assert_int_equal(of("[[-1, 1, 37888, 7], [-1, 1, 512, 7]]"), CG_FORMAT_MEMORY_TIMELINE);
	assert_int_equal(of("[\n  [\n"), CG_FORMAT_MEMORY_TIMELINE);
}

static void gzip_is_looked_through(void **state)
{
	const char *p = tu_write_gz("trace.jsonl", "{\n \"traceEvents\": []\n}\n", (size_t)-1);
	cg_reader *r;
	cg_error err;
	assert_int_equal(cg_reader_open(&r, p, NULL, &err), 0);
	cg_format f;
	assert_int_equal(cg_format_detect(r, &f, &err), 0);
	assert_int_equal(f, CG_FORMAT_CHROME);
	/* Detection consumed nothing. */
	char buf[64];
	assert_int_equal(cg_reader_read(r, buf, sizeof buf, &err), 23);
	assert_memory_equal(buf, "{\n \"traceEvents\": []\n}\n", 23);
	cg_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jsonl_records_are_one_object_per_line),
		cmocka_unit_test(chrome_documents_are_recognised_in_every_layout),
		cmocka_unit_test(the_raw_memory_timeline_is_an_array_of_arrays),
		cmocka_unit_test(gzip_is_looked_through),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
