/* diff.md and diff.html (diff_report.h) for two runs built by hand
 * (tests/helpers/difftrace.h; the figures as tests/analysis/compare/
 * test_diff.c works them out): the change of the peak in the text, the
 * categories, charts referenced or said to be skipped, a cut run said
 * first, a device in one run only, hostile names escaped in both files,
 * and html=false writing the Markdown only. */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "compare.h"
#include "diff_report.h"
#include "difftrace.h"
#include "outdir.h"
#include "xalloc.h"

typedef struct pair {
	cg_timeline *tl[2];
	cg_analysis *a[2];
	cg_diff_view *v;
} pair;

/* Analyses two finalized timelines and compares them (plain time axis). */
static void compare(pair *p, cg_timeline *base, cg_timeline *new_run)
{
	p->tl[0] = base;
	p->tl[1] = new_run;
	for (int s = 0; s < 2; s++)
		assert_int_equal(cg_analysis_run(&p->a[s], p->tl[s], NULL, NULL), 0);
	assert_int_equal(cg_diff_view_new(&p->v, p->a[0], p->a[1], CG_ALIGN_START, 20, NULL), 0);
}

static void pair_free(pair *p)
{
	cg_diff_view_free(p->v);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(p->a[s]);
		cg_timeline_free(p->tl[s]);
	}
}

/* Writes the report into a new folder name; returns the folder. */
static const char *write_report(const pair *p, const char *name, bool html)
{
	static char dir[600];
	snprintf(dir, sizeof dir, "%s", tu_path(name));
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, dir, false, NULL), 0);
	cg_error err = CG_ERROR_INIT;
	if (cg_diff_report_write(od, p->v, NULL, html, false, &err) != 0)
		fail_msg("diff report: %s", err.msg);
	assert_int_equal(cg_outdir_commit(od, NULL), 0);
	return dir;
}

static char *read_in(const char *dir, const char *file)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	return tu_read(path, NULL);
}

/* The first block of this kind whose text starts with prefix (NULL: any). */
static size_t find(const cg_doc *d, size_t from, cg_doc_kind kind, const char *prefix)
{
	for (size_t i = from; i < d->n; i++)
		if (d->blocks[i].kind == kind &&
		    (!prefix || (d->blocks[i].text && strncmp(d->blocks[i].text, prefix, strlen(prefix)) == 0)))
			return i;
	fail_msg("no block of kind %d starting \"%s\"", (int)kind, prefix ? prefix : "");
	return 0;
}

static const char *cell(const cg_doc_block *t, size_t row, size_t col)
{
	assert_true(row < t->nrows && col < t->ncols);
	return t->cells[row * t->ncols + col];
}

static void the_change_of_the_peak_is_in_both_files(void **state)
{
	/* base: the 100 B parameter and 64 B of activations at most, 164 B;
	 * new: 128 B of activations, 228 B. +64 B is +39.0 % of 164 B; the
	 * activations doubled (+100.0 %), the parameter did not change. */
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	pair p;
	compare(&p, dt_timeline(&base), dt_timeline(&grown));
	const char *dir = write_report(&p, "peak", true);
	char *md = read_in(dir, "diff.md");
	assert_non_null(md);
	assert_non_null(strstr(md, "# Memory diff \xe2\x80\x94 test \xe2\x86\x92 test\n"));
	assert_non_null(strstr(md, "| cuda:0 | 164 B (164 B) | 228 B (228 B) | +64 B | +39.0 % |\n"));
	assert_non_null(strstr(md, "| activation | 64 B | 128 B | +64 B | +100.0 % |\n"));
	assert_non_null(strstr(md, "| parameter | 100 B | 100 B | 0 B | +0.0 % |\n"));
	char *html = read_in(dir, "diff.html");
	assert_non_null(html);
	assert_non_null(strstr(html, "+39.0 %"));
	assert_non_null(strstr(html, "228 B (228 B)"));
	assert_null(strstr(html, "<script"));
	free(md);
	free(html);
	pair_free(&p);
}

static void the_same_run_twice_changes_nothing(void **state)
{
	run_spec base = RUN_SPEC_INIT;
	pair p;
	compare(&p, dt_timeline(&base), dt_timeline(&base));
	cg_doc *d = cg_diff_report_build(p.v, NULL);
	const cg_doc_block *peaks = &d->blocks[find(d, find(d, 0, CG_DOC_HEADING, "Peaks"), CG_DOC_TABLE, NULL)];
	assert_string_equal(cell(peaks, 1, 3), "0 B");
	assert_string_equal(cell(peaks, 1, 4), "+0.0 %");
	find(d, 0, CG_DOC_PARAGRAPH, "No span path holds different bytes at the two peaks.");
	find(d, 0, CG_DOC_PARAGRAPH, "Every allocation live at one peak has a counterpart at the other.");
	cg_doc_free(d);
	pair_free(&p);
}

static void charts_are_figures_or_say_why_they_were_not_drawn(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	pair p;
	compare(&p, dt_timeline(&base), dt_timeline(&grown));
	/* two charts per device, in device order */
	cg_chart_list charts = {0};
	cg_chart_list_add(&charts, "diff_timeline.cuda-0", "Live memory of both runs on cuda:0", NULL);
	cg_chart_list_add(&charts, "diff_change.cuda-0", "What changed at the peak on cuda:0", "nothing changed");
	cg_doc *d = cg_diff_report_build(p.v, &charts);
	size_t f = find(d, 0, CG_DOC_FIGURE, NULL);
	assert_string_equal(d->blocks[f].name, "diff_timeline.cuda-0");
	assert_string_equal(d->blocks[f].text, "Live memory of both runs on cuda:0");
	assert_string_equal(d->blocks[f + 1].text, "What changed at the peak on cuda:0: not drawn (nothing changed).");
	/* under the device's heading */
	assert_true(find(d, 0, CG_DOC_HEADING, "cuda:0") < f);
	cg_doc_free(d);
	cg_chart_list_free(&charts);
	pair_free(&p);
}

static void a_cut_run_is_said_first(void **state)
{
	run_spec base = RUN_SPEC_INIT;
	cg_timeline *cut = dt_timeline(&base);
	cut->source.truncated = true;
	cut->source.truncation_note = cg_strdup("trace ends mid-record at line 9");
	pair p;
	compare(&p, cut, dt_timeline(&base));
	cg_doc *d = cg_diff_report_build(p.v, NULL);
	assert_int_equal(d->blocks[0].kind, CG_DOC_CALLOUT);
	assert_string_equal(d->blocks[0].text, "The base run's trace was cut off: trace ends mid-record at line 9. Its "
					       "figures are as of the last complete record.");
	assert_true(find(d, 0, CG_DOC_HEADING, "Peaks") > 0);
	/* the runs' table says which */
	const cg_doc_block *runs = &d->blocks[find(d, find(d, 0, CG_DOC_HEADING, "The runs"), CG_DOC_TABLE, NULL)];
	assert_string_equal(cell(runs, 6, 0), "cut off mid-record");
	assert_string_equal(cell(runs, 6, 1), "yes");
	assert_string_equal(cell(runs, 6, 2), "no");
	cg_doc_free(d);
	pair_free(&p);
}

static void a_device_of_one_run_only_is_said_so(void **state)
{
	/* the same run on cuda:0 in the base and on cuda:1 in the new one */
	run_spec base = RUN_SPEC_INIT, moved = RUN_SPEC_INIT;
	moved.dev = "cuda:1";
	pair p;
	compare(&p, dt_timeline(&base), dt_timeline(&moved));
	cg_doc *d = cg_diff_report_build(p.v, NULL);
	const cg_doc_block *peaks = &d->blocks[find(d, find(d, 0, CG_DOC_HEADING, "Peaks"), CG_DOC_TABLE, NULL)];
	assert_int_equal(peaks->nrows, 3);
	assert_string_equal(cell(peaks, 1, 0), "cuda:0");
	assert_string_equal(cell(peaks, 1, 1), "164 B");
	assert_string_equal(cell(peaks, 1, 2), "not in this run");
	assert_string_equal(cell(peaks, 2, 0), "cuda:1");
	assert_string_equal(cell(peaks, 2, 1), "not in this run");
	assert_string_equal(cell(peaks, 2, 2), "164 B");
	find(d, find(d, 0, CG_DOC_HEADING, "cuda:0"), CG_DOC_PARAGRAPH, "Only in the base run, with a peak of 164 B.");
	find(d, find(d, 0, CG_DOC_HEADING, "cuda:1"), CG_DOC_PARAGRAPH, "Only in the new run, with a peak of 164 B.");
	cg_doc_free(d);
	pair_free(&p);
}

#define HOSTILE_SCRIPT "<script>alert(1)</script>"
#define HOSTILE_IMG "\"><img src=x onerror=alert(2)>"

/* One allocation of bytes on cpu in a span with a hostile name, by a
 * hostile op, from a file with a hostile name. */
static cg_timeline *hostile_run(uint64_t bytes, const char *file)
{
	cg_timeline *tl = tu_tl_new();
	cg_free(tl->source.display_name);
	tl->source.display_name = cg_strdup(file);
	tu_span(tl, "s", NULL, HOSTILE_SCRIPT "|x", 0, 100, CG_PHASE_FORWARD);
	tu_mem(tl, 10, "a", "s", "cpu", bytes, CG_ALLOC, CG_CAT_ACTIVATION, HOSTILE_IMG);
	tu_tl_finalize(tl);
	return tl;
}

static void hostile_names_are_escaped_in_both_files(void **state)
{
	pair p;
	compare(&p, hostile_run(100, "base.jsonl"), hostile_run(300, "<b>new</b>.jsonl"));
	const char *dir = write_report(&p, "hostile", true);
	char *md = read_in(dir, "diff.md"), *html = read_in(dir, "diff.html");
	assert_non_null(md);
	assert_non_null(html);
	/* 100 B -> 300 B: +200 B, +200.0 % */
	assert_non_null(strstr(md, "| cpu | 100 B (100 B) | 300 B (300 B) | +200 B | +200.0 % |\n"));
	for (int k = 0; k < 2; k++) {
		const char *s = k ? html : md;
		assert_null(strstr(s, "<script"));
		assert_null(strstr(s, "<img"));
		assert_null(strstr(s, "<b>new"));
		assert_non_null(strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt;"));
		assert_non_null(strstr(s, "&lt;img src=x onerror=alert(2)&gt;"));
	}
	/* a pipe in a span path cannot break the Markdown table */
	assert_null(strstr(md, "</script>|x"));
	assert_non_null(strstr(md, "&lt;/script&gt;\\|x"));
	free(md);
	free(html);
	pair_free(&p);
}

static void without_html_only_the_markdown_is_written(void **state)
{
	run_spec base = RUN_SPEC_INIT;
	pair p;
	compare(&p, dt_timeline(&base), dt_timeline(&base));
	const char *dir = write_report(&p, "mdonly", false);
	char path[700];
	snprintf(path, sizeof path, "%s/diff.md", dir);
	assert_true(tu_exists(path));
	snprintf(path, sizeof path, "%s/diff.html", dir);
	assert_false(tu_exists(path));
	pair_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_change_of_the_peak_is_in_both_files),
		cmocka_unit_test(the_same_run_twice_changes_nothing),
		cmocka_unit_test(charts_are_figures_or_say_why_they_were_not_drawn),
		cmocka_unit_test(a_cut_run_is_said_first),
		cmocka_unit_test(a_device_of_one_run_only_is_said_so),
		cmocka_unit_test(hostile_names_are_escaped_in_both_files),
		cmocka_unit_test(without_html_only_the_markdown_is_written),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
