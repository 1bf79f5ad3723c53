/* report.md and report.html as a document (cg_report_build): the key
 * figures of a run worked out by hand, in the blocks a reader sees, the
 * charts referenced or said to be skipped, a cut trace said first, hostile
 * names kept as plain text for the writers to escape. (Real samples through
 * the binary, and a real browser: tests/cli/test_report_cli.c.) */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "doc.h"
#include "doc_html.h"
#include "doc_markdown.h"
#include "report.h"
#include "sink.h"
#include "xalloc.h"

#define KIB 1024ull

/* A training step on "cpu", worked out by hand:
 *   100 ns   w   4 KiB parameter, in setup:model, never freed      live 4096
 *   1500     x   1 KiB activation, in forward (freed at 7000)      live 5120
 *   3500     tmp 512 B temporary, in backward (freed at 3600)      live 5632, 5120
 *   4000     g   3 KiB gradient (aten::mm), in backward (freed at 7500)
 *                                                                  live 8192: the peak
 *   7000, 7500  x and g freed                                      live 7168, 4096
 *   8000     y   4 KiB activation, in train_step#0, never freed    live 8192 again
 * Peak 8 KiB (8,192 B), first reached at 4 µs, reached 2 times, 3 live
 * (w, x, g): parameter 4 KiB = 50.0 %, gradient 3 KiB = 37.5 %, activation
 * 1 KiB = 12.5 %; by phase no phase 4 KiB, backward 3 KiB, forward 1 KiB.
 * Never freed: w and y, 8 KiB in 2. Allocated: 4096 + 1024 + 512 + 3072 +
 * 4096 = 12,800 B = 12.50 KiB in 5 allocations, 3 frees. Freed: x, tmp, g,
 * 4608 B = 4.50 KiB; tmp alone was freed before its span (backward, to
 * 6000) ended. Leak candidate: y, 4 KiB of activations. */
static cg_timeline *step_run(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", "rep");
	tu_span(tl, "r", NULL, "run", 0, 10000, CG_PHASE_NONE);
	tu_span(tl, "s", "r", "setup:model", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "t", "r", "train_step#0", 1000, 9000, CG_PHASE_NONE);
	tu_span(tl, "f", "t", "forward", 1000, 3000, CG_PHASE_FORWARD);
	tu_span(tl, "b", "t", "backward", 3000, 6000, CG_PHASE_BACKWARD);
	tu_mem(tl, 100, "w", "s", "cpu", 4 * KIB, CG_ALLOC, CG_CAT_PARAMETER, "aten::empty");
	tu_mem(tl, 1500, "x", "f", "cpu", KIB, CG_ALLOC, CG_CAT_ACTIVATION, "aten::relu");
	tu_mem(tl, 3500, "tmp", "b", "cpu", 512, CG_ALLOC, CG_CAT_TEMPORARY, "aten::mm");
	tu_mem(tl, 3600, "tmp", "b", "cpu", 512, CG_FREE, CG_CAT_TEMPORARY, "aten::mm");
	tu_mem(tl, 4000, "g", "b", "cpu", 3 * KIB, CG_ALLOC, CG_CAT_GRADIENT, "aten::mm");
	tu_mem(tl, 7000, "x", "b", "cpu", KIB, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 7500, "g", "b", "cpu", 3 * KIB, CG_FREE, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 8000, "y", "t", "cpu", 4 * KIB, CG_ALLOC, CG_CAT_ACTIVATION, "aten::cat");
	return tl;
}

static cg_doc *build(cg_timeline *tl, cg_analysis **a, const cg_chart_list *charts)
{
	tu_tl_finalize(tl);
	assert_int_equal(cg_analysis_run(a, tl, NULL, NULL), 0);
	return cg_report_build(*a, charts);
}

/* The first block at or after from of this kind whose text starts with
 * prefix (NULL: any); d->n when there is none. */
static size_t find(const cg_doc *d, size_t from, cg_doc_kind kind, const char *prefix)
{
	for (size_t i = from; i < d->n; i++)
		if (d->blocks[i].kind == kind &&
		    (!prefix || (d->blocks[i].text && strncmp(d->blocks[i].text, prefix, strlen(prefix)) == 0)))
			return i;
	return d->n;
}

static size_t must_find(const cg_doc *d, size_t from, cg_doc_kind kind, const char *prefix)
{
	size_t i = find(d, from, kind, prefix);
	if (i == d->n)
		fail_msg("no block of kind %d starting \"%s\"", (int)kind, prefix ? prefix : "");
	return i;
}

static const char *cell(const cg_doc_block *t, size_t row, size_t col)
{
	assert_true(row < t->nrows && col < t->ncols);
	return t->cells[row * t->ncols + col];
}

/* The row of table t whose first cell is label (the header row counts). */
static size_t row_of(const cg_doc_block *t, const char *label)
{
	for (size_t r = 0; r < t->nrows; r++)
		if (strcmp(cell(t, r, 0), label) == 0)
			return r;
	fail_msg("no row \"%s\"", label);
	return 0;
}

/* The first table after the heading that starts with heading. */
static const cg_doc_block *table_under(const cg_doc *d, const char *heading)
{
	size_t h = must_find(d, 0, CG_DOC_HEADING, heading);
	return &d->blocks[must_find(d, h, CG_DOC_TABLE, NULL)];
}

static void the_key_figures_are_the_runs_worked_out_by_hand(void **state)
{
	cg_analysis *a;
	cg_timeline *tl = step_run();
	cg_doc *d = build(tl, &a, NULL);
	/* the run is named after its file (test.jsonl), its metadata below */
	assert_string_equal(d->title, "Memory report \xe2\x80\x94 test");
	assert_int_equal(d->blocks[0].kind, CG_DOC_NOTE);
	assert_string_equal(d->blocks[0].text, "run rep");
	/* nothing to warn about: no call-out */
	assert_int_equal(find(d, 0, CG_DOC_CALLOUT, NULL), d->n);
	const cg_doc_block *k = table_under(d, "Key figures");
	assert_int_equal(k->ncols, 2);
	assert_string_equal(cell(k, 0, 1), "cpu");
	assert_string_equal(cell(k, row_of(k, "peak"), 1), "8.00 KiB (8,192 B)");
	assert_string_equal(cell(k, row_of(k, "first reached at"), 1), "4 \xc2\xb5s (reached 2 times)");
	assert_string_equal(cell(k, row_of(k, "live at the peak"), 1), "3 allocations");
	assert_string_equal(cell(k, row_of(k, "capacity and headroom"), 1), "not recorded");
	/* a CPU has no caching allocator: no replay estimate */
	assert_string_equal(cell(k, row_of(k, "fragmentation"), 1), "not recorded");
	assert_string_equal(cell(k, row_of(k, "allocated before the trace"), 1), "0 B in 0 frees");
	assert_string_equal(cell(k, row_of(k, "never freed"), 1), "8.00 KiB in 2 allocations");
	assert_string_equal(cell(k, row_of(k, "allocated in all"), 1), "12.50 KiB in 5 allocations, 3 frees");
	/* no memory from before profiling: no row for it */
	for (size_t r = 0; r < k->nrows; r++)
		assert_string_not_equal(cell(k, r, 0), "before profiling");
	assert_non_null(strstr(d->blocks[must_find(d, 0, CG_DOC_NOTE, "Peak:")].text, "when the trace ends."));
	/* the moment of the peak in words */
	assert_string_equal(d->blocks[must_find(d, 0, CG_DOC_PARAGRAPH, "Live memory peaked")].text,
			    "Live memory peaked at 8.00 KiB (8,192 B) at 4 \xc2\xb5s, when 3.00 KiB of aten::mm (gradient, "
			    "backward phase) was allocated in run/train_step#0/backward. 3 allocations were live.");
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void what_was_live_at_the_peak_adds_up_to_the_peak(void **state)
{
	cg_analysis *a;
	cg_timeline *tl = step_run();
	cg_doc *d = build(tl, &a, NULL);
	/* by category, the largest first */
	const cg_doc_block *c = table_under(d, "What was live at the peak");
	assert_int_equal(c->nrows, 4);
	static const char *const by_category[3][4] = {{"parameter", "4.00 KiB", "50.0 %", "1"},
						      {"gradient", "3.00 KiB", "37.5 %", "1"},
						      {"activation", "1.00 KiB", "12.5 %", "1"}};
	for (size_t r = 0; r < 3; r++)
		for (size_t col = 0; col < 4; col++)
			assert_string_equal(cell(c, r + 1, col), by_category[r][col]);
	/* by phase: the next table, the largest first */
	size_t i = (size_t)(c - d->blocks);
	const cg_doc_block *p = &d->blocks[must_find(d, i + 1, CG_DOC_TABLE, NULL)];
	assert_string_equal(cell(p, 0, 0), "phase that allocated it");
	static const char *const by_phase[3][3] = {
		{"no phase", "4.00 KiB", "50.0 %"}, {"backward", "3.00 KiB", "37.5 %"}, {"forward", "1.00 KiB", "12.5 %"}};
	assert_int_equal(p->nrows, 4);
	for (size_t r = 0; r < 3; r++)
		for (size_t col = 0; col < 3; col++)
			assert_string_equal(cell(p, r + 1, col), by_phase[r][col]);
	/* where: span paths by their own bytes */
	const cg_doc_block *w = table_under(d, "Where the peak was allocated");
	assert_string_equal(cell(w, 1, 0), "run/setup:model");
	assert_string_equal(cell(w, 1, 1), "4.00 KiB");
	assert_string_equal(cell(w, 1, 2), "50.0 %");
	assert_string_equal(cell(w, 2, 0), "run/train_step#0/backward");
	assert_string_equal(cell(w, 3, 0), "run/train_step#0/forward");
	/* the largest allocation live at the peak: w, never freed */
	const cg_doc_block *top = table_under(d, "Largest allocations live at the peak");
	assert_string_equal(cell(top, 1, 0), "4.00 KiB");
	assert_string_equal(cell(top, 1, 1), "parameter");
	assert_string_equal(cell(top, 1, 3), "aten::empty");
	assert_string_equal(cell(top, 1, 6), "never");
	assert_string_equal(cell(top, 1, 7), "run/setup:model");
	/* leaks and lifetimes in words */
	size_t h = must_find(d, 0, CG_DOC_HEADING, "Leak candidates");
	assert_non_null(strstr(d->blocks[must_find(d, h, CG_DOC_PARAGRAPH, NULL)].text,
			       "4.00 KiB in 1 allocations are live at the end"));
	assert_string_equal(d->blocks[must_find(d, must_find(d, 0, CG_DOC_HEADING, "Lifetimes"), CG_DOC_PARAGRAPH,
						NULL)].text,
			    "3 allocations (4.50 KiB) were freed in the trace; 1 of them (512 B) were temporaries, freed "
			    "before the span that allocated them ended. 2 (8.00 KiB) were never freed.");
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* Equal bytes at the peak, worked out by hand: w (parameter, no phase),
 * g (gradient, backward) and t (temporary, forward) 2 KiB each, a
 * (activation, forward) 1 KiB; the peak is 7 KiB at 600 ns. By category
 * the largest first, equals in the chart legend's order (the top of the
 * stack first: temporary, gradient, parameter), then activation; by phase
 * forward 3 KiB, then backward and no phase, 2 KiB each, in the order the
 * phases run with "no phase" last. */
static void the_tables_at_the_peak_sort_by_bytes_and_equals_in_a_fixed_order(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "f", "r", "forward", 0, 500, CG_PHASE_FORWARD);
	tu_span(tl, "b", "r", "backward", 500, 1000, CG_PHASE_BACKWARD);
	tu_mem(tl, 100, "w", "r", "cpu", 2 * KIB, CG_ALLOC, CG_CAT_PARAMETER, "aten::empty");
	tu_mem(tl, 200, "a", "f", "cpu", KIB, CG_ALLOC, CG_CAT_ACTIVATION, "aten::relu");
	tu_mem(tl, 300, "t", "f", "cpu", 2 * KIB, CG_ALLOC, CG_CAT_TEMPORARY, "aten::mm");
	tu_mem(tl, 600, "g", "b", "cpu", 2 * KIB, CG_ALLOC, CG_CAT_GRADIENT, "aten::mm");
	tu_mem(tl, 700, "t", "b", "cpu", 2 * KIB, CG_FREE, CG_CAT_TEMPORARY, NULL);
	cg_analysis *a;
	cg_doc *d = build(tl, &a, NULL);
	const cg_doc_block *c = table_under(d, "What was live at the peak");
	static const char *const by_category[5][4] = {{"category", "bytes", "of the peak", "allocations"},
						      {"temporary", "2.00 KiB", "28.6 %", "1"},
						      {"gradient", "2.00 KiB", "28.6 %", "1"},
						      {"parameter", "2.00 KiB", "28.6 %", "1"},
						      {"activation", "1.00 KiB", "14.3 %", "1"}};
	assert_int_equal(c->nrows, 5);
	for (size_t r = 0; r < 5; r++)
		for (size_t col = 0; col < 4; col++)
			assert_string_equal(cell(c, r, col), by_category[r][col]);
	const cg_doc_block *p = &d->blocks[must_find(d, (size_t)(c - d->blocks) + 1, CG_DOC_TABLE, NULL)];
	static const char *const by_phase[4][3] = {{"phase that allocated it", "bytes", "of the peak"},
						   {"forward", "3.00 KiB", "42.9 %"},
						   {"backward", "2.00 KiB", "28.6 %"},
						   {"no phase", "2.00 KiB", "28.6 %"}};
	assert_int_equal(p->nrows, 4);
	for (size_t r = 0; r < 4; r++)
		for (size_t col = 0; col < 3; col++)
			assert_string_equal(cell(p, r, col), by_phase[r][col]);
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void drawn_charts_are_figures_and_skipped_ones_say_why(void **state)
{
	cg_chart_list charts = {0};
	cg_chart_list_add_device(&charts, "timeline", 0, "timeline.cpu", "Live memory on cpu", NULL);
	cg_chart_list_add_device(&charts, "breakdown", 0, "breakdown.cpu", "Breakdown at the peak on cpu",
				 "no categories in this trace");
	cg_analysis *a;
	cg_timeline *tl = step_run();
	cg_doc *d = build(tl, &a, &charts);
	size_t f = must_find(d, 0, CG_DOC_FIGURE, NULL);
	assert_string_equal(d->blocks[f].name, "timeline.cpu");
	assert_string_equal(d->blocks[f].text, "Live memory on cpu");
	/* the timeline follows the moment of the peak; the breakdown's note its tables */
	assert_true(must_find(d, 0, CG_DOC_PARAGRAPH, "Live memory peaked") < f);
	size_t n = must_find(d, 0, CG_DOC_NOTE, "Breakdown at the peak on cpu");
	assert_string_equal(d->blocks[n].text, "Breakdown at the peak on cpu: not drawn (no categories in this trace).");
	assert_true(n > (size_t)(table_under(d, "What was live at the peak") - d->blocks));
	assert_int_equal(find(d, f + 1, CG_DOC_FIGURE, NULL), d->n);
	/* without a list: no figure and no note about charts */
	cg_doc *bare = cg_report_build(a, NULL);
	assert_int_equal(find(bare, 0, CG_DOC_FIGURE, NULL), bare->n);
	assert_int_equal(find(bare, 0, CG_DOC_NOTE, "Breakdown"), bare->n);
	cg_doc_free(bare);
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_chart_list_free(&charts);
	cg_timeline_free(tl);
}

static void a_cut_trace_is_said_first(void **state)
{
	cg_analysis *a;
	cg_timeline *tl = step_run();
	tl->source.truncated = true;
	tl->source.truncated_line = 11;
	tl->source.truncation_note = cg_strdup("trace ends mid-record at line 11");
	/* and the run ran out of memory at 9 µs asking for 1 MiB */
	tu_oom(tl, 9000, "cpu", 1048576);
	cg_doc *d = build(tl, &a, NULL);
	size_t cut = must_find(d, 0, CG_DOC_CALLOUT, NULL);
	assert_string_equal(d->blocks[cut].text, "The trace was cut off: trace ends mid-record at line 11. Everything "
						 "below is as of the last complete record.");
	/* before anything but the run's name, and before the key figures */
	for (size_t i = 0; i < cut; i++)
		assert_int_equal(d->blocks[i].kind, CG_DOC_NOTE);
	assert_true(cut < must_find(d, 0, CG_DOC_HEADING, "Key figures"));
	assert_int_equal(d->blocks[cut + 1].kind, CG_DOC_CALLOUT);
	assert_string_equal(d->blocks[cut + 1].text, "Out of memory on cpu at 9 \xc2\xb5s: an allocation of 1.00 MiB failed.");
	/* the key figures say where "never freed" stops */
	assert_non_null(strstr(d->blocks[must_find(d, 0, CG_DOC_NOTE, "Peak:")].text, "when the trace was cut off."));
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

#define HOSTILE_SCRIPT "<script>alert(1)</script>"

static void hostile_names_stay_plain_text_for_the_writers_to_escape(void **state)
{
	cg_analysis *a;
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", HOSTILE_SCRIPT);
	tu_span(tl, "s", NULL, HOSTILE_SCRIPT "|pipe", 0, 100, CG_PHASE_NONE);
	tu_mem(tl, 5, "x", "s", "cpu", 64, CG_ALLOC, CG_CAT_ACTIVATION, "`op`");
	cg_doc *d = build(tl, &a, NULL);
	/* the document holds the name as it was */
	const cg_doc_block *run = table_under(d, "The run");
	assert_string_equal(cell(run, row_of(run, "run_id"), 1), HOSTILE_SCRIPT);
	cg_sink *s = cg_sink_memory();
	cg_doc_write_markdown(d, s);
	const char *md = cg_sink_data(s, NULL);
	assert_null(strstr(md, "<script"));
	assert_non_null(strstr(md, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	/* a pipe in a name cannot break a table */
	assert_null(strstr(md, "</script>|pipe"));
	assert_non_null(strstr(md, "\\|pipe"));
	assert_int_equal(cg_sink_close(s, NULL), 0);
	s = cg_sink_memory();
	assert_int_equal(cg_doc_write_html(d, s, tu_tmpdir(), NULL), 0);
	const char *html = cg_sink_data(s, NULL);
	assert_null(strstr(html, "<script"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_key_figures_are_the_runs_worked_out_by_hand),
		cmocka_unit_test(what_was_live_at_the_peak_adds_up_to_the_peak),
		cmocka_unit_test(the_tables_at_the_peak_sort_by_bytes_and_equals_in_a_fixed_order),
		cmocka_unit_test(drawn_charts_are_figures_and_skipped_ones_say_why),
		cmocka_unit_test(a_cut_trace_is_said_first),
		cmocka_unit_test(hostile_names_stay_plain_text_for_the_writers_to_escape),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
