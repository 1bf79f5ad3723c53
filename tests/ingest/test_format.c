/* Deciding a file's format from its first bytes, never its name. */
#include "testutil.h"

#include <stdlib.h>
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

/* A compact one-line Chrome trace, as Python's json.dumps writes it, whose
 * first key is unknown and holds a string of n bytes: escaped quotes and
 * backslashes all along it, so that an escape straddles every window the
 * detection reads (shift moves them by a byte). */
static char *long_first_key(size_t n, int shift, size_t *len)
{
	static const char events[] = "\", \"traceEvents\": [{\"ph\": \"i\", \"name\": \"[memory]\"}]}";
	char *t = malloc(n + sizeof events + 32);
	size_t k = (size_t)sprintf(t, "{\"harness%s\": \"", shift ? "x" : "");
	for (size_t i = 0; i < n; i++)
		t[k + i] = i % 7 == 0 ? '\\' : i % 7 == 1 ? (i / 7 % 2 ? '"' : '\\') : 'a';
	k += n;
	memcpy(t + k, events, sizeof events);
	*len = k + sizeof events - 1;
	return t;
}

static void a_one_line_chrome_trace_with_a_long_first_value_is_read_to_its_key(void **state)
{
	static const size_t sizes[] = {(size_t)300 << 10, (size_t)3 << 20};
	for (int i = 0; i < 2; i++) {
		for (int shift = 0; shift < 2; shift++) {
			size_t len;
			char *t = long_first_key(sizes[i], shift, &len);
			assert_int_equal(cg_format_detect_bytes(t, len), CG_FORMAT_CHROME);
			cg_reader *r;
			cg_error err;
			assert_int_equal(cg_reader_open_memory(&r, t, len, "long.json", NULL, &err), 0);
			cg_format f;
			assert_int_equal(cg_format_detect(r, &f, &err), 0);
			assert_int_equal(f, CG_FORMAT_CHROME);
			/* Read in windows doubling from 256 KiB: never more than twice
			 * what it takes to reach the key. */
			assert_true(cg_reader_bytes_out(r) <= 2 * sizes[i] + ((size_t)256 << 10));
			/* And nothing consumed: the whole document reads back. */
			char *back = malloc(len + 1);
			size_t got = 0;
			int64_t k;
			while ((k = cg_reader_read(r, back + got, 4096, &err)) > 0)
				got += (size_t)k;
			assert_int_equal(got, len);
			assert_memory_equal(back, t, len);
			free(back);
			cg_reader_close(r);
			/* The same object as one JSONL record with a kind at its end: JSONL. */
			const char *tail = "\"traceEvents\": [{\"ph\": \"i\", \"name\": \"[memory]\"}]";
			char kind[64];
			snprintf(kind, sizeof kind, "%-*s", (int)strlen(tail), "\"kind\": \"memory\"");
			memcpy(t + len - 1 - strlen(tail), kind, strlen(tail));
			assert_int_equal(cg_format_detect_bytes(t, len), CG_FORMAT_JSONL);
			free(t);
		}
	}
}

static void the_scan_of_the_first_object_stops_at_the_line_limit(void **state)
{
	/* An object that never decides ('{' and 2 MiB of a string) is looked
	 * at up to the JSONL line limit (1 MiB here), then taken for JSONL. */
	size_t n = (size_t)2 << 20;
	char *t = malloc(n);
	memset(t, 'a', n);
	memcpy(t, "{\"x\": \"", 7);
	cg_reader_options o = CG_READER_OPTIONS_INIT;
	o.max_line_bytes = (size_t)1 << 20;
	cg_reader *r;
	cg_error err;
	assert_int_equal(cg_reader_open_memory(&r, t, n, "open.json", &o, &err), 0);
	cg_format f;
	assert_int_equal(cg_format_detect(r, &f, &err), 0);
	assert_int_equal(f, CG_FORMAT_JSONL);
	assert_true(cg_reader_bytes_out(r) <= ((size_t)1 << 20) + 1);
	cg_reader_close(r);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jsonl_records_are_one_object_per_line),
		cmocka_unit_test(chrome_documents_are_recognised_in_every_layout),
		cmocka_unit_test(the_raw_memory_timeline_is_an_array_of_arrays),
		cmocka_unit_test(gzip_is_looked_through),
		cmocka_unit_test(a_one_line_chrome_trace_with_a_long_first_value_is_read_to_its_key),
		cmocka_unit_test(the_scan_of_the_first_object_stops_at_the_line_limit),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
