/* Reading trace files: compression by content, truncation, limits, and
 * files that are not traces at all; traces in memory read as the same
 * bytes in a file are, and the three formats told apart by content. */
#include "ingestutil.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "diag.h"
#include "tl_same.h"

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
#define ROOT "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
#define ALLOC(t, id, b) "{\"kind\":\"memory\",\"timestamp_ns\":" #t ",\"tensor_id\":\"" id "\",\"span_id\":\"s\"," \
	"\"device\":\"cpu\",\"bytes\":" #b ",\"action\":\"alloc\",\"dtype\":\"f32\"}\n"

static const char trace[] = META ROOT ALLOC(1, "a", 100) ALLOC(2, "b", 50);

static void gzip_is_detected_by_content_not_name(void **state)
{
	const char *gz_named_plain = tu_write_gz("trace.jsonl", trace, (size_t)-1);
	const char *plain_named_gz = tu_write("trace.jsonl.gz", trace, (size_t)-1);
	cg_timeline *a, *b;
	cg_error err;
	assert_int_equal(cg_ingest(&a, gz_named_plain, NULL, &err), 0);
	assert_int_equal(cg_ingest(&b, plain_named_gz, NULL, &err), 0);
	assert_true(a->source.gzip);
	assert_false(b->source.gzip);
	assert_int_equal(a->nmem, 2);
	assert_int_equal(b->nmem, 2);
	assert_int_equal(a->source.data_bytes, strlen(trace));
	cg_timeline_free(a);
	cg_timeline_free(b);
}

static void concatenated_gzip_members_are_read_whole(void **state)
{
	const char *p1 = tu_write_gz("part1.gz", META ROOT, (size_t)-1);
	const char *p2 = tu_write_gz("part2.gz", ALLOC(1, "a", 100), (size_t)-1);
	size_t n1, n2;
	char *a = tu_read(p1, &n1), *b = tu_read(p2, &n2);
	char *both = malloc(n1 + n2);
	memcpy(both, a, n1);
	memcpy(both + n1, b, n2);
	const char *p = tu_write("both.gz", both, n1 + n2);
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, p, NULL, &err), 0);
	assert_int_equal(tl->nmem, 1);
	cg_timeline_free(tl);
	free(a);
	free(b);
	free(both);
}

static void a_last_line_cut_mid_record_marks_truncation(void **state)
{
	char text[1024];
	snprintf(text, sizeof text, "%s%s", trace, "{\"kind\":\"memory\",\"timestamp_ns\":3,\"tens");
	cg_timeline *tl = tu_ingest_text(text);
	assert_true(tl->source.truncated);
	assert_int_equal(tl->source.truncated_line, 5);
	assert_string_equal(tl->source.truncation_note,
			    "trace ends mid-record at line 5 (the recording process probably died)");
	assert_int_equal(tl->source.bad_lines, 0);
	assert_int_equal(tl->nmem, 2);
	cg_timeline_free(tl);
}

static void a_complete_last_line_without_newline_is_a_record(void **state)
{
	char text[1024];
	snprintf(text, sizeof text, "%s%s", META ROOT, "{\"kind\":\"memory\",\"timestamp_ns\":3,\"tensor_id\":\"z\","
		 "\"span_id\":\"s\",\"device\":\"cpu\",\"bytes\":1,\"action\":\"alloc\",\"dtype\":\"f32\"}");
	cg_timeline *tl = tu_ingest_text(text);
	assert_false(tl->source.truncated);
	assert_int_equal(tl->nmem, 1);
	cg_timeline_free(tl);
}

static void a_bad_line_in_the_middle_is_not_truncation(void **state)
{
	cg_timeline *tl = tu_ingest_text(META ROOT "{\"kind\":\"memory\",\"timest\n" ALLOC(1, "a", 1));
	assert_false(tl->source.truncated);
	assert_int_equal(tl->source.bad_lines, 1);
	assert_int_equal(tl->source.diags[0].line, 3);
	cg_timeline_free(tl);
}

static void a_gzip_file_cut_short_is_truncated_not_fatal(void **state)
{
	/* Enough varied lines that the compressed stream is long enough to cut. */
	size_t cap = 200000, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text, META ROOT);
	for (int i = 0; n < cap - 300; i++)
		n += (size_t)sprintf(text + n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\",\"span_id\":\"s\","
				     "\"device\":\"cpu\",\"bytes\":%d,\"action\":\"alloc\",\"dtype\":\"f32\"}\n",
				     i, i, (i * 7919) % 100003);
	const char *full = tu_write_gz("full.gz", text, n);
	size_t gzlen;
	char *gz = tu_read(full, &gzlen);
	const char *cut = tu_write("cut.gz", gz, gzlen / 2);
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, cut, NULL, &err), 0);
	assert_true(tl->source.truncated);
	assert_true(tl->nmem > 100);
	assert_true(tl->source.data_bytes < n);
	cg_timeline_free(tl);

	/* A flipped byte in the CRC trailer: the data is not what was written. */
	gz[gzlen - 6] ^= 0x55;
	const char *bad = tu_write("badcrc.gz", gz, gzlen);
	tl = NULL;
	assert_int_equal(cg_ingest(&tl, bad, NULL, &err), CG_EINPUT);
	assert_null(tl);
	assert_non_null(strstr(err.msg, "badcrc.gz: gzip data is corrupt (incorrect data check)"));
	free(gz);
	free(text);
}

static void strict_mode_stops_at_the_first_bad_line(void **state)
{
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.strict = true;
	cg_timeline *tl = NULL;
	cg_error err;
	assert_int_equal(tu_ingest_text_rc(META ROOT "{\"kind\":\"memory\"}\n" ALLOC(1, "a", 1), &o, &tl, &err),
			 CG_EINPUT);
	assert_null(tl);
	assert_non_null(strstr(err.msg, ".jsonl:3: missing required field \"timestamp_ns\""));
}

static void blank_lines_and_crlf_are_fine(void **state)
{
	cg_timeline *tl = tu_ingest_text("\r\n{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\r\n"
					 "\n   \n" ROOT ALLOC(1, "a", 1));
	assert_int_equal(tl->source.blank_lines, 3);
	assert_int_equal(tl->source.bad_lines, 0);
	assert_int_equal(tl->nmem, 1);
	assert_int_equal(tl->mem[0].line, 6);
	assert_true(tl->source.meta_seen);
	cg_timeline_free(tl);
}

static void lines_longer_than_the_limit_are_bad_lines(void **state)
{
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_line_bytes = 200;
	cg_timeline *tl = NULL;
	cg_error err;
	char text[2048];
	char big[300];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	snprintf(text, sizeof text, META ROOT "{\"kind\":\"op\",\"op_name\":\"%s\"}\n" ALLOC(1, "a", 1), big);
	assert_int_equal(tu_ingest_text_rc(text, &o, &tl, &err), 0);
	assert_int_equal(tl->source.bad_lines, 1);
	assert_int_equal(tl->source.diags[0].line, 3);
	assert_string_equal(tl->source.diags[0].msg,
			    "line is 325 bytes, longer than the limit of 200 (--max-line-bytes)");
	assert_int_equal(tl->nmem, 1);
	cg_timeline_free(tl);
}

static void a_line_longer_than_the_read_buffer_limit_is_skipped_while_streaming(void **state)
{
	/* A 5 MiB line with a 1 MiB limit: the reader never holds it whole. */
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_line_bytes = 1 << 20;
	size_t big = 5u << 20;
	char *text = malloc(big + 1024);
	size_t n = (size_t)sprintf(text, META "{\"kind\":\"op\",\"op_name\":\"");
	memset(text + n, 'y', big);
	n += big;
	n += (size_t)sprintf(text + n, "\"}\n" ROOT ALLOC(1, "a", 7));
	const char *p = tu_write("long.jsonl", text, n);
	free(text);
	cg_timeline *tl = NULL;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, p, &o, &err), 0);
	assert_int_equal(tl->source.bad_lines, 1);
	assert_int_equal(tl->source.diags[0].line, 2);
	assert_string_equal(tl->source.diags[0].msg,
			    "line is longer than the limit of 1048576 bytes (--max-line-bytes)");
	assert_int_equal(tl->nmem, 1);
	assert_int_equal(tl->mem[0].line, 4);
	cg_timeline_free(tl);
}

static void lines_spanning_block_boundaries_keep_their_numbers(void **state)
{
	size_t cap = 12u << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text, META ROOT);
	int count = 0;
	while (n < cap - 400) {
		n += (size_t)sprintf(text + n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\",\"span_id\":\"s\","
				     "\"device\":\"cpu\",\"bytes\":%d,\"action\":\"alloc\",\"dtype\":\"f32\",\"pad\":\"%0*d\"}\n",
				     count, count, 1 + count % 13, 1 + count % 97, 0);
		count++;
	}
	const char *p = tu_write("big.jsonl", text, n);
	free(text);
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, p, NULL, &err), 0);
	assert_int_equal(tl->nmem, (size_t)count);
	assert_int_equal(tl->source.bad_lines, 0);
	for (int i = 0; i < count; i += 1013) {
		assert_int_equal(tl->mem[i].line, (uint32_t)i + 3);
		assert_int_equal(tl->mem[i].bytes, 1 + (uint64_t)(i % 13));
	}
	cg_timeline_free(tl);
}

static void empty_garbage_and_non_files_fail_clearly(void **state)
{
	cg_timeline *tl = NULL;
	cg_error err;
	const char *empty = tu_write("empty.jsonl", "", 0);
	assert_int_equal(cg_ingest(&tl, empty, NULL, &err), CG_EINPUT);
	assert_non_null(strstr(err.msg, "empty.jsonl: the trace is empty"));

	const char *garbage = tu_write("garbage.bin", "\x01\x02\x03\xff\xfe\n\x7f\x80\n", 9);
	assert_int_equal(cg_ingest(&tl, garbage, NULL, &err), CG_EINPUT);
	assert_non_null(strstr(err.msg, "garbage.bin: no record could be read (2 lines, 2 bad)"));

	assert_int_equal(cg_ingest(&tl, tu_tmpdir(), NULL, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "is a directory"));

	assert_int_equal(cg_ingest(&tl, tu_path("does-not-exist.jsonl"), NULL, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "does-not-exist.jsonl: No such file or directory"));

	const char *fifo = tu_path("fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(cg_ingest(&tl, fifo, NULL, &err), CG_EINPUT); /* no writer: empty, no hang */
	assert_non_null(strstr(err.msg, "the trace is empty"));
	assert_null(tl);
}

/* One small trace of each format the dispatcher knows. */
#define KMEM(ts, addr, b, ta) \
	"{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"args\":{\"Device Type\":1," \
	"\"Device Id\":0,\"Addr\":" #addr ",\"Bytes\":" #b ",\"Total Allocated\":" #ta ",\"Total Reserved\":4096}}"
static const char chrome[] = "{\"schemaVersion\": 1, \"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},\n"
	KMEM(2, 7, 512, 1536) ",\n" KMEM(4, 7, -512, 1024) ",\n"
	"{\"ph\":\"i\",\"name\":\"[OutOfMemory]\",\"pid\":1,\"tid\":1,\"ts\":5,\"args\":{\"Bytes\":9}}\n"
	"], \"traceName\": \"t\"}\n";
static const char memtimeline[] = "[[-1, 1, 64, 0], [1000, 2, 32, 4], [1010, 4, -32, 4]]";

/* Ingests data from memory and from a file holding the same bytes;
 * checks both give the same timeline, and returns the one from memory. */
static cg_timeline *memory_and_file(const void *data, size_t n, const char *name)
{
	const char *path = tu_write(name, data, n);
	cg_timeline *from_file, *from_memory;
	cg_error err;
	if (cg_ingest(&from_file, path, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	if (cg_ingest_memory(&from_memory, data, n, name, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	same_timeline(from_file, from_memory);
	assert_string_equal(from_memory->source.display_name, name);
	assert_string_equal(from_memory->source.path, name);
	cg_timeline_free(from_file);
	return from_memory;
}

static void a_trace_in_memory_reads_as_the_same_bytes_in_a_file(void **state)
{
	static const struct {
		const char *text, *format;
	} cases[] = {
		{trace, "candle-graph/trace/6 JSONL"},
		{chrome, "Chrome trace (PyTorch profiler)"},
		{memtimeline, "PyTorch memory timeline (export_memory_timeline raw)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cg_timeline *tl = memory_and_file(cases[i].text, strlen(cases[i].text), "mem.trace");
		assert_false(tl->source.gzip);
		assert_string_equal(tl->source.format, cases[i].format);
		cg_timeline_free(tl);
		size_t gzlen;
		char *gz = tu_read(tu_write_gz("gz.tmp", cases[i].text, (size_t)-1), &gzlen);
		tl = memory_and_file(gz, gzlen, "mem.trace.gz");
		assert_true(tl->source.gzip);
		assert_string_equal(tl->source.format, cases[i].format);
		cg_timeline_free(tl);
		free(gz);
	}
	/* Samples of each format, as they are stored. */
	static const char *const samples[] = {"mlp_adam.jsonl.gz", "leak_loss_history.jsonl",
					      "external/hta_memory_timeline.raw.gz",
					      "external/tracelens_h100_bert_small.json.gz"};
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		size_t n;
		char *data = tu_read(tu_sample(samples[i]), &n);
		assert_non_null(data);
		cg_timeline_free(memory_and_file(data, n, "sample"));
		free(data);
	}
}

static void the_three_formats_are_told_apart_by_content(void **state)
{
	/* Names that say otherwise: content decides. */
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, tu_write("chrome.jsonl", chrome, (size_t)-1), NULL, &err), 0);
	assert_string_equal(tl->source.format, "Chrome trace (PyTorch profiler)");
	assert_true(tl->source.lines_are_events);
	assert_int_equal(tl->nmem, 2);
	assert_int_equal(tl->nooms, 1);
	cg_timeline_free(tl);
	assert_int_equal(cg_ingest(&tl, tu_write("raw.json", memtimeline, (size_t)-1), NULL, &err), 0);
	assert_string_equal(tl->source.format, "PyTorch memory timeline (export_memory_timeline raw)");
	assert_int_equal(tl->nmem, 3);
	cg_timeline_free(tl);
	assert_int_equal(cg_ingest(&tl, tu_write_gz("trace.json", trace, (size_t)-1), NULL, &err), 0);
	assert_string_equal(tl->source.format, "candle-graph/trace/6 JSONL");
	assert_false(tl->source.lines_are_events);
	cg_timeline_free(tl);
	/* A bare array of events is a Chrome trace too. */
	assert_int_equal(cg_ingest_memory(&tl, "[" KMEM(1, 3, 8, 8) "]", strlen("[" KMEM(1, 3, 8, 8) "]"), NULL, NULL,
					  &err), 0);
	assert_string_equal(tl->source.format, "Chrome trace, JSON array (PyTorch profiler)");
	cg_timeline_free(tl);
}

static void a_trace_in_memory_fails_as_a_file_would_named_as_given(void **state)
{
	cg_timeline *tl = (cg_timeline *)1;
	cg_error err;
	assert_int_equal(cg_ingest_memory(&tl, NULL, 0, NULL, NULL, &err), CG_EINPUT);
	assert_null(tl);
	assert_string_equal(err.msg, "<memory>: the trace is empty");
	assert_int_equal(cg_ingest_memory(&tl, "x\n", 2, "buf", NULL, &err), CG_EINPUT);
	assert_string_equal(err.msg, "buf: no record could be read (1 lines, 1 bad); "
				     "first bad line: buf:1: not valid JSON (error near column 1)");
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.strict = true;
	assert_int_equal(cg_ingest_memory(&tl, META ROOT "{}\n", strlen(META ROOT "{}\n"), "buf", &o, &err), CG_EINPUT);
	assert_string_equal(err.msg, "buf:3: missing required field \"kind\"");
	/* Corrupt gzip: the same message a file gets. */
	size_t gzlen;
	char *gz = tu_read(tu_write_gz("c.gz", trace, (size_t)-1), &gzlen);
	gz[gzlen - 6] ^= 0x55;
	assert_int_equal(cg_ingest_memory(&tl, gz, gzlen, "buf.gz", NULL, &err), CG_EINPUT);
	assert_non_null(strstr(err.msg, "buf.gz: gzip data is corrupt (incorrect data check)"));
	assert_null(tl);
	free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gzip_is_detected_by_content_not_name),
		cmocka_unit_test(concatenated_gzip_members_are_read_whole),
		cmocka_unit_test(a_last_line_cut_mid_record_marks_truncation),
		cmocka_unit_test(a_complete_last_line_without_newline_is_a_record),
		cmocka_unit_test(a_bad_line_in_the_middle_is_not_truncation),
		cmocka_unit_test(a_gzip_file_cut_short_is_truncated_not_fatal),
		cmocka_unit_test(strict_mode_stops_at_the_first_bad_line),
		cmocka_unit_test(blank_lines_and_crlf_are_fine),
		cmocka_unit_test(lines_longer_than_the_limit_are_bad_lines),
		cmocka_unit_test(a_line_longer_than_the_read_buffer_limit_is_skipped_while_streaming),
		cmocka_unit_test(lines_spanning_block_boundaries_keep_their_numbers),
		cmocka_unit_test(empty_garbage_and_non_files_fail_clearly),
		cmocka_unit_test(a_trace_in_memory_reads_as_the_same_bytes_in_a_file),
		cmocka_unit_test(the_three_formats_are_told_apart_by_content),
		cmocka_unit_test(a_trace_in_memory_fails_as_a_file_would_named_as_given),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
