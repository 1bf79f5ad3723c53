/* Streaming a Chrome trace document one event at a time: element bounds
 * across reads of any size, top-level keys before and after the events,
 * truncation, and malformed documents. */
#include "testutil.h"

#include <string.h>

#include "chrome_stream.h"

typedef struct result {
	int rc;
	size_t nevents;
	char events[16][128];
	uint64_t offsets[16];
	uint64_t overlong[16];
	bool truncated, in_events, trailing;
	cg_chrome_shape shape;
	cg_error err;
	char keys[512]; /* "name=value;" for each kept key, "name=(long);" otherwise */
} result;

static void stream(const char *text, size_t read_bytes, size_t max_event, result *res)
{
	memset(res, 0, sizeof *res);
	const char *path = tu_write("doc.json", text, (size_t)-1);
	cg_reader *r;
	assert_int_equal(cg_reader_open(&r, path, NULL, &res->err), 0);
	cg_chrome_options o = CG_CHROME_OPTIONS_INIT;
	o.read_bytes = read_bytes;
	o.max_event_bytes = max_event;
	o.max_key_bytes = 16;
	cg_chrome_stream *s = cg_chrome_stream_new(r, &o);
	cg_chrome_event ev;
	while ((res->rc = cg_chrome_stream_next(s, &ev, &res->err)) > 0) {
		assert_int_equal(ev.ordinal, res->nevents + 1);
		if (res->nevents < 16) {
			if (ev.overlong)
				res->overlong[res->nevents] = ev.overlong_bytes;
			else
				snprintf(res->events[res->nevents], 128, "%.*s", (int)ev.len, ev.data);
			res->offsets[res->nevents] = ev.offset;
		}
		res->nevents++;
	}
	res->truncated = cg_chrome_stream_truncated(s, &res->in_events);
	res->trailing = cg_chrome_stream_trailing_bytes(s);
	res->shape = cg_chrome_stream_shape(s);
	for (size_t i = 0; i < cg_chrome_stream_nkeys(s); i++) {
		const cg_chrome_key *k = cg_chrome_stream_key(s, i);
		size_t len = strlen(res->keys);
		snprintf(res->keys + len, sizeof res->keys - len, "%s=%s;", k->name, k->value ? k->value : "(long)");
	}
	cg_chrome_stream_free(s);
	cg_reader_close(r);
}

static const char doc[] =
	"\xef\xbb\xbf{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"name\": \"A100 80GB\"}],\n"
	"  \"traceEvents\": [\n"
	"  {\"ph\": \"X\", \"name\": \"a]}[{\", \"ts\": 1},\n"
	"  {\"name\": \"q\\\"}\\\\\", \"args\": {\"x\": [1, [2, {}]]}} ,\n"
	"  7,\n"
	"  \"s\"\n"
	"  ],\n"
	"  \"traceName\": \"t\\u00e9\",\n"
	"  \"baseTimeNanoseconds\": 1751410836000000000\n"
	"}\n";

static void events_come_whole_whatever_the_read_size(void **state)
{
	for (size_t rb = 1; rb <= 9; rb++) {
		result res;
		stream(doc, rb, 1 << 20, &res);
		assert_int_equal(res.rc, 0);
		assert_int_equal(res.nevents, 4);
		assert_string_equal(res.events[0], "{\"ph\": \"X\", \"name\": \"a]}[{\", \"ts\": 1}");
		assert_string_equal(res.events[1], "{\"name\": \"q\\\"}\\\\\", \"args\": {\"x\": [1, [2, {}]]}}");
		assert_string_equal(res.events[2], "7");
		assert_string_equal(res.events[3], "\"s\"");
		assert_int_equal(res.offsets[0], strstr(doc, "{\"ph\"") - doc);
		assert_false(res.truncated);
		assert_false(res.trailing);
		assert_int_equal(res.shape, CG_CHROME_OBJECT);
	}
}

static void keys_are_kept_before_and_after_the_events(void **state)
{
	result res;
	stream(doc, 3, 1 << 20, &res);
	/* deviceProperties is longer than the 16-byte limit used here. */
	assert_string_equal(res.keys, "schemaVersion=1;deviceProperties=(long);traceName=\"t\\u00e9\";"
				      "baseTimeNanoseconds=(long);");
}

static void a_bare_array_is_a_list_of_events(void **state)
{
	result res;
	stream("  [{\"a\":1},{\"b\":[2]} , {}]  \n", 2, 1 << 20, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.shape, CG_CHROME_ARRAY);
	assert_int_equal(res.nevents, 3);
	assert_string_equal(res.events[1], "{\"b\":[2]}");
	assert_string_equal(res.events[2], "{}");
	stream("[]", 1, 1 << 20, &res);
	assert_int_equal(res.nevents, 0);
	assert_false(res.truncated);
}

static void a_trailing_comma_is_tolerated(void **state)
{
	result res;
	stream("{\"traceEvents\": [{\"a\":1},], \"k\": 2,}", 4, 1 << 20, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.nevents, 1);
	assert_string_equal(res.keys, "k=2;");
	assert_false(res.truncated);
}

static void a_document_cut_inside_the_events_is_truncated_there(void **state)
{
	result res;
	/* Cut inside the third event's string. */
	stream("{\"traceEvents\": [{\"a\":1}, {\"b\":2},\n {\"c\": \"x}", 5, 1 << 20, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.nevents, 2);
	assert_true(res.truncated);
	assert_true(res.in_events);
	/* Cut right after a comma, and right after an element. */
	stream("[{\"a\":1},", 5, 1 << 20, &res);
	assert_int_equal(res.nevents, 1);
	assert_true(res.truncated && res.in_events);
	stream("[{\"a\":1}", 5, 1 << 20, &res);
	assert_int_equal(res.nevents, 1);
	assert_true(res.truncated && res.in_events);
}

static void a_document_cut_after_the_events_keeps_them_all(void **state)
{
	result res;
	stream("{\"traceEvents\": [{\"a\":1}], \"traceName\": \"x", 5, 1 << 20, &res);
	assert_int_equal(res.nevents, 1);
	assert_true(res.truncated);
	assert_false(res.in_events);
}

static void an_event_over_the_limit_is_skipped_and_measured(void **state)
{
	char text[4096];
	snprintf(text, sizeof text, "[{\"a\":1}, {\"big\": \"%0*d\"}, {\"c\":3}]", 1000, 0);
	result res;
	stream(text, 7, 100, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.nevents, 3);
	assert_string_equal(res.events[0], "{\"a\":1}");
	assert_int_equal(res.overlong[1], strlen("{\"big\": \"\"}") + 1000);
	assert_int_equal(res.offsets[1], 10);
	assert_string_equal(res.events[2], "{\"c\":3}");
}

static void malformed_documents_name_the_byte_offset(void **state)
{
	result res;
	stream("{\"traceEvents\": [{\"a\":1} {\"b\":2}]}", 4, 1 << 20, &res);
	assert_int_equal(res.rc, CG_EINPUT);
	assert_non_null(strstr(res.err.msg, "byte offset 25 (after event 1): expected ',' or ']' after an event, found '{'"));
	stream("{\"traceEvents\" [", 4, 1 << 20, &res);
	assert_int_equal(res.rc, CG_EINPUT);
	assert_non_null(strstr(res.err.msg, "byte offset 15"));
	stream("hello", 4, 1 << 20, &res);
	assert_int_equal(res.rc, CG_EINPUT);
	assert_non_null(strstr(res.err.msg, "expected a JSON object or array, found 'h'"));
	stream("[{\"a\":1},,]", 4, 1 << 20, &res);
	assert_int_equal(res.rc, CG_EINPUT);
	assert_non_null(strstr(res.err.msg, "expected an event"));
}

static void whitespace_only_is_empty_and_junk_after_the_end_is_noticed(void **state)
{
	result res;
	stream(" \n\t ", 1, 1 << 20, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.shape, CG_CHROME_EMPTY);
	assert_false(res.truncated);
	stream("[] x", 1, 1 << 20, &res);
	assert_int_equal(res.rc, 0);
	assert_true(res.trailing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(events_come_whole_whatever_the_read_size),
		cmocka_unit_test(keys_are_kept_before_and_after_the_events),
		cmocka_unit_test(a_bare_array_is_a_list_of_events),
		cmocka_unit_test(a_trailing_comma_is_tolerated),
		cmocka_unit_test(a_document_cut_inside_the_events_is_truncated_there),
		cmocka_unit_test(a_document_cut_after_the_events_keeps_them_all),
		cmocka_unit_test(an_event_over_the_limit_is_skipped_and_measured),
		cmocka_unit_test(malformed_documents_name_the_byte_offset),
		cmocka_unit_test(whitespace_only_is_empty_and_junk_after_the_end_is_noticed),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
