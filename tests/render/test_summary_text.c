/* The terminal summary (summary_text.h) of runs built by hand: the key
 * figures worked out on paper, what was live at the peak, lifetimes,
 * leaks and the end; no line wider than the width (100 by default, 80
 * and 132 asked; UTF-8 characters counted), long span paths cut with "…";
 * a trace whose frees cannot be paired, or that was cut off, says so; the
 * verdict right after the header; --brief; columns no row fills left out;
 * SGR emphasis only with colour. */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "sink.h"
#include "summary_text.h"
#include "utf8.h"
#include "xalloc.h"

#define KIB 1024ull
#define MIDDOT " \xc2\xb7 "
#define ELLIPSIS "\xe2\x80\xa6"

/* The run of test_report.c, on "cpu":
 *   100 ns   w   4 KiB parameter, in setup:model, never freed      live 4096
 *   1500     x   1 KiB activation, in forward (freed at 7000)      live 5120
 *   3500     tmp 512 B temporary, in backward (freed at 3600)      live 5632, 5120
 *   4000     g   3 KiB gradient (aten::mm), in backward (freed at 7500)
 *                                                                  live 8192: the peak
 *   7000, 7500  x and g freed                                      live 7168, 4096
 *   8000     y   4 KiB activation, in train_step#0, never freed    live 8192 again
 * Peak 8 KiB (8,192 B) at 4 µs, reached 2 times, 3 live; by category
 * parameter 4 KiB (50.0 %), gradient 3 KiB (37.5 %), activation 1 KiB
 * (12.5 %). At the end (8 µs): w and y, 8 KiB in 2. Allocated 12,800 B =
 * 12.50 KiB in 5, 3 frees. Freed: x, tmp, g = 4608 B = 4.50 KiB, tmp
 * (512 B) a temporary. Leak candidate: y, 4 KiB. The run ends at 10 µs.
 * backward_name names the backward span. */
static cg_timeline *step_run(const char *backward_name)
{
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", "rep");
	tu_span(tl, "r", NULL, "run", 0, 10000, CG_PHASE_NONE);
	tu_span(tl, "s", "r", "setup:model", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "t", "r", "train_step#0", 1000, 9000, CG_PHASE_NONE);
	tu_span(tl, "f", "t", "forward", 1000, 3000, CG_PHASE_FORWARD);
	tu_span(tl, "b", "t", backward_name, 3000, 6000, CG_PHASE_BACKWARD);
	tu_mem(tl, 100, "w", "s", "cpu", 4 * KIB, CG_ALLOC, CG_CAT_PARAMETER, "aten::empty");
	tu_mem(tl, 1500, "x", "f", "cpu", KIB, CG_ALLOC, CG_CAT_ACTIVATION, "aten::relu");
	tu_mem(tl, 3500, "tmp", "b", "cpu", 512, CG_ALLOC, CG_CAT_TEMPORARY, "aten::mm");
	tu_mem(tl, 3600, "tmp", "b", "cpu", 512, CG_FREE, CG_CAT_TEMPORARY, "aten::mm");
	tu_mem(tl, 4000, "g", "b", "cpu", 3 * KIB, CG_ALLOC, CG_CAT_GRADIENT, "aten::mm");
	tu_mem(tl, 7000, "x", "b", "cpu", KIB, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 7500, "g", "b", "cpu", 3 * KIB, CG_FREE, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 8000, "y", "t", "cpu", 4 * KIB, CG_ALLOC, CG_CAT_ACTIVATION, "aten::cat");
	tl->source.lines = 14;
	tl->source.records[CG_KIND_MEMORY] = 8;
	return tl;
}

typedef struct text {
	char *all;
	char **line;
	size_t n;
} text;

/* The summary of tl (finalized here) written with o (NULL: the
 * defaults), split into lines. */
static text summary_with(cg_timeline *tl, const cg_summary_text_options *o)
{
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_summary_text_write(s, a, o);
	size_t len;
	const char *data = cg_sink_data(s, &len);
	text t = {cg_strdup(data), NULL, 0};
	assert_true(len > 0 && data[len - 1] == '\n');
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_analysis_free(a);
	size_t cap = 0;
	for (char *p = t.all; *p;) {
		char *nl = strchr(p, '\n');
		*nl = '\0';
		CG_GROW(t.line, cap, t.n + 1);
		t.line[t.n++] = p;
		p = nl + 1;
	}
	return t;
}

static text summary(cg_timeline *tl)
{
	return summary_with(tl, NULL);
}

static void text_free(text *t)
{
	cg_free(t->line);
	cg_free(t->all);
}

/* The index of the line equal to want; fails when there is none. */
static size_t line_is(const text *t, const char *want)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->line[i], want) == 0)
			return i;
	fail_msg("no line \"%s\"", want);
	return 0;
}

/* The index of the first line starting with prefix; t->n when none. */
static size_t line_starting(const text *t, const char *prefix)
{
	for (size_t i = 0; i < t->n; i++)
		if (strncmp(t->line[i], prefix, strlen(prefix)) == 0)
			return i;
	return t->n;
}

/* "  label               value": a key figure, its label in 20 columns. */
static const char *key(const char *label, const char *value)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "  %-20s%s", label, value);
	return buf[k];
}

static size_t columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Every line valid UTF-8 and at most 100 characters wide. */
static void assert_fits_the_terminal(const text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t bad;
		if (cg_utf8_check(t->line[i], strlen(t->line[i]), &bad) != CG_UTF8_OK)
			fail_msg("line %zu is not valid UTF-8 at byte %zu: %s", i, bad, t->line[i]);
		if (columns(t->line[i]) > 100)
			fail_msg("line %zu is %zu columns wide: %s", i, columns(t->line[i]), t->line[i]);
	}
}

static void the_key_figures_are_the_runs_worked_out_by_hand(void **state)
{
	cg_timeline *tl = step_run("backward");
	text t = summary(tl);
	assert_fits_the_terminal(&t);
	/* header: the file, what was read, the metadata */
	assert_string_equal(t.line[0], "test.jsonl");
	assert_string_equal(t.line[1], "hand-built" MIDDOT "14 lines" MIDDOT "8 memory records" MIDDOT "1 device" MIDDOT
				       "ends at 10 \xc2\xb5s");
	assert_string_equal(t.line[2], "rep");
	size_t dev = line_is(&t, "cpu");
	/* the key figures, right under the device */
	assert_string_equal(t.line[dev + 1], key("peak", "8.00 KiB (8,192 B) at 4 \xc2\xb5s, reached 2 times"));
	assert_string_equal(t.line[dev + 2], key("reached by", "3.00 KiB of aten::mm (gradient, backward)"));
	assert_string_equal(t.line[dev + 3], key("", "run/train_step#0/backward"));
	assert_string_equal(t.line[dev + 4], key("live at peak", "3 allocations"));
	assert_string_equal(t.line[dev + 5], key("live at end", "8.00 KiB (8,192 B), 2 allocations, at 8 \xc2\xb5s"));
	assert_string_equal(t.line[dev + 6], key("allocated", "12.50 KiB in 5 allocations; 3 frees"));
	/* nothing from before the trace or before profiling: no lines for them */
	assert_int_equal(line_starting(&t, "  before the trace"), t.n);
	assert_int_equal(line_starting(&t, "  before profiling"), t.n);
	text_free(&t);
	cg_timeline_free(tl);
}

static void what_was_live_at_the_peak_is_listed_largest_first(void **state)
{
	cg_timeline *tl = step_run("backward");
	text t = summary(tl);
	char row[3][128];
	static const char *const cats[3][3] = {
		{"parameter", "4.00 KiB", "50.0 %"}, {"gradient", "3.00 KiB", "37.5 %"}, {"activation", "1.00 KiB", "12.5 %"}};
	for (int k = 0; k < 3; k++)
		snprintf(row[k], sizeof row[k], "    %-18s%11s%9s", cats[k][0], cats[k][1], cats[k][2]);
	size_t h = line_is(&t, "  at the peak, by category");
	for (int k = 0; k < 3; k++)
		assert_string_equal(t.line[h + 1 + k], row[k]);
	/* by phase: backward 3 KiB, none 4 KiB, forward 1 KiB, largest first */
	h = line_is(&t, "  at the peak, by the phase that allocated");
	assert_int_equal(strncmp(t.line[h + 1], "    none ", 9), 0);
	assert_int_equal(strncmp(t.line[h + 2], "    backward ", 13), 0);
	assert_int_equal(strncmp(t.line[h + 3], "    forward ", 12), 0);
	/* the allocations live at the peak: 3 of them */
	line_is(&t, "  largest allocations live at the peak (3), allocated \xe2\x86\x92 freed");
	/* lifetimes, leaks and the end */
	line_is(&t, "  lifetimes of 3 freed allocations (4.50 KiB); 2 never freed; temporaries 1 (512 B)");
	line_is(&t, "  live at the end besides parameters and optimizer state: 4.00 KiB in 1 allocations");
	size_t end = line_is(&t, "  end of the trace");
	assert_string_equal(t.line[end + 1], key("last record", "8 \xc2\xb5s"));
	assert_string_equal(t.line[end + 2], key("live then", "8.00 KiB in 2 allocations"));
	text_free(&t);
	cg_timeline_free(tl);
}

static void long_span_paths_are_cut_to_the_width_with_an_ellipsis(void **state)
{
	/* a 300-character span name, half of it two-byte characters, holding
	 * the allocation that reaches the peak */
	char name[1024] = "autograd::engine::evaluate_function: ";
	while (columns(name) < 290)
		strcat(name, "\xc3\xa9t\xc3\xa9 ");
	strcat(name, "AddmmBackward0");
	cg_timeline *tl = step_run(name);
	text t = summary(tl);
	assert_fits_the_terminal(&t);
	/* "reached by" is followed by its path, cut in the middle to the 78
	 * columns left after the label: 22 + 78 = 100 */
	size_t i = line_starting(&t, key("reached by", ""));
	assert_true(i < t.n);
	const char *path = t.line[i + 1];
	assert_int_equal(columns(path), 100);
	assert_int_equal(strncmp(path, key("", "run/train_step#0/autograd::engine"), 22 + 33), 0);
	assert_non_null(strstr(path, ELLIPSIS));
	size_t n = strlen(path);
	assert_string_equal(path + n - strlen("AddmmBackward0"), "AddmmBackward0");
	/* the same path under each allocation of the lists is cut too */
	size_t cut = 0;
	for (size_t k = 0; k < t.n; k++)
		if (strstr(t.line[k], "autograd::engine") && strstr(t.line[k], ELLIPSIS))
			cut++;
	assert_true(cut >= 2);
	text_free(&t);
	cg_timeline_free(tl);
}

/* The header's lines (up to the first blank one) joined with spaces: its
 * wrapped paragraphs read whole. */
static char *header_text(const text *t)
{
	size_t len = 1;
	for (size_t i = 0; i < t->n && t->line[i][0]; i++)
		len += strlen(t->line[i]) + 1;
	char *h = cg_malloc(len);
	h[0] = '\0';
	for (size_t i = 0; i < t->n && t->line[i][0]; i++) {
		if (i)
			strcat(h, " ");
		strcat(h, t->line[i]);
	}
	return h;
}

static void a_trace_whose_frees_are_unpaired_says_what_is_not_known(void **state)
{
	cg_timeline *tl = step_run("backward");
	tl->source.pairing_known = false;
	text t = summary(tl);
	assert_fits_the_terminal(&t);
	char *h = header_text(&t);
	assert_non_null(strstr(h, "frees could not be matched to their allocations: live bytes by device and by "
				  "category are exact, but lists of allocations, lifetimes, leaks and the allocator "
				  "replay are not available"));
	cg_free(h);
	line_is(&t, "  leaks by allocation: not available without pairing");
	line_is(&t, "  lifetimes: not available without pairing");
	assert_true(line_starting(&t, "  allocator replay: not available (") < t.n);
	/* the peak is still exact */
	line_is(&t, key("peak", "8.00 KiB (8,192 B) at 4 \xc2\xb5s, reached 2 times"));
	/* and no list of allocations */
	assert_int_equal(line_starting(&t, "  largest allocations live at the peak"), t.n);
	text_free(&t);
	cg_timeline_free(tl);
}

static void a_cut_trace_and_a_format_without_categories_are_said_in_the_header(void **state)
{
	cg_timeline *tl = step_run("backward");
	tl->source.truncated = true;
	tl->source.truncation_note = cg_strdup("trace ends mid-record at line 15");
	tl->source.categories_known = false;
	tl->source.bad_lines = 1200;
	text t = summary(tl);
	assert_fits_the_terminal(&t);
	char *h = header_text(&t);
	assert_non_null(strstr(h, "trace ends mid-record at line 15"));
	assert_non_null(strstr(h, "1,200 bad lines were skipped"));
	assert_non_null(strstr(h, "categories: this format does not record them; all memory shows as unknown"));
	cg_free(h);
	/* without categories there is no table by category */
	assert_int_equal(line_starting(&t, "  at the peak, by category"), t.n);
	text_free(&t);
	cg_timeline_free(tl);
}

/* Every line valid UTF-8 and at most width characters wide; returns the
 * widest. */
static size_t assert_fits(const text *t, size_t width)
{
	size_t widest = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t bad;
		if (cg_utf8_check(t->line[i], strlen(t->line[i]), &bad) != CG_UTF8_OK)
			fail_msg("line %zu is not valid UTF-8 at byte %zu: %s", i, bad, t->line[i]);
		if (columns(t->line[i]) > width)
			fail_msg("line %zu is %zu columns wide, more than %zu: %s", i, columns(t->line[i]), width, t->line[i]);
		if (columns(t->line[i]) > widest)
			widest = columns(t->line[i]);
	}
	return widest;
}

static void the_verdict_is_the_line_after_the_header(void **state)
{
	/* complete, no OOM: ok, right after the three lines of the header */
	cg_timeline *tl = step_run("backward");
	text t = summary(tl);
	assert_string_equal(t.line[2], "rep");
	assert_string_equal(t.line[3], "ok    the trace is complete and records no out-of-memory error");
	assert_string_equal(t.line[4], "");
	assert_string_equal(t.line[5], "cpu");
	text_free(&t);
	cg_timeline_free(tl);
	/* cut off: FAIL, after the header's note of the cut; the last record
	 * (y at 8 µs) is in train_step#0, which has no phase */
	tl = step_run("backward");
	tl->source.truncated = true;
	tl->source.truncated_line = 15;
	tl->source.truncation_note = cg_strdup("trace ends mid-record at line 15");
	cg_summary_text_options o = {132, false, false};
	t = summary_with(tl, &o);
	assert_string_equal(t.line[3], "trace ends mid-record at line 15");
	assert_string_equal(t.line[4], "FAIL  the run looks like it died: the trace was cut off mid-record at line 15; cpu "
				       "stopped at 8 \xc2\xb5s, in train_step#0");
	assert_string_equal(t.line[5], "");
	/* the paragraph of the end of the trace stays where it was */
	assert_true(line_starting(&t, "  The trace was cut off mid-record at line 15") > line_is(&t, "  end of the trace"));
	text_free(&t);
	cg_timeline_free(tl);
	/* out of memory: a 1 GiB request at 9 µs, in the run's span */
	tl = step_run("backward");
	tu_oom(tl, 9000, "cpu", 1024 * 1024 * KIB);
	t = summary_with(tl, &o);
	assert_string_equal(t.line[3], "FAIL  cpu ran out of memory at 9 \xc2\xb5s: a request for 1.00 GiB failed, in train_step#0");
	text_free(&t);
	cg_timeline_free(tl);
}

static void the_lines_fit_80_and_132_columns(void **state)
{
	char name[1024] = "autograd::engine::evaluate_function: ";
	while (columns(name) < 290)
		strcat(name, "\xc3\xa9t\xc3\xa9 ");
	static const unsigned widths[] = {80, 132};
	size_t widest[2];
	for (int k = 0; k < 2; k++) {
		cg_timeline *tl = step_run(name);
		tl->source.truncated = true;
		tl->source.truncated_line = 15;
		cg_summary_text_options o = {widths[k], false, false};
		text t = summary_with(tl, &o);
		widest[k] = assert_fits(&t, widths[k]);
		/* the span path under "reached by" fills the width */
		size_t i = line_starting(&t, key("reached by", ""));
		assert_int_equal(columns(t.line[i + 1]), widths[k]);
		text_free(&t);
		cg_timeline_free(tl);
	}
	assert_int_equal(widest[0], 80);
	assert_int_equal(widest[1], 132);
	/* under 80 is 80 */
	cg_timeline *tl = step_run(name);
	cg_summary_text_options o = {40, false, false};
	text t = summary_with(tl, &o);
	assert_int_equal(assert_fits(&t, 80), 80);
	text_free(&t);
	cg_timeline_free(tl);
}

static void brief_is_the_peak_what_filled_it_the_verdict_and_the_largest(void **state)
{
	cg_timeline *tl = step_run("backward");
	cg_summary_text_options o = {100, false, true};
	text t = summary_with(tl, &o);
	static const char *const want[] = {
		"test.jsonl",
		"hand-built" MIDDOT "14 lines" MIDDOT "8 memory records" MIDDOT "1 device" MIDDOT "ends at 10 \xc2\xb5s",
		"rep",
		"ok    the trace is complete and records no out-of-memory error",
		"",
		"cpu",
		"  peak                8.00 KiB (8,192 B) at 4 \xc2\xb5s, reached 2 times",
		"  filled by           parameter          4.00 KiB   50.0 %",
		"                      gradient           3.00 KiB   37.5 %",
		"                      activation         1.00 KiB   12.5 %",
		"  largest then        the 3 allocations live at the peak",
		"      4.00 KiB  parameter  aten::empty  run/setup:model",
		"      3.00 KiB  gradient   aten::mm     run/train_step#0/backward",
		"      1.00 KiB  activation aten::relu   run/train_step#0/forward",
	};
	assert_int_equal(t.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < t.n; i++)
		assert_string_equal(t.line[i], want[i]);
	text_free(&t);
	cg_timeline_free(tl);
}

/* Makes memory record m's dtype "unknown" (index 0). */
static void no_dtype(cg_timeline *tl, cg_mem *m)
{
	uint32_t site;
	assert_int_equal(cg_timeline_mem_site(tl, cg_timeline_mem_op(tl, m), cg_timeline_mem_shape(tl, m), 0,
					      cg_timeline_mem_device(tl, m), &site), 0);
	m->site = site;
}

static void a_column_no_row_fills_is_left_out(void **state)
{
	/* the hand-built run records categories, phases, ops and dtypes but no
	 * shapes: no shape column */
	cg_timeline *tl = step_run("backward");
	text t = summary(tl);
	size_t h = line_is(&t, "  largest allocations live at the peak (3), allocated \xe2\x86\x92 freed");
	assert_string_equal(t.line[h + 1], "      4.00 KiB  parameter  none     aten::empty f32 100 ns \xe2\x86\x92 never");
	assert_string_equal(t.line[h + 2], "                run/setup:model");
	assert_string_equal(t.line[h + 3], "      3.00 KiB  gradient   backward aten::mm    f32 4 \xc2\xb5s \xe2\x86\x92 7.5 \xc2\xb5s");
	text_free(&t);
	cg_timeline_free(tl);
	/* nothing but sizes and times (an unknown category, no phase, op or
	 * dtype): those columns go, and "reached by" says no more */
	tl = tu_tl_new();
	tu_mem(tl, 100, "a", NULL, "cuda:0", 2 * KIB, CG_ALLOC, CG_CAT_UNKNOWN, NULL);
	no_dtype(tl, &tl->mem[tl->nmem - 1]);
	tu_mem(tl, 200, "b", NULL, "cuda:0", KIB, CG_ALLOC, CG_CAT_UNKNOWN, NULL);
	no_dtype(tl, &tl->mem[tl->nmem - 1]);
	t = summary(tl);
	line_is(&t, key("reached by", "1.00 KiB of an allocation"));
	h = line_is(&t, "  largest allocations live at the peak (2), allocated \xe2\x86\x92 freed");
	assert_string_equal(t.line[h + 1], "      2.00 KiB  100 ns \xe2\x86\x92 never");
	assert_string_equal(t.line[h + 2], "                (no span)");
	assert_string_equal(t.line[h + 3], "      1.00 KiB  200 ns \xe2\x86\x92 never");
	/* nor a table by phase that holds only "none" */
	assert_int_equal(line_starting(&t, "  at the peak, by the phase"), t.n);
	text_free(&t);
	cg_timeline_free(tl);
}

static void a_long_key_figure_wraps_for_three_lines_at_most(void **state)
{
	/* the allocation that reaches the peak has an op name of 400 letters */
	char op[401];
	memset(op, 'x', 400);
	op[400] = '\0';
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 100, "a", NULL, "cuda:0", KIB, CG_ALLOC, CG_CAT_ACTIVATION, op);
	text t = summary(tl);
	assert_fits(&t, 100);
	/* the name goes to the next line, 78 letters a line, the last line
	 * cut to 77 and "…" */
	size_t i = line_is(&t, key("reached by", "1.00 KiB of"));
	assert_true(strncmp(t.line[i + 1], key("", "xxx"), 25) == 0);
	assert_int_equal(columns(t.line[i + 1]), 100);
	assert_int_equal(columns(t.line[i + 2]), 100);
	assert_string_equal(t.line[i + 2] + strlen(t.line[i + 2]) - strlen(ELLIPSIS), ELLIPSIS);
	assert_true(strncmp(t.line[i + 3], key("live at peak", ""), 22) == 0);
	text_free(&t);
	cg_timeline_free(tl);
}

static void emphasis_is_sgr_around_fail_and_the_peak_only_with_color(void **state)
{
	cg_timeline *tl = step_run("backward");
	tu_oom(tl, 9000, "cpu", 1024 * 1024 * KIB);
	cg_summary_text_options o = {132, true, false};
	text t = summary_with(tl, &o);
	assert_string_equal(t.line[3], "\x1b[1;31mFAIL\x1b[0m  cpu ran out of memory at 9 \xc2\xb5s: a request for 1.00 GiB "
				       "failed, in train_step#0");
	line_is(&t, "  peak                \x1b[1m8.00 KiB\x1b[0m (8,192 B) at 4 \xc2\xb5s, reached 2 times");
	text_free(&t);
	cg_timeline_free(tl);
	/* without colour, no escape anywhere */
	tl = step_run("backward");
	tu_oom(tl, 9000, "cpu", 1024 * 1024 * KIB);
	o.color = false;
	t = summary_with(tl, &o);
	for (size_t i = 0; i < t.n; i++)
		assert_null(strchr(t.line[i], '\x1b'));
	text_free(&t);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_key_figures_are_the_runs_worked_out_by_hand),
		cmocka_unit_test(what_was_live_at_the_peak_is_listed_largest_first),
		cmocka_unit_test(long_span_paths_are_cut_to_the_width_with_an_ellipsis),
		cmocka_unit_test(a_trace_whose_frees_are_unpaired_says_what_is_not_known),
		cmocka_unit_test(a_cut_trace_and_a_format_without_categories_are_said_in_the_header),
		cmocka_unit_test(the_verdict_is_the_line_after_the_header),
		cmocka_unit_test(the_lines_fit_80_and_132_columns),
		cmocka_unit_test(brief_is_the_peak_what_filled_it_the_verdict_and_the_largest),
		cmocka_unit_test(a_column_no_row_fills_is_left_out),
		cmocka_unit_test(a_long_key_figure_wraps_for_three_lines_at_most),
		cmocka_unit_test(emphasis_is_sgr_around_fail_and_the_peak_only_with_color),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
