/* The terminal text of `cgmem summary`: key figures first, binary units,
 * aligned, at most WIDTH columns. */
#include "summary_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "termtext.h"
#include "units.h"
#include "utf8.h"
#include "xalloc.h"

#define WIDTH 100
#define LABEL 20 /* width of the label column of key figures */

/* ---- lines no wider than WIDTH ---- */

/* Names from the trace reach the terminal escaped (termtext.h): where they
 * are aligned or fitted, before measuring them (an escape is as wide as it
 * is long); and every line again as it is written, which changes nothing
 * already escaped and catches what was not. */

static void put_line(cg_sink *f, const char *raw)
{
	/* An escaped line cut by esc still holds more than WIDTH columns: no
	 * character or escape takes more than 6 bytes, none of them more
	 * bytes than columns but characters of up to 4. */
	char esc[WIDTH * 4 + 32], buf[WIDTH * 4 + 8];
	size_t n = cg_termtext_escape(esc, sizeof esc, raw, strlen(raw));
	const char *text = esc;
	if (n < sizeof esc && cg_text_width(text) <= WIDTH) {
		cg_sink_puts(f, text);
		cg_sink_putc(f, '\n');
		return;
	}
	/* cut at the end: a table row keeps its first columns */
	size_t i = 0, cols = 0;
	while (text[i] && cols < WIDTH - 1) {
		i++;
		while (text[i] && ((unsigned char)text[i] & 0xc0) == 0x80)
			i++;
		cols++;
	}
	snprintf(buf, sizeof buf, "%.*s\xe2\x80\xa6", (int)i, text);
	cg_sink_puts(f, buf);
	cg_sink_putc(f, '\n');
}

static void put_linef(cg_sink *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_linef(cg_sink *f, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(buf, sizeof buf, fmt, ap);
	va_end(ap);
	put_line(f, buf);
}

/* A key figure: "  label               value". */
static void key_figure(cg_sink *f, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void key_figure(cg_sink *f, const char *label, const char *fmt, ...)
{
	char value[4096];
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(value, sizeof value, fmt, ap);
	va_end(ap);
	put_linef(f, "  %-*s%s", LABEL, label, value);
}

/* s escaped, then fitted into width columns with cg_fmt_fit. */
static char *fit(char *buf, size_t size, const char *s, size_t width)
{
	if (cg_termtext_plain(s, strlen(s)))
		return cg_fmt_fit(buf, size, s, width);
	char *shown = cg_termtext_dup(s);
	cg_fmt_fit(buf, size, shown, width);
	cg_free(shown);
	return buf;
}

/* Appends s to a row, padded to width columns (right-aligned if right). */
static void cell(char *row, size_t size, const char *s, size_t width, bool right)
{
	char fitted[512];
	fit(fitted, sizeof fitted, s, width);
	size_t w = cg_text_width(fitted), len = strlen(row);
	size_t pad = width > w ? width - w : 0;
	/* Padding, text, padding; a row too narrow for its cells is cut. */
	size_t lead = right ? pad : 0, trail = right ? 0 : pad, flen = strlen(fitted);
	for (size_t i = 0; i < lead && len + 1 < size; i++)
		row[len++] = ' ';
	for (size_t i = 0; i < flen && len + 1 < size; i++)
		row[len++] = fitted[i];
	for (size_t i = 0; i < trail && len + 1 < size; i++)
		row[len++] = ' ';
	row[len] = '\0';
}

/* Prints text as a paragraph wrapped at WIDTH, indented. */
static void put_wrapped(cg_sink *f, const char *raw, int indent)
{
	char line[WIDTH * 4 + 8];
	char *text = cg_termtext_dup(raw); /* wrapped as it is shown */
	const char *p = text;
	while (*p) {
		size_t len = 0, cols = (size_t)indent, last_space = 0;
		const char *q = p;
		while (q[len] && cols < WIDTH) {
			if (q[len] == ' ')
				last_space = len;
			len++;
			while (q[len] && ((unsigned char)q[len] & 0xc0) == 0x80)
				len++;
			cols++;
		}
		if (q[len] && last_space > 0)
			len = last_space;
		snprintf(line, sizeof line, "%*s%.*s", indent, "", (int)len, q);
		put_line(f, line);
		p = q + len;
		while (*p == ' ')
			p++;
	}
	cg_free(text);
}

static const char *bytes_text(char *buf, uint64_t v) { return cg_fmt_bytes(buf, 32, v); }
static const char *time_text(const cg_timeline *tl, char *buf, uint64_t v) { return cg_timeline_fmt_time(tl, buf, 32, v); }
static const char *count_text(char *buf, uint64_t v) { return cg_fmt_count(buf, 32, v); }
static const char *share_text(char *buf, uint64_t part, uint64_t whole)
{
	return cg_fmt_percent(buf, 32, whole ? (double)part / (double)whole : 0.0);
}

/* ---- allocations ---- */

/* Two lines: size, category, phase, op, shape, dtype, when; then the span path. */
static void print_alloc(cg_sink *f, const cg_timeline *tl, uint32_t alloc, uint32_t end, uint64_t bytes)
{
	const cg_mem *m = &tl->mem[alloc != CG_NONE ? alloc : end];
	char row[1024] = "    ", b[32], shape[128], when[96], t1[32], t2[32];
	cell(row, sizeof row, bytes_text(b, bytes), 10, true);
	strcat(row, "  ");
	cell(row, sizeof row, cg_category_name((cg_category)m->category), 15, false);
	strcat(row, " ");
	if (alloc == CG_NONE) {
		snprintf(when, sizeof when, "before the trace \xe2\x86\x92 %s", time_text(tl, t2, m->t_ns));
		cell(row, sizeof row, "none", 9, false);
		strcat(row, " ");
		cell(row, sizeof row, m->tensor != CG_STR_EMPTY ? cg_timeline_str(tl, m->tensor) : "?", 42, false);
		strcat(row, " ");
		strcat(row, when);
		put_line(f, row);
		return;
	}
	cell(row, sizeof row, cg_phase_name(cg_timeline_mem_phase(tl, m)), 9, false);
	strcat(row, " ");
	cell(row, sizeof row, m->op != CG_STR_EMPTY ? cg_timeline_str(tl, m->op) : "?", 19, false);
	strcat(row, " ");
	cell(row, sizeof row, cg_timeline_shape_format(tl, m->shape, shape, sizeof shape), 12, false);
	strcat(row, " ");
	cell(row, sizeof row, cg_timeline_str(tl, tl->dtypes[m->dtype].name), 7, false);
	strcat(row, " ");
	if (!tl->source.pairing_known)
		snprintf(when, sizeof when, "%s", time_text(tl, t1, m->t_ns));
	else if (end == CG_NONE)
		snprintf(when, sizeof when, "%s \xe2\x86\x92 never", time_text(tl, t1, m->t_ns));
	else
		snprintf(when, sizeof when, "%s \xe2\x86\x92 %s", time_text(tl, t1, m->t_ns), time_text(tl, t2, tl->mem[end].t_ns));
	strcat(row, when);
	put_line(f, row);
	char path[CG_SPAN_PATH_MAX], fitted[WIDTH * 4];
	cg_timeline_span_path(tl, m->span, path, sizeof path);
	put_linef(f, "%16s%s", "", fit(fitted, sizeof fitted, path[0] ? path : "(no span)", WIDTH - 16));
}

static void print_alloc_header(cg_sink *f, const char *title, size_t shown, size_t total)
{
	char n1[32], n2[32];
	if (shown < total)
		put_linef(f, "  %s (%s of %s), allocated \xe2\x86\x92 freed", title, count_text(n1, shown), count_text(n2, total));
	else
		put_linef(f, "  %s (%s), allocated \xe2\x86\x92 freed", title, count_text(n1, total));
}

static void print_live_list(cg_sink *f, const cg_analysis *a, const cg_liveset_device *ls, const char *title)
{
	size_t n = ls->nallocs < a->options.top_n ? ls->nallocs : a->options.top_n;
	if (n == 0)
		return;
	put_linef(f, "%s", "");
	print_alloc_header(f, title, n, ls->nallocs);
	for (size_t i = 0; i < n; i++)
		print_alloc(f, a->tl, ls->allocs[i].alloc, ls->allocs[i].end, ls->allocs[i].bytes);
}

/* ---- sections ---- */

static void print_header(cg_sink *f, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_source *s = &tl->source;
	char n1[32], t1[32], b1[32];
	put_linef(f, "%s", s->display_name ? s->display_name : "trace");
	put_linef(f, "%s%s \xc2\xb7 %s %s \xc2\xb7 %s memory records \xc2\xb7 %u device%s \xc2\xb7 ends at %s",
	    s->format ? s->format : "trace", s->gzip ? " (gzip)" : "", count_text(n1, s->lines),
	    tl->snapshot ? (s->lines == 1 ? "trace entry" : "trace entries") : "lines",
	    count_text(b1, s->records[CG_KIND_MEMORY] ? s->records[CG_KIND_MEMORY] : tl->nmem), tl->ndevices,
	    tl->ndevices == 1 ? "" : "s", time_text(tl, t1, tl->last_t_ns));
	char meta[1024] = "";
	for (size_t i = 0; i < tl->nmeta; i++) {
		const char *k = cg_timeline_str(tl, tl->meta[i].key);
		if (strcmp(k, "run_id") && strcmp(k, "model") && strcmp(k, "framework"))
			continue;
		size_t len = strlen(meta);
		snprintf(meta + len, sizeof meta - len, "%s%s", len ? " \xc2\xb7 " : "",
			 cg_timeline_str(tl, tl->meta[i].value));
	}
	if (meta[0])
		put_linef(f, "%s", meta);
	if (s->truncated)
		put_wrapped(f, s->truncation_note ? s->truncation_note : "the trace was cut off", 0);
	if (s->bad_lines)
		put_linef(f, "%s bad lines were skipped", count_text(n1, s->bad_lines));
	if (!s->categories_known)
		put_linef(f, "categories: this format does not record them; all memory shows as unknown");
	if (!s->pairing_known)
		put_wrapped(f, "frees could not be matched to their allocations: live bytes by device and by category "
			"are exact, but lists of allocations, lifetimes, leaks and the allocator replay are "
			"not available", 0);
}

/* Allocator snapshots: the segments at the dump, and the OOM verdict. */
static void print_allocator_state(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	if (!a->tl->snapshot || !a->allocstate || d >= a->allocstate->ndevices)
		return;
	const cg_allocstate_device *s = &a->allocstate->devices[d];
	char b1[32], b2[32], b3[32], b4[32], n1[32], p1[32];
	if (s->has_segments) {
		key_figure(f, "at the snapshot", "%s reserved in %s segments: %s allocated, %s free", bytes_text(b1, s->reserved),
		   count_text(n1, s->segments), bytes_text(b2, s->allocated), bytes_text(b3, s->inactive));
		key_figure(f, "", "largest free block %s; %s of free memory outside it; empty_cache() frees %s",
		   bytes_text(b4, s->largest_free), cg_fmt_percent(p1, sizeof p1, s->frag_largest),
		   bytes_text(b1, s->releasable));
	}
	if (s->has_trace && s->series[CG_SERIES_ALLOCATED].peak != s->series[CG_SERIES_ACTIVE].peak)
		key_figure(f, "allocated peak", "%s (alloc to free_requested; the peak above ends at free_completed)",
		   bytes_text(b1, s->series[CG_SERIES_ALLOCATED].peak));
	if (!s->consistent)
		key_figure(f, "consistency", "the snapshot contradicts itself (summary.json, allocator_state.checks)");
	if (s->oom_cause != CG_OOM_NONE) {
		char verdict[768];
		put_wrapped(f, cg_allocstate_verdict(s, verdict, sizeof verdict), 2);
	}
}

static void print_key_figures(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_peak_device *p = &a->peak->devices[d];
	const cg_liveset_device *end = &a->at_end->devices[d];
	char b1[32], b2[32], t1[32], n1[32], n2[32];
	char times[48] = "";
	if (p->reached_times > 1)
		snprintf(times, sizeof times, ", reached %u times", p->reached_times);
	key_figure(f, "peak", "%s (%s B) at %s%s", bytes_text(b1, p->peak_bytes), count_text(n1, p->peak_bytes), time_text(tl, t1, p->peak_t_ns), times);
	if (p->peak_index != CG_NONE) {
		const cg_mem *m = &tl->mem[p->peak_index];
		char path[CG_SPAN_PATH_MAX], fitted[WIDTH * 4];
		key_figure(f, "reached by", "%s of %s (%s, %s)", bytes_text(b1, m->bytes),
		   m->op != CG_STR_EMPTY ? cg_timeline_str(tl, m->op) : "an allocation",
		   cg_category_name((cg_category)m->category), cg_phase_name(cg_timeline_mem_phase(tl, m)));
		cg_timeline_span_path(tl, m->span, path, sizeof path);
		if (path[0])
			key_figure(f, "", "%s", fit(fitted, sizeof fitted, path, WIDTH - 2 - LABEL));
	}
	key_figure(f, "live at peak", "%s allocations", count_text(n1, a->at_peak->devices[d].count));
	key_figure(f, "live at end", "%s (%s B), %s allocations, at %s", bytes_text(b1, end->bytes), count_text(n2, end->bytes),
	   count_text(n1, end->count), time_text(tl, t1, a->end->devices[d].t_ns));
	key_figure(f, "allocated", "%s in %s allocations; %s frees", bytes_text(b2, p->bytes_allocated), count_text(n1, p->allocations),
	   count_text(n2, p->frees));
	if (tl->devices[d].preexisting_count)
		key_figure(f, "before the trace", "%s in %s allocations freed in the trace",
		   bytes_text(b1, tl->devices[d].preexisting_bytes), count_text(n1, tl->devices[d].preexisting_count));
	if (tl->devices[d].baseline_bytes)
		key_figure(f, "before profiling", "%s", bytes_text(b1, tl->devices[d].baseline_bytes));
	const cg_replay_device *r = &a->replay->devices[d];
	if (r->available)
		key_figure(f, "allocator replay", "%s reserved at most (estimate), %s with expandable segments",
		   bytes_text(b1, r->standard.peak_reserved), bytes_text(b2, r->expandable.peak_reserved));
	print_allocator_state(f, a, d);
}

/* Rows "name  bytes  % of whole", largest first, nonzero only. */
static void print_shares(cg_sink *f, const char *title, const char *const *names, const uint64_t *bytes, int n,
			 uint64_t whole)
{
	int order[CG_CAT_COUNT + CG_PHASE_COUNT];
	int k = 0;
	for (int i = 0; i < n; i++)
		if (bytes[i])
			order[k++] = i;
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && bytes[order[j]] > bytes[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (k == 0)
		return;
	put_linef(f, "%s", "");
	put_linef(f, "  %s", title);
	for (int i = 0; i < k; i++) {
		char row[256] = "    ", b[32], pct[32];
		cell(row, sizeof row, names[order[i]], 18, false);
		cell(row, sizeof row, bytes_text(b, bytes[order[i]]), 11, true);
		cell(row, sizeof row, share_text(pct, bytes[order[i]], whole), 9, true);
		put_line(f, row);
	}
}

static void print_at_peak(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	const char *cats[CG_CAT_COUNT], *phases[CG_PHASE_COUNT];
	for (int c = 0; c < CG_CAT_COUNT; c++)
		cats[c] = cg_category_name((cg_category)c);
	for (int p = 0; p < CG_PHASE_COUNT; p++)
		phases[p] = cg_phase_name((cg_phase)p);
	if (a->tl->source.categories_known)
		print_shares(f, "at the peak, by category", cats, ls->by_category, CG_CAT_COUNT, ls->bytes);
	if (ls->listed)
		print_shares(f, "at the peak, by the phase that allocated", phases, ls->by_phase, CG_PHASE_COUNT,
			     ls->bytes);
	print_live_list(f, a, ls, "largest allocations live at the peak");
}

/* The span-path tree, pruned to nodes holding at least 5 % of the peak. */
static void print_tree(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_pathtree *t = &a->peak_trees->trees[d];
	if (t->nnodes < 2 || t->nodes[0].total_bytes == 0)
		return;
	const cg_timeline *tl = a->tl;
	uint64_t whole = t->nodes[0].total_bytes, min = whole / 20;
	put_linef(f, "%s", "");
	put_linef(f, "  at the peak, by span path (nodes with 5 %% or more)");
	unsigned shown = 0;
	for (uint32_t i = 1; i < t->nnodes && shown < a->options.top_n;) {
		const cg_pathnode *n = &t->nodes[i];
		if (n->total_bytes < min || n->depth > 24) {
			i = n->subtree_end;
			continue;
		}
		char label[1024], row[1024] = "    ", b[32], pct[32];
		const char *name = n->kind == CG_PATHNODE_SPAN ? cg_timeline_str(tl, n->name)
				   : n->kind == CG_PATHNODE_BEFORE_TRACE ? "(allocated before the trace)"
									  : "(before profiling)";
		snprintf(label, sizeof label, "%*s%s", (int)(n->depth - 1) * 2, "", name);
		cell(row, sizeof row, label, 64, false);
		cell(row, sizeof row, bytes_text(b, n->total_bytes), 11, true);
		cell(row, sizeof row, share_text(pct, n->total_bytes, whole), 9, true);
		strcat(row, "  ");
		strcat(row, n->phase == CG_PATHTREE_MIXED ? "mixed" : cg_phase_name((cg_phase)n->phase));
		put_line(f, row);
		shown++;
		i++;
	}
}

static void print_over_time(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_overtime_device *o = &a->overtime->devices[d];
	char b1[32], b2[32], b3[32], t1[32];
	if (tl->source.categories_known) {
		put_linef(f, "%s", "");
		put_linef(f, "  each category's own maximum");
		for (int c = 0; c < CG_CAT_COUNT; c++)
			if (o->categories[c].bytes)
				put_linef(f, "    %-18s%11s  at %s", cg_category_name((cg_category)c),
				    bytes_text(b1, o->categories[c].bytes), time_text(tl, t1, o->categories[c].t_ns));
	}
	put_linef(f, "%s", "");
	put_linef(f, "  %-14s%12s %10s %12s %12s", "phase", "peak", "at", "allocated", "freed");
	for (int p = 0; p < CG_PHASE_COUNT; p++) {
		const cg_phase_stats *s = &o->phases[p];
		if (!s->ran && !s->allocations && !s->frees)
			continue;
		char row[256] = "    ";
		cell(row, sizeof row, cg_phase_name((cg_phase)p), 12, false);
		cell(row, sizeof row, s->ran ? bytes_text(b1, s->peak_bytes) : "-", 12, true);
		strcat(row, " ");
		cell(row, sizeof row, s->ran ? time_text(tl, t1, s->peak_t_ns) : "-", 10, true);
		strcat(row, " ");
		cell(row, sizeof row, bytes_text(b2, s->allocated_bytes), 12, true);
		strcat(row, " ");
		cell(row, sizeof row, bytes_text(b3, s->freed_bytes), 12, true);
		put_line(f, row);
	}
	if (!o->timed && a->steps->nsteps && tl->devices[d].mem_count)
		put_linef(f, "  steps and phase peaks: not evaluated for this device (too many devices \xc3\x97 steps)");
	if (!o->nsteps)
		return;
	put_linef(f, "%s", "");
	put_linef(f, "  %-22s%10s %12s %12s %12s", "step", "start", "peak", "live at end", "growth");
	for (uint32_t k = 0; k < o->nsteps; k++) {
		if (k == a->options.top_n && o->nsteps > a->options.top_n) {
			put_linef(f, "    ... %u more steps", o->nsteps - k);
			break;
		}
		const cg_step_stats *s = &o->steps[k];
		char name[256], g[32];
		fit(name, sizeof name, cg_timeline_str(tl, tl->spans[a->steps->steps[k].span].name), 20);
		char row[512] = "    ";
		cell(row, sizeof row, name, 20, false);
		cell(row, sizeof row, time_text(tl, t1, a->steps->steps[k].start_ns), 10, true);
		strcat(row, " ");
		cell(row, sizeof row, bytes_text(b1, s->peak_bytes), 12, true);
		strcat(row, " ");
		cell(row, sizeof row, bytes_text(b2, s->live_at_end), 12, true);
		strcat(row, " ");
		cell(row, sizeof row, cg_fmt_bytes_signed(g, sizeof g, s->growth), 12, true);
		put_line(f, row);
	}
}

static void print_checkpoint_line(cg_sink *f, const cg_timeline *tl, const char *label, const cg_checkpoint *c,
				  const cg_replay_device *r, uint32_t k)
{
	char b1[32], b2[32], b3[32], t1[32], pct[32], line[512] = "";
	size_t len = 0;
	if (c->has_capacity)
		key_figure(f, label, "at %s: %s of %s used, headroom %s", time_text(tl, t1, c->t_ns), bytes_text(b1, c->used_bytes),
		   bytes_text(b2, c->capacity_bytes), bytes_text(b3, c->free_bytes));
	else
		key_figure(f, label, "at %s", time_text(tl, t1, c->t_ns));
	if (c->has_reserved)
		len += (size_t)snprintf(line + len, sizeof line - len, "reserved %s recorded", bytes_text(b1, c->reserved_bytes));
	if (r->available && k < r->standard.ncheckpoints && len < sizeof line)
		len += (size_t)snprintf(line + len, sizeof line - len, "%sreplay estimate %s", len ? ", " : "reserved: ",
					bytes_text(b2, r->standard.at_checkpoint[k]));
	if (c->has_fragmentation && len < sizeof line)
		snprintf(line + len, sizeof line - len, ", fragmentation %s",
			 cg_fmt_percent(pct, sizeof pct, c->fragmentation));
	if (line[0])
		key_figure(f, "", "%s", line);
}

static void print_checkpoints(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_checkpoints_device *c = &a->checkpoints->devices[d];
	const cg_replay_device *r = &a->replay->devices[d];
	char n1[32], t1[32], pct[32];
	put_linef(f, "%s", "");
	if (c->count == 0) {
		put_linef(f, "  checkpoints: none in the trace");
		return;
	}
	put_linef(f, "  checkpoints (%s)", count_text(n1, c->count));
	print_checkpoint_line(f, tl, "nearest the peak", &c->list[c->nearest_peak], r, c->nearest_peak);
	print_checkpoint_line(f, tl, "last", &c->list[c->count - 1], r, c->count - 1);
	if (c->max_fragmentation != CG_NONE)
		key_figure(f, "max fragmentation", "%s at %s",
		   cg_fmt_percent(pct, sizeof pct, c->list[c->max_fragmentation].fragmentation),
		   time_text(tl, t1, c->list[c->max_fragmentation].t_ns));
}

static void print_replay_variant(cg_sink *f, const cg_timeline *tl, const char *label, const cg_replay_variant *v)
{
	char b1[32], b2[32], b3[32], t1[32], p1[32], p2[32];
	key_figure(f, label, "reserved at most %s (from %s)", bytes_text(b1, v->peak_reserved), time_text(tl, t1, v->peak_t_ns));
	key_figure(f, "", "at the live peak: %s free, the largest free block %s", bytes_text(b2, v->at_peak.total_free),
	   bytes_text(b3, v->at_peak.largest_free));
	key_figure(f, "", "fragmentation %s (reserved - live), %s (1 - largest / free)",
	   cg_fmt_percent(p1, sizeof p1, v->at_peak.frag_reserved), cg_fmt_percent(p2, sizeof p2, v->at_peak.frag_largest));
}

static void print_replay(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_replay_device *r = &a->replay->devices[d];
	char b1[32];
	put_linef(f, "%s", "");
	if (!r->available) {
		put_linef(f, "  allocator replay: not available (%s)", r->unavailable_reason ? r->unavailable_reason : "");
		return;
	}
	put_linef(f, "  allocator replay (an estimate: PyTorch's CUDA caching allocator, one stream)");
	print_replay_variant(f, a->tl, "standard", &r->standard);
	print_replay_variant(f, a->tl, "expandable", &r->expandable);
	if (r->saved_bytes > 0)
		key_figure(f, "", "expandable_segments:True would have reserved %s less at the peak",
		   bytes_text(b1, (uint64_t)r->saved_bytes));
	else if (r->saved_bytes < 0)
		key_figure(f, "", "expandable_segments:True would have reserved %s more at the peak",
		   bytes_text(b1, (uint64_t)0 - (uint64_t)r->saved_bytes));
	else
		key_figure(f, "", "expandable_segments:True would not have changed the peak reserved");
}

static void print_leaks(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_leaks_device *l = &a->leaks->devices[d];
	char b1[32], b2[32], n1[32];
	put_linef(f, "%s", "");
	if (!l->available) {
		put_linef(f, "  leaks by allocation: not available without pairing");
		return;
	}
	if (l->count == 0) {
		put_linef(f, "  leaks: nothing but parameters and optimizer state is live at the end");
		return;
	}
	put_linef(f, "  live at the end besides parameters and optimizer state: %s in %s allocations", bytes_text(b1, l->bytes),
	    count_text(n1, l->count));
	if (l->nsteps >= 2 && l->leaking_steps >= 2) {
		uint64_t lo = UINT64_MAX, hi = 0;
		for (uint32_t k = 0; k < l->nsteps; k++) {
			if (l->step_bytes[k] < lo)
				lo = l->step_bytes[k];
			if (l->step_bytes[k] > hi)
				hi = l->step_bytes[k];
		}
		if (lo == hi)
			put_linef(f, "  each of the %u steps left %s behind", l->nsteps, bytes_text(b2, lo));
		else
			put_linef(f, "  %u of %u steps left memory behind, %s to %s each", l->leaking_steps, l->nsteps,
			    bytes_text(b1, lo), bytes_text(b2, hi));
	}
	size_t n = l->ngroups < a->options.top_n ? l->ngroups : a->options.top_n;
	for (size_t g = 0; g < n; g++) {
		const cg_leak_group *x = &l->groups[g];
		char row[1024] = "    ", cnt[64], fitted[WIDTH * 4];
		cell(row, sizeof row, bytes_text(b1, x->bytes), 10, true);
		snprintf(cnt, sizeof cnt, "  %s \xc3\x97 %s", count_text(n1, x->count),
			 x->op != CG_STR_EMPTY ? cg_timeline_str(tl, x->op) : "?");
		strcat(row, cnt);
		snprintf(cnt, sizeof cnt, " (%s%s%u step%s)",
			 x->category == CG_LEAKS_MIXED ? "mixed" : cg_category_name((cg_category)x->category), ", ",
			 x->steps, x->steps == 1 ? "" : "s");
		strcat(row, cnt);
		put_line(f, row);
		put_linef(f, "%16s%s", "", fit(fitted, sizeof fitted, x->path[0] ? x->path : "(no span)", WIDTH - 16));
	}
}

static void print_lifetimes(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_lifetimes_device *l = &a->lifetimes->devices[d];
	char b1[32], b2[32], n1[32], n2[32];
	put_linef(f, "%s", "");
	if (!l->available) {
		put_linef(f, "  lifetimes: not available without pairing");
		return;
	}
	char n3[32];
	put_linef(f, "  lifetimes of %s freed allocations (%s); %s never freed; temporaries %s (%s)",
	    count_text(n1, l->ended_count), bytes_text(b1, l->ended_bytes), count_text(n2, l->never_freed_count),
	    count_text(n3, l->temporaries_count), bytes_text(b2, l->temporaries_bytes));
	uint64_t count[CG_LIFETIME_BUCKETS] = {0}, max = 0;
	for (size_t i = 0; i < l->ncells; i++)
		count[l->cells[i].bucket] += l->cells[i].count;
	for (int b = 0; b < CG_LIFETIME_BUCKETS; b++)
		if (count[b] > max)
			max = count[b];
	for (unsigned b = 0; b < CG_LIFETIME_BUCKETS; b++) {
		if (!count[b])
			continue;
		char lo[32], hi[32], bar[3 * 40 + 1] = "", row[512] = "    ";
		unsigned len = (unsigned)((count[b] * 40 + max - 1) / max);
		for (unsigned i = 0; i < len; i++)
			strcat(bar, "\xe2\x96\x88");
		cell(row, sizeof row, cg_fmt_time(lo, 32, cg_lifetime_bucket_lower(b)), 10, true);
		strcat(row, b + 1 < CG_LIFETIME_BUCKETS ? " \xe2\x80\x93 " : " or more");
		cell(row, sizeof row, b + 1 < CG_LIFETIME_BUCKETS ? cg_fmt_time(hi, 32, cg_lifetime_bucket_upper(b)) : "", 10, false);
		cell(row, sizeof row, count_text(n1, count[b]), 9, true);
		strcat(row, "  ");
		strcat(row, bar);
		put_line(f, row);
	}
}

static void print_end(cg_sink *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_endtrace_device *e = &a->end->devices[d];
	char b1[32], b2[32], b3[32], t1[32], n1[32];
	put_linef(f, "%s", "");
	put_linef(f, "  end of the trace");
	if (e->kind == CG_END_OUT_OF_MEMORY)
		key_figure(f, "out of memory", "at %s, a request for %s failed (%u event%s)", time_text(tl, t1, tl->ooms[e->oom].t_ns),
		   bytes_text(b1, tl->ooms[e->oom].bytes), e->oom_count, e->oom_count == 1 ? "" : "s");
	key_figure(f, "last record", "%s", e->kind == CG_END_NO_RECORDS ? "none" : time_text(tl, t1, e->last_record_ns));
	key_figure(f, "live then", "%s in %s allocations", bytes_text(b1, a->at_end->devices[d].bytes),
	   count_text(n1, a->at_end->devices[d].count));
	if (e->checkpoint != CG_NONE && tl->devmem[e->checkpoint].has_used) {
		const cg_devmem *c = &tl->devmem[e->checkpoint];
		key_figure(f, "last checkpoint", "at %s: %s used of %s, headroom %s%s", time_text(tl, t1, c->t_ns), bytes_text(b1, c->used_bytes),
		   bytes_text(b2, c->used_bytes + c->free_bytes), bytes_text(b3, c->free_bytes), e->nearly_full ? " (nearly full)" : "");
	}
	if (e->verdict) {
		put_linef(f, "%s", "");
		put_wrapped(f, e->verdict, 2);
	}
	print_live_list(f, a, &a->at_end->devices[d], "largest allocations live at the end");
	if (e->nlast) {
		put_linef(f, "%s", "");
		print_alloc_header(f, "last allocations before the end, latest first", e->nlast, e->nlast);
		for (uint32_t i = 0; i < e->nlast; i++) {
			const cg_mem *m = &tl->mem[e->last_allocs[i]];
			print_alloc(f, tl, e->last_allocs[i], m->pair, m->bytes);
		}
	}
}

static void print_gradients(cg_sink *f, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_gradients_result *g = a->gradients;
	char n[CG_GRAD_STATE_COUNT + 1][32], n1[32];
	if (!g->records)
		return;
	put_linef(f, "%s", "");
	put_linef(f, "gradients: %s records for %s parameters: %s present, %s missing, %s zero, %s non-finite",
	    count_text(n1, g->records), count_text(n[0], g->parameters), count_text(n[1], g->by_state[CG_GRAD_PRESENT]),
	    count_text(n[2], g->by_state[CG_GRAD_MISSING]), count_text(n[3], g->by_state[CG_GRAD_ZERO]),
	    count_text(n[4], g->by_state[CG_GRAD_NON_FINITE]));
	for (size_t i = 0; i < g->nproblems && i < a->options.top_n; i++) {
		const cg_gradient_problem *p = &g->problems[i];
		put_linef(f, "  %s.%s: %" PRIu64 " missing, %" PRIu64 " non-finite (first at line %u)",
		    cg_timeline_str(tl, p->root), cg_timeline_str(tl, p->key), p->missing, p->non_finite, p->first_line);
	}
}

void cg_summary_text_write(cg_sink *f, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	print_header(f, a);
	if (a->steps->nsteps)
		put_linef(f, "steps: %u \xc3\x97 %s", a->steps->nsteps, a->steps->label);
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		put_linef(f, "%s", "");
		put_linef(f, "%s", cg_timeline_str(tl, tl->devices[d].name));
		print_key_figures(f, a, d);
		print_at_peak(f, a, d);
		print_tree(f, a, d);
		print_over_time(f, a, d);
		print_checkpoints(f, a, d);
		print_replay(f, a, d);
		print_leaks(f, a, d);
		print_lifetimes(f, a, d);
		print_end(f, a, d);
	}
	print_gradients(f, a);
}
