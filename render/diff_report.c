#include "diff_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "explore_data.h"
#include "explore_diff.h"
#include "units.h"
#include "xalloc.h"

#define ROW(d, ...) cg_doc_row(d, (const char *const[]){__VA_ARGS__})

static const char *const side_words[2] = {"base", "new"};

static char *fmt_b(char *buf, uint64_t v)
{
	return cg_fmt_bytes(buf, 32, v);
}

/* "+64 B", "-1.50 MiB", "0 B" */
static char *fmt_change(char *buf, cg_diff_pair p)
{
	char b[32];
	bool grew;
	uint64_t m = cg_diff_magnitude(p, &grew);
	snprintf(buf, 48, "%s%s", m == 0 ? "" : grew ? "+" : "-", cg_fmt_bytes(b, sizeof b, m));
	return buf;
}

/* "+39.0 %"; "new" when base is 0 and new is not; "" when both are 0. */
static char *fmt_pct(char *buf, cg_diff_pair p)
{
	double pct;
	if (cg_diff_percent(p, &pct))
		snprintf(buf, 32, "%+.1f %%", pct);
	else
		snprintf(buf, 32, "%s", p.v[1] ? "new" : "");
	return buf;
}

/* A row of a change table: name, base, new, change, percent. */
static void change_row(cg_doc *d, const char *name, cg_diff_pair p)
{
	char b0[32], b1[32], c[48], pc[32];
	ROW(d, name, fmt_b(b0, p.v[0]), fmt_b(b1, p.v[1]), fmt_change(c, p), fmt_pct(pc, p));
}

static void callouts(cg_doc *d, const cg_diff_view *v)
{
	for (int s = 0; s < 2; s++) {
		const cg_timeline *tl = v->run[s]->tl;
		if (tl->source.truncated)
			cg_doc_callout(d, "The %s run's trace was cut off: %s. Its figures are as of the last complete record.",
				       side_words[s], tl->source.truncation_note);
		for (size_t i = 0; i < tl->nooms && i < 3; i++) {
			char t[32], b[32];
			cg_doc_callout(d, "The %s run ran out of memory on %s at %s: an allocation of %s failed.", side_words[s],
				       cg_timeline_str(tl, tl->devices[tl->ooms[i].device].name),
				       cg_timeline_fmt_time(tl, t, sizeof t, tl->ooms[i].t_ns), cg_fmt_bytes(b, sizeof b, tl->ooms[i].bytes));
		}
	}
}

static void peaks_section(cg_doc *d, const cg_diff_view *v)
{
	cg_doc_heading(d, 2, "Peaks");
	cg_doc_table(d, 5, "lrrrr");
	ROW(d, "device", "base peak", "new peak", "change", "change %");
	for (size_t i = 0; i < v->diff->ndevices; i++) {
		const cg_diff_device *dev = &v->diff->devices[i];
		char b0[64], b1[64], c[48], pc[32], e0[32], e1[32];
		if (dev->index[0] == CG_NONE || dev->index[1] == CG_NONE) {
			int s = dev->index[0] == CG_NONE ? 1 : 0;
			snprintf(b0, sizeof b0, "%s", s == 0 ? fmt_b(e0, dev->peak.v[0]) : "not in this run");
			snprintf(b1, sizeof b1, "%s", s == 1 ? fmt_b(e1, dev->peak.v[1]) : "not in this run");
			ROW(d, dev->name, b0, b1, "", "");
			continue;
		}
		snprintf(b0, sizeof b0, "%s (%s B)", fmt_b(e0, dev->peak.v[0]), cg_fmt_count(e1, sizeof e1, dev->peak.v[0]));
		char n1[32];
		snprintf(b1, sizeof b1, "%s (%s B)", fmt_b(e0, dev->peak.v[1]), cg_fmt_count(n1, sizeof n1, dev->peak.v[1]));
		ROW(d, dev->name, b0, b1, fmt_change(c, dev->peak), fmt_pct(pc, dev->peak));
	}
	cg_doc_note(d, "Peak: the largest live bytes after any memory record of each run. Devices are matched by name. "
		       "Every comparison below is between the two runs' own peaks, wherever in each run they fall.");
}

static void figures(cg_doc *d, const cg_chart_list *charts, size_t device)
{
	if (!charts)
		return;
	for (size_t k = 2 * device; k < 2 * device + 2 && k < charts->n; k++) {
		const cg_chart_file *f = &charts->items[k];
		if (f->skipped)
			cg_doc_note(d, "%s: not drawn (%s).", f->title, f->skipped);
		else
			cg_doc_figure(d, f->name, f->title);
	}
}

static void categories_and_phases(cg_doc *d, const cg_diff_view *v, const cg_diff_device *dev)
{
	cg_doc_heading(d, 3, "At the peak, by category");
	for (int s = 0; s < 2; s++)
		if (v->run[s]->tl->source.categories_inferred)
			cg_doc_note(d, "The %s run's categories are inferred by cgmem: its trace records none "
				       "(--no-infer shows them as unknown).", side_words[s]);
	cg_doc_table(d, 5, "lrrrr");
	ROW(d, "category", "base", "new", "change", "change %");
	for (int c = 0; c < CG_CAT_COUNT; c++)
		if (dev->by_category[c].v[0] || dev->by_category[c].v[1])
			change_row(d, c == CG_CAT_BASELINE ? "before profiling" : cg_category_name((cg_category)c),
				   dev->by_category[c]);
	if (!dev->listed) {
		cg_doc_note(d, "The phases, span paths and allocations live at the peak are not known: the frees of "
			       "a run could not be paired with their allocations.");
		return;
	}
	cg_doc_heading(d, 3, "At the peak, by the phase that allocated");
	cg_doc_table(d, 5, "lrrrr");
	ROW(d, "phase", "base", "new", "change", "change %");
	for (int p = 0; p < CG_PHASE_COUNT; p++)
		if (dev->by_phase[p].v[0] || dev->by_phase[p].v[1])
			change_row(d, cg_phase_name((cg_phase)p), dev->by_phase[p]);
}

/* Span paths as wide as this in the tables, cut in the middle: both the
 * outer modules and the op that allocated stay readable. diff.json has
 * them whole. */
#define PATH_COLUMNS 120

static const char *fit_path(const cg_diff_view *v, uint32_t path, char *buf, size_t size)
{
	char whole[CG_SPAN_PATH_MAX];
	if (path == 0)
		return "(outside any span)";
	cg_diff_path(v->diff, path, whole, sizeof whole);
	return cg_fmt_fit(buf, size, whole, PATH_COLUMNS);
}

/* The rows worth reading: paths whose own bytes changed (where the bytes
 * were allocated), and paths where changes from two or more paths below
 * add up. An ancestor whose total only repeats one path's change is left
 * out (diff.json lists it). */
static uint32_t *rows_worth_reading(const cg_diff_device *dev, uint32_t *n)
{
	uint32_t *changed_kids = cg_calloc(dev->nnodes ? dev->nnodes : 1, sizeof *changed_kids);
	for (uint32_t i = 1; i < dev->nnodes; i++)
		if (cg_diff_changed(dev->nodes[i].total))
			changed_kids[dev->nodes[i].parent]++;
	uint32_t *rows = cg_malloc((dev->nchanged ? dev->nchanged : 1) * sizeof *rows);
	*n = 0;
	for (uint32_t k = 0; k < dev->nchanged; k++) {
		uint32_t i = dev->changed[k];
		if (cg_diff_changed(dev->nodes[i].own) || changed_kids[i] >= 2)
			rows[(*n)++] = i;
	}
	cg_free(changed_kids);
	return rows;
}

static void spans_section(cg_doc *d, const cg_diff_view *v, const cg_diff_device *dev)
{
	cg_doc_heading(d, 3, "At the peak, by span path");
	bool shared = false;
	for (uint32_t i = 1; i < dev->nnodes && !shared; i++)
		shared = dev->nodes[i].depth == 1 && dev->nodes[i].kind == CG_PATHNODE_SPAN && dev->nodes[i].sides == 3;
	if (!shared && dev->nnodes > 1)
		cg_doc_callout(d, "The two runs share no span path at their peaks: their outermost spans are named "
				  "differently, so every path below is gone from one run and new in the other.");
	if (dev->nchanged == 0) {
		cg_doc_paragraph(d, "No span path holds different bytes at the two peaks.");
		return;
	}
	uint32_t nrows;
	uint32_t *rows = rows_worth_reading(dev, &nrows);
	/* the path last: a long one wraps there (the first column never does) */
	cg_doc_table(d, 6, "rrrrrl");
	ROW(d, "change", "change %", "base", "new", "with everything below", "span path");
	for (uint32_t k = 0; k < nrows && k < v->top; k++) {
		const cg_diff_node *n = &dev->nodes[rows[k]];
		char b0[32], b1[32], c[48], pc[32], t[48], path[PATH_COLUMNS * 4 + 8];
		ROW(d, fmt_change(c, n->own), fmt_pct(pc, n->own), fmt_b(b0, n->own.v[0]), fmt_b(b1, n->own.v[1]),
		    fmt_change(t, n->total), fit_path(v, n->path, path, sizeof path));
	}
	cg_doc_note(d, "Bytes allocated directly in each span path and live at the peak; the last column adds the "
		       "paths below it. Listed: the paths whose own bytes changed, and those where changes below them "
		       "add up, largest change first (%" PRIu32 " of %" PRIu32 " changed paths%s; diff.json lists "
		       "them all). Spans of one name under one path are one path, and the training steps are written as "
		       "their label (train_step#*), so the peaks compare whichever step each fell in.",
		    nrows < v->top ? nrows : v->top, dev->nchanged, nrows > v->top ? ", --top" : "");
	cg_free(rows);
}

static void allocations_section(cg_doc *d, const cg_diff_view *v, const cg_diff_device *dev)
{
	cg_doc_heading(d, 3, "Allocations at one peak only");
	if (dev->ngroups == 0) {
		cg_doc_paragraph(d, "Every allocation live at one peak has a counterpart at the other.");
		return;
	}
	char c0[32], c1[32], b0[32], b1[32];
	cg_doc_paragraph(d, "At the new peak, %s allocation%s (%s) %s no counterpart at the base peak; at the base peak, "
			    "%s (%s) %s none at the new one.",
			 cg_fmt_count(c1, sizeof c1, dev->only_count.v[1]), dev->only_count.v[1] == 1 ? "" : "s",
			 fmt_b(b1, dev->only_bytes.v[1]), dev->only_count.v[1] == 1 ? "has" : "have",
			 cg_fmt_count(c0, sizeof c0, dev->only_count.v[0]), fmt_b(b0, dev->only_bytes.v[0]),
			 dev->only_count.v[0] == 1 ? "has" : "have");
	cg_doc_table(d, 8, "lrrllllr");
	ROW(d, "peak", "count", "bytes", "category", "op", "shape", "span path", "live base / new");
	char path[PATH_COLUMNS * 4 + 8];
	for (size_t k = 0; k < dev->ngroups && k < v->top; k++) {
		const cg_diff_alloc_group *g = &dev->groups[k];
		const cg_timeline *tl = v->run[g->side]->tl;
		const cg_mem *m = &tl->mem[g->example];
		char count[32], bytes[32], shape[128], live[64], l0[32], l1[32];
		cg_fmt_count(count, sizeof count, g->count);
		snprintf(live, sizeof live, "%s / %s", cg_fmt_count(l0, sizeof l0, g->live.v[0]),
			 cg_fmt_count(l1, sizeof l1, g->live.v[1]));
		const char *p = fit_path(v, g->path, path, sizeof path);
		ROW(d, side_words[g->side], count, fmt_b(bytes, g->bytes), cg_category_name((cg_category)m->category),
		    cg_timeline_mem_op(tl, m) == CG_STR_EMPTY ? "" : cg_timeline_str(tl, cg_timeline_mem_op(tl, m)),
		    cg_timeline_shape_format(tl, cg_timeline_mem_shape(tl, m), shape, sizeof shape), p, live);
	}
	cg_doc_note(d, "Allocations are matched by span path (steps as their label), op, shape and size, counting "
		       "each kind: two allocations of a kind at one peak and three at the other leave one unmatched. "
		       "Largest first; %zu kinds in all%s.",
		    dev->ngroups, dev->ngroups > v->top ? ", the first ones shown (--top)" : "");
}

static void end_section(cg_doc *d, const cg_diff_device *dev)
{
	cg_doc_heading(d, 3, "At the end");
	cg_doc_table(d, 5, "lrrrr");
	ROW(d, "live at the end", "base", "new", "change", "change %");
	change_row(d, "all", dev->live_at_end);
	change_row(d, "outside parameters and optimizer state", dev->leaked_at_end);
	cg_doc_note(d, "At each run's end: its last out-of-memory event, else its last memory record. The second row "
		       "is what cgmem check --max-leaked judges.");
}

static void device_section(cg_doc *d, const cg_diff_view *v, size_t i, const cg_chart_list *charts, bool js)
{
	const cg_diff_device *dev = &v->diff->devices[i];
	cg_doc_heading(d, 2, "%s", dev->name);
	if (js)
		cg_explore_diff_device(d, v, i);
	if (dev->index[0] == CG_NONE || dev->index[1] == CG_NONE) {
		int s = dev->index[0] == CG_NONE ? 1 : 0;
		char b[32];
		cg_doc_paragraph(d, "Only in the %s run, with a peak of %s.", side_words[s], fmt_b(b, dev->peak.v[s]));
		figures(d, charts, i);
		return;
	}
	figures(d, charts, i);
	categories_and_phases(d, v, dev);
	if (dev->listed) {
		spans_section(d, v, dev);
		allocations_section(d, v, dev);
	}
	end_section(d, dev);
}

static void runs_section(cg_doc *d, const cg_diff_view *v)
{
	cg_doc_heading(d, 2, "The runs");
	cg_doc_table(d, 3, "lll");
	ROW(d, "", "base", "new");
	char cells[7][2][320];
	for (int s = 0; s < 2; s++) {
		const cg_analysis *a = v->run[s];
		const cg_timeline *tl = a->tl;
		const cg_source *src = &tl->source;
		char n[32], t[32];
		snprintf(cells[0][s], sizeof cells[0][s], "%s", src->display_name ? src->display_name : "");
		snprintf(cells[1][s], sizeof cells[1][s], "%s%s", src->format ? src->format : "", src->gzip ? " (gzip)" : "");
		snprintf(cells[2][s], sizeof cells[2][s], "%s", cg_timeline_fmt_time(tl, t, sizeof t, tl->last_t_ns));
		if (a->steps->nsteps)
			snprintf(cells[3][s], sizeof cells[3][s], "%" PRIu32 " \xc3\x97 %s", a->steps->nsteps, a->steps->label);
		else
			snprintf(cells[3][s], sizeof cells[3][s], "none found");
		snprintf(cells[4][s], sizeof cells[4][s], "%s", cg_fmt_count(n, sizeof n, tl->nmem));
		snprintf(cells[5][s], sizeof cells[5][s], "%s", src->truncated ? "yes" : "no");
		snprintf(cells[6][s], sizeof cells[6][s], "%s", cg_fmt_count(n, sizeof n, src->bad_lines));
	}
	static const char *const names[7] = {"trace",		  "format", "ends at", "steps", "memory records",
					     "cut off mid-record", "bad lines skipped"};
	for (int r = 0; r < 7; r++)
		ROW(d, names[r], cells[r][0], cells[r][1]);
	char sub[1024];
	for (int s = 0; s < 2; s++) {
		cg_chart_run_subtitle(v->run[s]->tl, sub, sizeof sub);
		if (*sub)
			cg_doc_note(d, "%s: %s", side_words[s], sub);
	}
	if (v->align)
		cg_doc_note(d, "%s", v->align->mode == CG_ALIGN_PHASES
					     ? "The timelines align the runs' steps (step k with step k) and, inside them, "
					       "their phase windows, matched by phase as the longest common sequence; time "
					       "runs linearly between aligned boundaries."
					     : "The timelines show each run's time over its own duration (--align phases "
					       "aligns their phase boundaries).");
}

static cg_doc *build(const cg_diff_view *v, const cg_chart_list *charts, bool js)
{
	char names[2][256], title[600];
	for (int s = 0; s < 2; s++)
		cg_chart_run_name(v->run[s]->tl, names[s], sizeof names[s]);
	snprintf(title, sizeof title, "Memory diff \xe2\x80\x94 %s \xe2\x86\x92 %s", names[0], names[1]);
	cg_doc *d = cg_doc_new(title);
	if (js)
		cg_explore_script(d);
	callouts(d, v);
	peaks_section(d, v);
	for (size_t i = 0; i < v->diff->ndevices; i++)
		device_section(d, v, i, charts, js);
	runs_section(d, v);
	cg_doc_note(d, "Written by cgmem %s. diff.json holds every figure as data (docs/diff-format.md).", CGMEM_VERSION);
	return d;
}

cg_doc *cg_diff_report_build(const cg_diff_view *v, const cg_chart_list *charts)
{
	return build(v, charts, false);
}

int cg_diff_report_write(cg_outdir *od, const cg_diff_view *v, const cg_chart_list *charts, bool html, bool js,
			 cg_error *err)
{
	/* diff.md is the same either way: the explorer is HTML only */
	cg_doc *d = build(v, charts, html && js);
	int rc = cg_doc_save(d, od, "diff", html, err);
	cg_doc_free(d);
	return rc;
}
