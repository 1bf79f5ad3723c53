/* A JSONL trace into a finalized timeline (jsonl_ingest.c), through
 * cg_ingest and directly: empty traces and traces with nothing readable, a
 * gzip stream without its end, the missing meta record, what the source
 * says of the file, progress, standard input, and the same timeline on one
 * thread or several. */
#include "ingestutil.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "jsonl_ingest.h"
#include "tl_same.h"

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"j\"}\n"
#define SPAN "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
#define MEMREC(t, id, b, act) "{\"kind\":\"memory\",\"timestamp_ns\":" #t ",\"tensor_id\":\"" id "\",\"span_id\":\"s\"," \
	"\"device\":\"cuda:0\",\"bytes\":" #b ",\"action\":\"" act "\",\"dtype\":\"f32\"}\n"

static const char trace[] = META SPAN MEMREC(1, "a", 100, "alloc") MEMREC(2, "b", 50, "alloc")
	MEMREC(3, "a", 100, "free") "not json\n" MEMREC(4, "c", 8, "alloc");

static bool has_diag(const cg_timeline *tl, cg_diag_kind kind, uint64_t line, const char *msg)
{
	for (size_t i = 0; i < tl->source.ndiags; i++)
		if (tl->source.diags[i].kind == kind && tl->source.diags[i].line == line &&
		    strcmp(tl->source.diags[i].msg, msg) == 0)
			return true;
	return false;
}

static void an_empty_trace_and_one_with_nothing_readable_say_which(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"", ": the trace is empty"},
		{"\n\r\n   \n", ": the trace is empty"}, /* blank lines only */
		/* The first bad line's reason, with the file's name (%1$s) and its line. */
		{"garbage\n[1]\n", ": no record could be read (2 lines, 2 bad); "
				   "first bad line: %s:1: not valid JSON (error near column 1)"},
		{"{\"kind\":\"counter\"}\n", ": no record could be read (1 lines, 0 bad); " /* unknown kinds only */
					  "first skipped line: %s:1: unknown record kind \"counter\" (skipped)"},
		{"\n{\"kind\":\"me", ": no record could be read (2 lines, 0 bad)"},	    /* cut: not empty */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cg_timeline *tl = (cg_timeline *)1;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(tu_ingest_text_rc(cases[i].text, NULL, &tl, &err), CG_EINPUT);
		assert_null(tl);
		char *at = strstr(err.msg, ".jsonl: ");
		char name[600], expect[1200];
		snprintf(name, sizeof name, "%.*s", at ? (int)(at + 6 - err.msg) : 0, err.msg);
		snprintf(expect, sizeof expect, cases[i].msg, name);
		if (!at || strcmp(at + 6, expect) != 0)
			fail_msg("case %zu: \"%s\", expected \"...%s\"", i, err.msg, expect);
	}
}

/* text deflated into a gzip member without its end: every byte of text
 * can be inflated, but the stream never says it is over (caller frees). */
static char *gzip_without_end(const char *text, size_t *len)
{
	z_stream z = {0};
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = strlen(text) + 1024;
	unsigned char *out = malloc(cap);
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_SYNC_FLUSH), Z_OK);
	*len = cap - z.avail_out;
	deflateEnd(&z);
	return (char *)out;
}

static void a_gzip_file_cut_short_is_truncated_with_a_warning(void **state)
{
	/* Cut after a whole line: only the gzip stream tells. */
	size_t n;
	char *gz = gzip_without_end(trace, &n);
	const char *path = tu_write("cut.jsonl.gz", gz, n);
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, path, NULL, &err), 0);
	const cg_source *src = &tl->source;
	assert_true(src->gzip);
	assert_true(src->truncated);
	assert_int_equal(src->lines, 7);
	assert_int_equal(src->truncated_line, 7);
	assert_string_equal(src->truncation_note, "the gzip stream ends early: the file was cut short");
	assert_true(has_diag(tl, CG_DIAG_WARNING, 0, "gzip stream ends before its end marker (file cut short)"));
	assert_int_equal(tl->nmem, 4); /* every record there was */
	assert_int_equal(src->data_bytes, strlen(trace));
	assert_int_equal(src->file_bytes, n);
	cg_timeline_free(tl);
	free(gz);

	/* Cut inside a line: the cut line is the first mark and stays; the
	 * warning still says why. */
	char text[2048];
	snprintf(text, sizeof text, "%s{\"kind\":\"memory\",\"timest", trace);
	gz = gzip_without_end(text, &n);
	path = tu_write("cut2.jsonl.gz", gz, n);
	assert_int_equal(cg_ingest(&tl, path, NULL, &err), 0);
	assert_int_equal(tl->source.truncated_line, 8);
	assert_string_equal(tl->source.truncation_note,
			    "trace ends mid-record at line 8 (the recording process probably died)");
	assert_true(has_diag(tl, CG_DIAG_WARNING, 0, "gzip stream ends before its end marker (file cut short)"));
	cg_timeline_free(tl);
	free(gz);
}

static void a_trace_without_a_meta_record_warns(void **state)
{
	cg_timeline *tl = tu_ingest_text(SPAN MEMREC(1, "a", 4, "alloc"));
	assert_false(tl->source.meta_seen);
	assert_int_equal(tl->source.warnings, 1);
	assert_true(has_diag(tl, CG_DIAG_WARNING, 0, "no meta record: the run's metadata is unknown"));
	cg_timeline_free(tl);
	tl = tu_ingest_text(META SPAN MEMREC(1, "a", 4, "alloc"));
	assert_int_equal(tl->source.warnings, 0);
	cg_timeline_free(tl);
}

static void the_source_says_what_was_read(void **state)
{
	const char *path = tu_write("src.jsonl", trace, (size_t)-1);
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, path, NULL, &err), 0);
	const cg_source *src = &tl->source;
	assert_string_equal(src->format, "candle-graph/trace/6 JSONL");
	assert_string_equal(src->path, path);
	assert_string_equal(src->display_name, path);
	assert_false(src->gzip);
	assert_false(src->lines_are_events);
	assert_int_equal(src->lines, 7);
	assert_int_equal(src->bad_lines, 1);
	assert_int_equal(src->file_bytes, strlen(trace));
	assert_int_equal(src->data_bytes, strlen(trace));
	assert_int_equal(src->records[CG_KIND_MEMORY], 4);
	assert_true(tl->finalized);
	/* Finalized: "a" is freed at t 3, 100 + 50 - 100 + 8 = 58 B live at the end. */
	assert_int_equal(tl->devices[0].live_at_end, 58);
	cg_timeline_free(tl);

	/* Directly from a reader, with the default options (o NULL). */
	cg_reader *r;
	assert_int_equal(cg_reader_open_memory(&r, trace, strlen(trace), "run.jsonl", NULL, &err), 0);
	assert_int_equal(cg_jsonl_ingest(&tl, r, "given/path", NULL, &err), 0);
	assert_string_equal(tl->source.path, "given/path");
	assert_string_equal(tl->source.display_name, "run.jsonl");
	assert_int_equal(tl->nmem, 4);
	cg_timeline_free(tl);
	cg_reader_close(r);
}

typedef struct progress {
	unsigned calls, done_calls;
	uint64_t last_read, file_bytes;
	bool went_back, done_not_last;
} progress;

static void on_progress(void *ctx, uint64_t bytes_read, uint64_t file_bytes, bool done)
{
	progress *p = ctx;
	if (p->done_calls)
		p->done_not_last = true;
	if (bytes_read < p->last_read)
		p->went_back = true;
	p->calls++;
	p->done_calls += done;
	p->last_read = bytes_read;
	p->file_bytes = file_bytes;
}

/* 8000 memory records (1.1 MB). */
static char *many_records(size_t *len)
{
	size_t cap = 2 << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)snprintf(text, cap, META SPAN);
	for (int i = 0; i < 8000; i++)
		n += (size_t)snprintf(text + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\","
				      "\"span_id\":\"s\",\"device\":\"cpu\",\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\"}\n", i, i);
	*len = n;
	return text;
}

static void check_progress(const progress *p, uint64_t n, unsigned at_least)
{
	assert_true(p->calls >= at_least);
	assert_int_equal(p->done_calls, 1);
	assert_false(p->done_not_last);
	assert_false(p->went_back);
	assert_int_equal(p->last_read, n);
	assert_int_equal(p->file_bytes, n);
}

static void progress_is_reported_up_to_the_whole_file(void **state)
{
	size_t n;
	char *text = many_records(&n);
	const char *path = tu_write("progress.jsonl", text, n);
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		progress p = {0};
		cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
		o.threads = threads;
		o.block_bytes = 512;
		o.progress = on_progress;
		o.progress_ctx = &p;
		cg_timeline *tl;
		cg_error err;
		/* Through cg_ingest: a report per block and the last one done.
		 * (Blocks there are 512 KiB whatever block_bytes says: see the
		 * report on reader.c; so "more than one" is all that is asked.) */
		assert_int_equal(cg_ingest(&tl, path, &o, &err), 0);
		check_progress(&p, n, 2);
		cg_timeline_free(tl);

		/* Straight from a reader in 512-byte blocks: 2000 and more reports. */
		memset(&p, 0, sizeof p);
		cg_reader_options ro = {o.max_line_bytes, 512};
		cg_reader *r;
		assert_int_equal(cg_reader_open_memory(&r, text, n, "progress", &ro, &err), 0);
		assert_int_equal(cg_jsonl_ingest(&tl, r, "progress", &o, &err), 0);
		check_progress(&p, n, (unsigned)(n / 1024));
		assert_int_equal(tl->nmem, 8000);
		cg_timeline_free(tl);
		cg_reader_close(r);
	}
	free(text);
}

static void standard_input_is_read_when_the_path_is_a_dash(void **state)
{
	const char *path = tu_write("stdin.jsonl", trace, (size_t)-1);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	int saved = dup(0);
	assert_int_equal(dup2(fd, 0), 0);
	close(fd);
	cg_timeline *tl;
	cg_error err;
	int rc = cg_ingest(&tl, "-", NULL, &err);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	assert_int_equal(rc, 0);
	assert_string_equal(tl->source.path, "-");
	assert_string_equal(tl->source.display_name, "<stdin>");
	assert_int_equal(tl->nmem, 4);
	cg_timeline_free(tl);
}

static void one_thread_or_several_give_the_same_timeline(void **state)
{
	/* Two devices, frees in later blocks than their allocations, bad and
	 * blank lines, a second meta record, a cut last line; 8000 records
	 * (1.2 MB), past the first block of up to 512 KiB that follows format
	 * detection's peek. */
	size_t cap = 2 << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)snprintf(text, cap, META SPAN);
	for (int i = 0; i < 8000; i++) {
		if (i % 37 == 5)
			n += (size_t)snprintf(text + n, cap - n, "{\"kind\":\"memory\",\"bytes\":-1}\n\r\n");
		if (i == 7900)
			n += (size_t)snprintf(text + n, cap - n, META);
		n += (size_t)snprintf(text + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\","
				      "\"span_id\":\"s\",\"device\":\"cuda:%d\",\"bytes\":%d,\"action\":\"%s\",\"dtype\":\"f32\"}\n",
				      i, i % 500, i % 2, 8 + i % 50, (i / 500) % 2 ? "free" : "alloc");
	}
	n += (size_t)snprintf(text + n, cap - n, "{\"kind\":\"memory\",\"timest");
	const char *plain = tu_write("same.jsonl", text, n);
	const char *gz = tu_write_gz("same.jsonl.gz", text, n);
	size_t gzlen;
	char *gzbytes = tu_read(gz, &gzlen);
	for (int k = 0; k < 2; k++) {
		cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
		o.threads = 1;
		cg_timeline *serial, *par;
		cg_error err;
		assert_int_equal(cg_ingest(&serial, k ? gz : plain, &o, &err), 0);
		assert_true(serial->source.truncated);
		assert_int_equal(serial->source.meta_count, 2);
		assert_int_equal(serial->ndevices, 2);
		for (unsigned threads = 2; threads <= 4; threads += 2) {
			o.threads = threads;
			assert_int_equal(cg_ingest(&par, k ? gz : plain, &o, &err), 0);
			same_timeline(serial, par);
			cg_timeline_free(par);
			/* Small blocks, many shards, straight from a reader. */
			for (size_t bs = 256; bs <= 65536; bs *= 16) {
				cg_reader_options ro = {o.max_line_bytes, bs};
				cg_reader *r;
				assert_int_equal(cg_reader_open_memory(&r, k ? gzbytes : text, k ? gzlen : n, "same", &ro,
								       &err), 0);
				assert_int_equal(cg_jsonl_ingest(&par, r, "same", &o, &err), 0);
				same_timeline(serial, par);
				cg_timeline_free(par);
				cg_reader_close(r);
			}
		}
		cg_timeline_free(serial);
	}
	free(gzbytes);
	free(text);
}

static void strict_fails_alike_on_one_thread_or_several(void **state)
{
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.strict = true;
	o.block_bytes = 100;
	for (unsigned threads = 1; threads <= 3; threads++) {
		o.threads = threads;
		cg_timeline *tl = (cg_timeline *)1;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(tu_ingest_text_rc(trace, &o, &tl, &err), CG_EINPUT);
		assert_null(tl);
		assert_non_null(strstr(err.msg, ".jsonl:6: not valid JSON (error near column 1)"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_empty_trace_and_one_with_nothing_readable_say_which),
		cmocka_unit_test(a_gzip_file_cut_short_is_truncated_with_a_warning),
		cmocka_unit_test(a_trace_without_a_meta_record_warns),
		cmocka_unit_test(the_source_says_what_was_read),
		cmocka_unit_test(progress_is_reported_up_to_the_whole_file),
		cmocka_unit_test(standard_input_is_read_when_the_path_is_a_dash),
		cmocka_unit_test(one_thread_or_several_give_the_same_timeline),
		cmocka_unit_test(strict_fails_alike_on_one_thread_or_several),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
