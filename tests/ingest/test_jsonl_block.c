/* The lines of one block into a timeline (jsonl_block.c): blank lines
 * counted, bad lines reported by number (fatal with strict), a cut last
 * line marking the trace truncated, the block's bytes left as they were,
 * and the limits on lines and strings. Blocks are built here by hand, as
 * the reader hands them out. */
#include "testutil.h"

#include <string.h>

#include "diag.h"
#include "jsonl_block.h"

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}"
#define SPAN "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}"
#define ALLOC(id) "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"" id "\",\"span_id\":\"s\"," \
	"\"device\":\"cpu\",\"bytes\":4,\"action\":\"alloc\",\"dtype\":\"f32\"}"

typedef struct fixture {
	cg_ingest_options o;
	cg_jsonl_ctx ctx;
	cg_block b;
	cg_error err;
} fixture;

static void start(fixture *x, const cg_timeline_limits *lim)
{
	memset(x, 0, sizeof *x);
	x->o = (cg_ingest_options)CG_INGEST_OPTIONS_INIT;
	x->ctx = (cg_jsonl_ctx){cg_timeline_new(lim), &x->o, cg_jsonl_parser_new(), "t.jsonl", 0, false};
}

static void finish(fixture *x)
{
	free(x->b.data);
	cg_timeline_free(x->ctx.tl);
	cg_jsonl_parser_free(x->ctx.parser);
}

/* The block of text, its lines numbered from first_line; a last line
 * without a newline is the file's last. Its spare byte holds 'Q'. */
static cg_block *block(fixture *x, const char *text, uint64_t first_line)
{
	size_t n = strlen(text);
	free(x->b.data);
	memset(&x->b, 0, sizeof x->b);
	x->b.data = malloc(n + 1);
	memcpy(x->b.data, text, n);
	x->b.data[n] = 'Q';
	x->b.len = n;
	x->b.cap = n + 1;
	x->b.first_line = first_line;
	uint64_t nl = 0;
	for (size_t i = 0; i < n; i++)
		nl += text[i] == '\n';
	x->b.ends_without_newline = n > 0 && text[n - 1] != '\n';
	x->b.nlines = nl + x->b.ends_without_newline;
	return &x->b;
}

static int add(fixture *x, const char *text, uint64_t first_line)
{
	x->err = (cg_error)CG_ERROR_INIT;
	return cg_jsonl_block_add(&x->ctx, block(x, text, first_line), &x->err);
}

static void blank_and_cr_only_lines_are_counted_not_read(void **state)
{
	fixture x;
	start(&x, NULL);
	/* Lines 1-3 blank (empty, CR, spaces and a tab with CR), 4 a meta
	 * record ending in CRLF, 5 blank, 6 a span. */
	assert_int_equal(add(&x, "\n\r\n \t \r\n" META "\r\n\n" SPAN "\n", 1), 0);
	const cg_source *src = &x.ctx.tl->source;
	assert_int_equal(src->blank_lines, 4);
	assert_int_equal(src->bad_lines, 0);
	assert_true(src->meta_seen);
	assert_int_equal(src->records[CG_KIND_SPAN_START], 1);
	assert_int_equal(x.ctx.tl->spans[0].line, 6);
	assert_int_equal(src->lines, 6);
	finish(&x);
}

static void bad_lines_are_reported_with_their_number(void **state)
{
	fixture x;
	start(&x, NULL);
	/* A block from the middle of a file: its lines are 10 to 14. */
	assert_int_equal(add(&x, "x\n" META "\n[1]\n{\"bytes\":1}\n{\"kind\":\"counter\"}\n", 10), 0);
	const cg_source *src = &x.ctx.tl->source;
	assert_int_equal(src->bad_lines, 3);
	assert_int_equal(src->lines, 14);
	assert_int_equal(src->ndiags, 4);
	assert_int_equal(src->diags[0].line, 10);
	assert_int_equal(src->diags[0].kind, CG_DIAG_BAD_LINE);
	assert_string_equal(src->diags[0].msg, "not valid JSON (error near column 1)");
	assert_int_equal(src->diags[1].line, 12);
	assert_string_equal(src->diags[1].msg, "not a JSON object");
	assert_int_equal(src->diags[2].line, 13);
	assert_string_equal(src->diags[2].msg, "missing required field \"kind\"");
	/* An unknown kind is a warning, not a bad line. */
	assert_int_equal(src->diags[3].line, 14);
	assert_int_equal(src->diags[3].kind, CG_DIAG_WARNING);
	assert_string_equal(src->diags[3].msg, "unknown record kind \"counter\" (skipped)");
	assert_true(src->meta_seen); /* line 11 was read between them */
	assert_false(src->truncated);
	finish(&x);
}

static void with_strict_the_first_bad_line_is_fatal_and_named(void **state)
{
	fixture x;
	start(&x, NULL);
	x.o.strict = true;
	assert_int_equal(add(&x, META "\n" SPAN "\n{\"kind\":\"memory\"}\n" ALLOC("a") "\n", 20), CG_EINPUT);
	assert_int_equal(x.err.code, CG_EINPUT);
	assert_string_equal(x.err.msg, "t.jsonl:22: missing required field \"timestamp_ns\"");
	/* Lines before it were read, none after it. */
	assert_true(x.ctx.tl->source.meta_seen);
	assert_int_equal(x.ctx.tl->nmem, 0);
	assert_int_equal(x.ctx.tl->source.bad_lines, 0);

	assert_int_equal(add(&x, "{\"kind\":\"op\"}x\n", 7), CG_EINPUT);
	assert_string_equal(x.err.msg, "t.jsonl:7: not valid JSON (error near column 14)");
	finish(&x);
}

static void a_cut_last_line_marks_the_trace_truncated(void **state)
{
	fixture x;
	start(&x, NULL);
	assert_int_equal(add(&x, META "\n" SPAN "\n{\"kind\":\"memory\",\"timestamp_ns\":3,\"tens", 1), 0);
	const cg_source *src = &x.ctx.tl->source;
	assert_true(src->truncated);
	assert_int_equal(src->truncated_line, 3);
	assert_string_equal(src->truncation_note,
			    "trace ends mid-record at line 3 (the recording process probably died)");
	assert_int_equal(src->bad_lines, 0); /* a cut is not a bad line */
	assert_int_equal(src->ndiags, 0);
	assert_int_equal(src->lines, 3);
	finish(&x);

	/* Not with strict either: the run died, the trace is fine up to there. */
	start(&x, NULL);
	x.o.strict = true;
	assert_int_equal(add(&x, SPAN "\n{\"kind\":\"mem", 4), 0);
	assert_true(x.ctx.tl->source.truncated);
	assert_int_equal(x.ctx.tl->source.truncated_line, 5);
	finish(&x);

	/* A last line without a newline that parses is a record; a bad line
	 * that ends in a newline is a bad line, even the last one. */
	start(&x, NULL);
	assert_int_equal(add(&x, SPAN "\n" ALLOC("a"), 1), 0);
	assert_false(x.ctx.tl->source.truncated);
	assert_int_equal(x.ctx.tl->nmem, 1);
	assert_int_equal(add(&x, "{\"kind\":\"mem\n", 3), 0);
	assert_false(x.ctx.tl->source.truncated);
	assert_int_equal(x.ctx.tl->source.bad_lines, 1);
	/* A cut last line that parses but is not a valid record is bad, not a cut. */
	assert_int_equal(add(&x, "{\"kind\":\"memory\"}", 4), 0);
	assert_false(x.ctx.tl->source.truncated);
	assert_int_equal(x.ctx.tl->source.bad_lines, 2);
	finish(&x);
}

static void the_first_truncation_mark_stays(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	cg_jsonl_mark_truncated(tl, 7, "first");
	cg_jsonl_mark_truncated(tl, 9, "second");
	assert_true(tl->source.truncated);
	assert_int_equal(tl->source.truncated_line, 7);
	assert_string_equal(tl->source.truncation_note, "first");
	cg_timeline_free(tl);

	/* A cut line after an earlier mark keeps the earlier one. */
	fixture x;
	start(&x, NULL);
	cg_jsonl_mark_truncated(x.ctx.tl, 2, "gzip");
	assert_int_equal(add(&x, SPAN "\n{\"kind\":\"mem", 1), 0);
	assert_int_equal(x.ctx.tl->source.truncated_line, 2);
	assert_string_equal(x.ctx.tl->source.truncation_note, "gzip");
	finish(&x);
}

static void the_blocks_bytes_are_left_as_they_were(void **state)
{
	/* Every kind of line, and a cut last one that uses the spare byte:
	 * the parallel reader reads a block again after a parse thread has. */
	const char *text = "\r\n" META "\r\n" SPAN "\n  \nnot json\n" ALLOC("a") "\r\n{\"kind\":\"x\"}\n" ALLOC("b");
	fixture x;
	start(&x, NULL);
	assert_int_equal(add(&x, text, 1), 0);
	assert_int_equal(x.b.len, strlen(text));
	assert_memory_equal(x.b.data, text, strlen(text));
	assert_int_equal(x.b.data[x.b.len], 'Q');
	assert_int_equal(x.ctx.tl->nmem, 2);
	/* Read again into a fresh timeline: the same result. */
	cg_timeline *again = cg_timeline_new(NULL);
	cg_jsonl_ctx ctx2 = {again, &x.o, x.ctx.parser, "t.jsonl", 0, false};
	assert_int_equal(cg_jsonl_block_add(&ctx2, &x.b, &x.err), 0);
	assert_int_equal(again->nmem, 2);
	assert_int_equal(again->source.bad_lines, 1);
	assert_int_equal(again->source.blank_lines, 2);
	assert_memory_equal(x.b.data, text, strlen(text));
	cg_timeline_free(again);
	finish(&x);
}

static void lines_longer_than_the_limit_are_bad_lines(void **state)
{
	fixture x;
	start(&x, NULL);
	/* The reader skipped an overlong line 7: the block has no bytes. */
	block(&x, "", 7);
	x.b.overlong = true;
	x.b.overlong_bytes = 5000;
	x.b.nlines = 1;
	x.o.max_line_bytes = 100;
	assert_int_equal(cg_jsonl_block_add(&x.ctx, &x.b, &x.err), 0);
	const cg_source *src = &x.ctx.tl->source;
	assert_int_equal(src->bad_lines, 1);
	assert_int_equal(src->diags[0].line, 7);
	assert_string_equal(src->diags[0].msg, "line is longer than the limit of 100 bytes (--max-line-bytes)");
	assert_int_equal(src->lines, 7);

	/* A line the block holds whole but is over the limit: measured, without its CR. */
	x.o.max_line_bytes = 18;
	/* {"kind":"counter"} is 18 bytes: at the limit, read. */
	assert_int_equal(add(&x, "{\"kind\":\"counter\"}\r\n{\"kind\":\"counters\"}\n", 8), 0);
	assert_int_equal(src->bad_lines, 2);
	assert_int_equal(src->unknown_kinds, 1);
	assert_int_equal(src->diags[2].line, 9);
	assert_string_equal(src->diags[2].msg, "line is 19 bytes, longer than the limit of 18 (--max-line-bytes)");

	x.o.strict = true;
	block(&x, "", 11);
	x.b.overlong = true;
	x.b.nlines = 1;
	assert_int_equal(cg_jsonl_block_add(&x.ctx, &x.b, &x.err), CG_EINPUT);
	assert_string_equal(x.err.msg, "t.jsonl:11: line is longer than the limit of 18 bytes (--max-line-bytes)");
	finish(&x);
}

static void line_numbers_stop_below_two_to_the_32(void **state)
{
	/* Records keep 32-bit line numbers: line 2^32 - 2 is the last. */
	fixture x;
	start(&x, NULL);
	char text[1024];
	snprintf(text, sizeof text, "%s\n\n%s\n", SPAN, ALLOC("a"));
	/* Lines 2^32 - 2 (a span), 2^32 - 1 (blank), 2^32 (a record). */
	assert_int_equal(add(&x, text, UINT32_MAX - 1), CG_ELIMIT);
	assert_string_equal(x.err.msg, "t.jsonl: more than 4294967294 lines");
	assert_int_equal(x.ctx.tl->source.records[CG_KIND_SPAN_START], 1);
	assert_int_equal(x.ctx.tl->source.blank_lines, 1); /* a blank line needs no number kept */
	assert_int_equal(x.ctx.tl->nmem, 0);
	finish(&x);
}

/* A limit under 1 MiB is named exactly, not as "0 MiB". */
static void a_string_limit_under_a_mib_is_named_exactly(void **state)
{
	cg_timeline_limits lim = {.max_string_bytes = (size_t)96 << 10};
	fixture x;
	start(&x, &lim);
	size_t big = (size_t)200 << 10;
	char *text = malloc(big + 1024);
	size_t n = (size_t)sprintf(text, "%s\n%s\n{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"", META, SPAN);
	memset(text + n, 't', big);
	n += big;
	sprintf(text + n, "\",\"span_id\":\"s\",\"device\":\"cpu\",\"bytes\":4,\"action\":\"alloc\",\"dtype\":\"f32\"}\n");
	assert_int_equal(add(&x, text, 1), CG_ELIMIT);
	assert_string_equal(x.err.msg, "t.jsonl:3: the trace's strings exceed the limit of 96.00 KiB "
				       "(raise it with --max-string-memory)");
	free(text);
	finish(&x);
}

static void a_string_limit_stops_the_block_with_the_line_named(void **state)
{
	cg_timeline_limits lim = {.max_string_bytes = (size_t)1 << 20};
	fixture x;
	start(&x, &lim);
	/* A 2 MiB tensor id on line 3 cannot fit in 1 MiB of strings. */
	size_t big = (size_t)2 << 20;
	char *text = malloc(big + 1024);
	size_t n = (size_t)sprintf(text, "%s\n%s\n{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"", META, SPAN);
	memset(text + n, 't', big);
	n += big;
	sprintf(text + n, "\",\"span_id\":\"s\",\"device\":\"cpu\",\"bytes\":4,\"action\":\"alloc\",\"dtype\":\"f32\"}\n%s\n",
		ALLOC("b"));
	assert_int_equal(add(&x, text, 1), CG_ELIMIT);
	assert_string_equal(x.err.msg,
			    "t.jsonl:3: the trace's strings exceed the limit of 1 MiB (raise it with --max-string-memory)");
	assert_int_equal(x.ctx.tl->nmem, 0);
	free(text);
	finish(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blank_and_cr_only_lines_are_counted_not_read),
		cmocka_unit_test(bad_lines_are_reported_with_their_number),
		cmocka_unit_test(with_strict_the_first_bad_line_is_fatal_and_named),
		cmocka_unit_test(a_cut_last_line_marks_the_trace_truncated),
		cmocka_unit_test(the_first_truncation_mark_stays),
		cmocka_unit_test(the_blocks_bytes_are_left_as_they_were),
		cmocka_unit_test(lines_longer_than_the_limit_are_bad_lines),
		cmocka_unit_test(line_numbers_stop_below_two_to_the_32),
		cmocka_unit_test(a_string_limit_stops_the_block_with_the_line_named),
		cmocka_unit_test(a_string_limit_under_a_mib_is_named_exactly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
