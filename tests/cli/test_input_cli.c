/* What the binary makes of input that is not quite a trace, or not one at
 * all: a byte-order mark, endless devices, a Chrome trace whose first key
 * is long, compressed and UTF-16 files named by their magic bytes. Each
 * case asserts the exact message and the exit status. */
#include "runutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
#define ROOT "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
#define MEMF "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\",\"span_id\":\"s\",\"device\":\"cpu\"," \
	     "\"bytes\":%d,\"action\":\"alloc\",\"dtype\":\"f32\"}\n"

/* Runs cgmem with args; asserts the exit status and that stderr is exactly expect_err. */
static void run_expect(int status, const char *expect_err, const char *stdin_path, const char *a1, const char *a2)
{
	char *so, *se;
	int rc = tu_run(&so, &se, stdin_path, a1, a2, NULL);
	if (rc != status || (expect_err && strcmp(se, expect_err) != 0))
		fail_msg("exit %d (expected %d)\nstderr:   %s\nexpected: %s", rc, status, se, expect_err ? expect_err : "");
	free(so);
	free(se);
}

/* A 1 KiB line of 1,023 'x' (not JSON) and its newline. */
static void garbage_lines(FILE *f, size_t n)
{
	char line[1024];
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\n';
	for (size_t i = 0; i < n; i++)
		fwrite(line, 1, sizeof line, f);
}

/* summary.json of `cgmem summary --json ARGS... FILE`, asserted valid. */
static cJSON *summary_json(const char *trace, const char *threads, const char *parser)
{
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", "--json", "--threads", threads, "--parser", parser, trace, NULL);
	if (rc != 0)
		fail_msg("exit %d; stderr: %s", rc, se);
	cJSON *j = cJSON_Parse(so);
	if (!j)
		fail_msg("summary.json of %s is not valid JSON: %.300s", trace, so);
	free(so);
	free(se);
	return j;
}

/* --- a UTF-8 byte-order mark ------------------------------------------------- */

static void a_byte_order_mark_before_a_jsonl_trace_changes_nothing(void **state)
{
	size_t n;
	char *text = tu_read(tu_sample("mlp_adam.jsonl"), &n);
	char *marked = malloc(n + 3);
	memcpy(marked, "\xef\xbb\xbf", 3);
	memcpy(marked + 3, text, n);
	char plain[600], bom[600]; /* tu_path's buffers rotate */
	snprintf(plain, sizeof plain, "%s", tu_write("plain.jsonl", text, n));
	snprintf(bom, sizeof bom, "%s", tu_write("bom.jsonl", marked, n + 3));
	free(text);
	free(marked);
	static const char *const threads[] = {"1", "2"}, *const parsers[] = {"fast", "cjson"};
	for (int t = 0; t < 2; t++) {
		for (int p = 0; p < 2; p++) {
			cJSON *a = summary_json(plain, threads[t], parsers[p]);
			cJSON *b = summary_json(bom, threads[t], parsers[p]);
			assert_int_equal(tu_json_u64(b, "source", "records", "meta", NULL), 1);
			assert_int_equal(tu_json_u64(b, "source", "bad_lines", NULL), 0);
			assert_int_equal(tu_json_u64(b, "source", "file_bytes", NULL),
					 tu_json_u64(a, "source", "file_bytes", NULL) + 3);
			/* The path and the three bytes of the mark aside, the same document. */
			static const char *const differ[] = {"path", "file_bytes", "data_bytes"};
			for (int k = 0; k < 3; k++) {
				cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(a, "source"), differ[k]);
				cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(b, "source"), differ[k]);
			}
			assert_true(cJSON_Compare(a, b, true));
			cJSON_Delete(a);
			cJSON_Delete(b);
		}
	}
}

/* --- endless input ----------------------------------------------------------- */

static void dev_zero_is_given_up_after_64_mib_as_a_character_device(void **state)
{
	/* One line that never ends: skipped block by block, and given up once
	 * 64 MiB are behind it without a record. */
	run_expect(1, "cgmem summary: /dev/zero: no record could be read in the first 64 MiB of this character "
		      "device (1 bad line), so cgmem gives up; first bad line: /dev/zero:1: line is longer than "
		      "the limit of 67108864 bytes (--max-line-bytes)\n", NULL, "summary", "/dev/zero");
	run_expect(1, "cgmem summary: <stdin>: no record could be read in the first 64 MiB of this character "
		      "device (1 bad line), so cgmem gives up; first bad line: <stdin>:1: line is longer than "
		      "the limit of 67108864 bytes (--max-line-bytes)\n", "/dev/zero", "summary", "-");
}

static void a_file_of_65_mib_of_garbage_is_given_up_at_64_mib(void **state)
{
	char path[600];
	snprintf(path, sizeof path, "%s", tu_path("garbage.txt"));
	FILE *f = fopen(path, "wb");
	garbage_lines(f, 65 * 1024);
	fclose(f);
	/* Lines 1 to 65,536 fill the first 64 MiB exactly; line 65,537 is not read. */
	char expect[2048];
	snprintf(expect, sizeof expect, "cgmem summary: %s: no record could be read in the first 64 MiB (65536 bad "
		 "lines), so cgmem gives up; first bad line: %s:1: not valid JSON (error near column 1)\n", path, path);
	run_expect(1, expect, NULL, "summary", path);
	unlink(path);
}

static void an_endless_pipe_of_garbage_is_given_up_at_64_mib(void **state)
{
	char fifo[600];
	snprintf(fifo, sizeof fifo, "%s", tu_path("endless.fifo"));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* cgmem reads a FIFO without a writer as empty (no hang): the
	 * writer must be connected before cgmem starts. The test holds a
	 * read end of its own so that the writer's open returns, and lets
	 * go of it only once cgmem is done. */
	int hold = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(hold >= 0);
	int report[2];
	assert_int_equal(pipe(report), 0);
	pid_t writer = fork();
	assert_true(writer >= 0);
	if (writer == 0) {
		/* Says it is connected, writes 1 KiB garbage lines until the
		 * readers go away, then says how many it wrote. */
		signal(SIGPIPE, SIG_IGN);
		FILE *f = fopen(fifo, "wb");
		close(hold); /* the test's read end, not the writer's */
		char ready = f ? 1 : 0;
		if (write(report[1], &ready, 1) != 1)
			_exit(1);
		unsigned long long lines = 0;
		char line[1024];
		memset(line, 'x', sizeof line - 1);
		line[sizeof line - 1] = '\n';
		while (f && fwrite(line, 1, sizeof line, f) == sizeof line && fflush(f) == 0)
			lines++;
		if (write(report[1], &lines, sizeof lines) != (ssize_t)sizeof lines)
			_exit(1);
		_exit(0);
	}
	char ready = 0;
	assert_int_equal(read(report[0], &ready, 1), 1);
	assert_int_equal(ready, 1);
	close(report[1]);
	char expect[2048];
	snprintf(expect, sizeof expect, "cgmem summary: %s: no record could be read in the first 64 MiB (65536 bad "
		 "lines), so cgmem gives up; first bad line: %s:1: not valid JSON (error near column 1)\n", fifo, fifo);
	run_expect(1, expect, NULL, "summary", fifo);
	close(hold);
	unsigned long long written = 0;
	assert_int_equal(read(report[0], &written, sizeof written), (ssize_t)sizeof written);
	close(report[0]);
	int st;
	assert_int_equal(waitpid(writer, &st, 0), writer);
	/* 64 MiB read, and beyond them at most what was in flight: the
	 * parallel ingest's ring of blocks (at most 18 of 4 MiB on 8 threads)
	 * and the pipe. */
	assert_true(written >= 65536);
	assert_true(written < 65536 + 80 * 1024);
	unlink(fifo);
}

static void a_long_trace_with_bad_lines_is_read_to_its_end(void **state)
{
	/* A record first, then 65 MiB of bad lines between records, a record
	 * last: nothing is given up, every line is read. */
	char path[600];
	snprintf(path, sizeof path, "%s", tu_path("long.jsonl"));
	FILE *f = fopen(path, "wb");
	fputs(META ROOT, f);
	for (int i = 0; i < 65; i++) {
		fprintf(f, MEMF, i, i, 1);
		garbage_lines(f, 1024);
	}
	fprintf(f, MEMF, 99, 99, 1000);
	fclose(f);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", "--json", path, NULL);
	if (rc != 0)
		fail_msg("exit %d; stderr: %s", rc, se);
	cJSON *j = cJSON_Parse(so);
	assert_non_null(j);
	assert_int_equal(tu_json_u64(j, "source", "bad_lines", NULL), 65 * 1024);
	assert_int_equal(tu_json_u64(j, "source", "records", "memory", NULL), 66);
	assert_int_equal(tu_json_u64(j, "devices", "0", "peak", "bytes", NULL), 65 + 1000);
	cJSON_Delete(j);
	free(so);
	free(se);

	/* 63 MiB of garbage first: the records after it are still found. */
	f = fopen(path, "wb");
	garbage_lines(f, 63 * 1024);
	fputs(META ROOT, f);
	fprintf(f, MEMF, 1, 1, 8);
	fclose(f);
	rc = tu_run(&so, &se, NULL, "summary", "--json", path, NULL);
	if (rc != 0)
		fail_msg("exit %d; stderr: %s", rc, se);
	j = cJSON_Parse(so);
	assert_int_equal(tu_json_u64(j, "source", "bad_lines", NULL), 63 * 1024);
	assert_int_equal(tu_json_u64(j, "devices", "0", "peak", "bytes", NULL), 8);
	cJSON_Delete(j);
	free(so);
	free(se);
	unlink(path);
}

/* --- a Chrome trace on one line whose first value is long ---------------------- */

static void a_one_line_chrome_trace_with_a_long_unknown_first_key_is_read(void **state)
{
	/* json.dumps(d) of {"harness": "aaa...", "traceEvents": [...]}: the
	 * first key, unknown, holds 300 KiB or 3 MiB, past the 256 KiB that
	 * format detection looked at first. One allocation of 500 bytes. */
	static const char events[] =
		"\", \"traceEvents\": [{\"ph\": \"X\", \"name\": \"op\", \"ts\": 0, \"dur\": 100, \"pid\": 1, \"tid\": 1}, "
		"{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
		"\"ts\": 10, \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": 222, \"Bytes\": 500, "
		"\"Total Allocated\": 500, \"Total Reserved\": 4096}}]}";
	static const size_t sizes[] = {(size_t)300 << 10, (size_t)3 << 20};
	for (int i = 0; i < 2; i++) {
		size_t n = sizes[i];
		char *t = malloc(n + sizeof events + 16);
		size_t k = (size_t)sprintf(t, "{\"harness\": \"");
		memset(t + k, 'a', n);
		memcpy(t + k + n, events, sizeof events);
		char path[600];
		snprintf(path, sizeof path, "%s", tu_write("long.json", t, k + n + sizeof events - 1));
		free(t);
		char *so, *se;
		int rc = tu_run(&so, &se, NULL, "summary", "--json", path, NULL);
		if (rc != 0)
			fail_msg("%zu bytes: exit %d; stderr: %s", n, rc, se);
		cJSON *j = cJSON_Parse(so);
		assert_non_null(j);
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "source"), "format")->valuestring,
				    "Chrome trace (PyTorch profiler)");
		assert_int_equal(tu_json_u64(j, "devices", "0", "peak", "bytes", NULL), 500);
		cJSON_Delete(j);
		free(so);
		free(se);
	}
}

/* --- formats cgmem does not read, named by their magic bytes ---------------- */

/* `cgmem summary FILE` on bytes: exit 1 and exactly "cgmem summary: FILE: why". */
static void refused(const char *name, const void *data, size_t n, const char *why)
{
	char path[600], expect[1200];
	snprintf(path, sizeof path, "%s", tu_write(name, data, n));
	snprintf(expect, sizeof expect, "cgmem summary: %s: %s\n", path, why);
	run_expect(1, expect, NULL, "summary", path);
}

/* text as UTF-16 in the byte order asked, with a byte-order mark or not. */
static size_t utf16(const char *text, bool big_endian, bool mark, unsigned char *out)
{
	size_t k = 0;
	if (mark) {
		out[k++] = big_endian ? 0xfe : 0xff;
		out[k++] = big_endian ? 0xff : 0xfe;
	}
	for (const char *c = text; *c; c++) {
		out[k++] = big_endian ? 0 : (unsigned char)*c;
		out[k++] = big_endian ? (unsigned char)*c : 0;
	}
	return k;
}

static void compressed_and_utf16_files_are_named_by_their_magic_bytes(void **state)
{
	/* The magic numbers of the formats' specifications, then anything. */
	refused("t.zst", "\x28\xb5\x2f\xfd\x24\x00\x01\x00", 8, "this is zstd-compressed: cgmem reads plain or gzip");
	refused("t.bz2", "BZh91AY&SY\x01\x02", 12, "this is bzip2-compressed: cgmem reads plain or gzip");
	refused("t.xz", "\xfd" "7zXZ\0\0\x04\xe6\xd6\xb4\x46", 12, "this is xz-compressed: cgmem reads plain or gzip");

	/* A gzip file compressed again. */
	const char *inner = tu_write_gz("inner.gz", META ROOT, (size_t)-1);
	size_t n;
	char *gz = tu_read(inner, &n);
	char twice[600];
	snprintf(twice, sizeof twice, "%s", tu_write_gz("twice.gz", gz, n));
	free(gz);
	char expect[1400];
	snprintf(expect, sizeof expect, "cgmem summary: %s: this is gzip-compressed twice (a gzip file inside the gzip "
		 "file): cgmem reads plain or gzip, one layer deep\n", twice);
	run_expect(1, expect, NULL, "summary", twice);

	/* A JSONL trace saved as UTF-16, both byte orders, with and without a mark. */
	unsigned char u[512];
	refused("le.jsonl", u, utf16(META, false, true, u),
		"this is UTF-16 (little-endian, with a byte-order mark): cgmem reads UTF-8");
	refused("be.jsonl", u, utf16(META, true, true, u),
		"this is UTF-16 (big-endian, with a byte-order mark): cgmem reads UTF-8");
	refused("le0.jsonl", u, utf16(META, false, false, u),
		"this is UTF-16 (little-endian, without a byte-order mark): cgmem reads UTF-8");
	refused("be0.jsonl", u, utf16(" " META, true, false, u),
		"this is UTF-16 (big-endian, without a byte-order mark): cgmem reads UTF-8");
}

static void bytes_after_the_last_gzip_member_are_a_warning_with_their_offset(void **state)
{
	const char *one = tu_write_gz("one.gz", META ROOT, (size_t)-1);
	size_t n;
	char *member = tu_read(one, &n);
	/* Two members, then 5 bytes that are not a third one. */
	char *t = malloc(2 * n + 5);
	memcpy(t, member, n);
	memcpy(t + n, member, n);
	memcpy(t + 2 * n, "junk\n", 5);
	char path[600];
	snprintf(path, sizeof path, "%s", tu_write("tail.gz", t, 2 * n + 5));
	char expect[1400];
	snprintf(expect, sizeof expect, "%s:3: warning: another meta record (the first is at line 1); its run metadata "
		 "is ignored\n%s: warning: byte offset %zu: the last 5 bytes, after the last gzip member, are not gzip "
		 "data (ignored)\n", path, path, 2 * n);
	char *so, *se;
	assert_int_equal(tu_run(&so, &se, NULL, "summary", path, NULL), 0);
	assert_string_equal(se, expect);
	free(so);
	free(se);
	/* Zeros a tape or a disk image pads with: the same. */
	memset(t + 2 * n, 0, 5);
	snprintf(path, sizeof path, "%s", tu_write("pad.gz", t, 2 * n + 5));
	snprintf(expect, sizeof expect, "%s:3: warning: another meta record (the first is at line 1); its run metadata "
		 "is ignored\n%s: warning: byte offset %zu: the last 5 bytes, after the last gzip member, are not gzip "
		 "data (ignored)\n", path, path, 2 * n);
	assert_int_equal(tu_run(&so, &se, NULL, "summary", path, NULL), 0);
	assert_string_equal(se, expect);
	free(so);
	free(se);
	/* Two members and nothing after them: no warning of it. */
	snprintf(path, sizeof path, "%s", tu_write("two.gz", t, 2 * n));
	assert_int_equal(tu_run(&so, &se, NULL, "summary", path, NULL), 0);
	assert_null(strstr(se, "gzip"));
	free(so);
	free(se);
	free(t);
	free(member);
}

static void no_record_at_all_gives_the_first_bad_lines_reason(void **state)
{
	char path[600], expect[1400];
	snprintf(path, sizeof path, "%s", tu_write("bad.jsonl", "{\"kind\":\"memory\",\"bytes\":-1}\nnot json\n", (size_t)-1));
	snprintf(expect, sizeof expect, "cgmem summary: %s: no record could be read (2 lines, 2 bad); first bad line: "
		 "%s:1: missing required field \"timestamp_ns\"\n", path, path);
	run_expect(1, expect, NULL, "summary", path);
}

static void trace_events_that_are_not_an_array_say_so(void **state)
{
	refused("obj.json", "{\"traceEvents\": {}}", 19,
		"byte offset 16: \"traceEvents\" is not an array (it is an object): a Chrome trace's events are a JSON array");
	refused("num.json", "{\"schemaVersion\": 1,\n \"traceEvents\": 12}", 40,
		"byte offset 37: \"traceEvents\" is not an array (it is a number): a Chrome trace's events are a JSON array");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_byte_order_mark_before_a_jsonl_trace_changes_nothing),
		cmocka_unit_test(dev_zero_is_given_up_after_64_mib_as_a_character_device),
		cmocka_unit_test(a_file_of_65_mib_of_garbage_is_given_up_at_64_mib),
		cmocka_unit_test(an_endless_pipe_of_garbage_is_given_up_at_64_mib),
		cmocka_unit_test(a_long_trace_with_bad_lines_is_read_to_its_end),
		cmocka_unit_test(a_one_line_chrome_trace_with_a_long_unknown_first_key_is_read),
		cmocka_unit_test(compressed_and_utf16_files_are_named_by_their_magic_bytes),
		cmocka_unit_test(bytes_after_the_last_gzip_member_are_a_warning_with_their_offset),
		cmocka_unit_test(no_record_at_all_gives_the_first_bad_lines_reason),
		cmocka_unit_test(trace_events_that_are_not_an_array_say_so),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
