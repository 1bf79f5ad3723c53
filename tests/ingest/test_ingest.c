/* Reading trace files: compression by content, truncation, limits, and
 * files that are not traces at all. */
#include "testutil.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "diag.h"

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
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
