/* The terminal text of `cgmem summary`: the verdict first, then the key
 * figures, binary units, aligned, no line wider than the width. */
#include "summary_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "summary_allocs.h"
#include "devorder.h"
#include "stackview.h"
#include "summary_lines.h"
#include "termtext.h"
#include "units.h"
#include "utf8.h"
#include "xalloc.h"

#define LABEL 20	  /* width of the label column of key figures */
#define KEY_LINES 3 /* the most lines a key figure takes */

static char *textf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *textf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

/* A key figure: "  label               value", wrapped at the width. */
static void key_figure(cg_lines *f, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void key_figure(cg_lines *f, const char *label, const char *fmt, ...)
{
	char value[4096];
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(value, sizeof value, fmt, ap);
	va_end(ap);
	char lead[64];
	snprintf(lead, sizeof lead, "  %-*s", LABEL, label);
	/* long values go on under the value, a name from the trace for 3 lines at most */
	cg_lines_wrap_lead(f, lead, NULL, value, KEY_LINES);
}

static const char *bytes_text(char *buf, uint64_t v) { return cg_fmt_bytes(buf, 32, v); }
static const char *time_text(const cg_timeline *tl, char *buf, uint64_t v) { return cg_timeline_fmt_time(tl, buf, 32, v); }
static const char *count_text(char *buf, uint64_t v) { return cg_fmt_count(buf, 32, v); }
static const char *share_text(char *buf, uint64_t part, uint64_t whole)
{
	return cg_fmt_percent(buf, 32, whole ? (double)part / (double)whole : 0.0);
}

/* ---- allocations ---- */

static void print_alloc_header(cg_lines *f, const char *title, size_t shown, size_t total)
{
	char n1[32], n2[32];
	if (shown < total)
		cg_lines_putf(f, "  %s (%s of %s), allocated \xe2\x86\x92 freed", title, count_text(n1, shown), count_text(n2, total));
	else
		cg_lines_putf(f, "  %s (%s), allocated \xe2\x86\x92 freed", title, count_text(n1, total));
}

/* The first n of the live set ls, as rows of summary_allocs.h. */
static cg_alloc_row *live_rows(const cg_liveset_device *ls, size_t n)
{
	cg_alloc_row *rows = cg_calloc(n ? n : 1, sizeof *rows);
	for (size_t i = 0; i < n; i++)
		rows[i] = (cg_alloc_row){ls->allocs[i].alloc, ls->allocs[i].end, ls->allocs[i].bytes};
	return rows;
}

static void print_live_list(cg_lines *f, const cg_analysis *a, const cg_liveset_device *ls, const char *title)
{
	size_t n = ls->nallocs < a->options.top_n ? ls->nallocs : a->options.top_n;
	if (n == 0)
		return;
	cg_lines_putf(f, "%s", "");
	print_alloc_header(f, title, n, ls->nallocs);
	cg_alloc_row *rows = live_rows(ls, n);
	cg_summary_allocs_write(f, a->tl, rows, n);
	cg_free(rows);
}

/* ---- sections ---- */

/* parts joined by " · " on as few lines as the width allows, each line
 * broken only between parts. */
static void put_parts(cg_lines *f, char (*parts)[512], int n)
{
	char line[5 * 512 + 16] = "";
	for (int i = 0; i < n; i++) {
		size_t cols = cg_text_width(line), more = cg_text_width(parts[i]);
		if (line[0] && cols + 3 + more > f->width) {
			cg_lines_put(f, line);
			line[0] = '\0';
		}
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, "%s%s", line[0] ? " \xc2\xb7 " : "", parts[i]);
	}
	cg_lines_put(f, line);
}

static void print_header(cg_lines *f, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_source *s = &tl->source;
	char n1[32], t1[32], b1[32];
	cg_lines_putf(f, "%s", s->display_name ? s->display_name : "trace");
	char what[5][512];
	textf(what[0], sizeof what[0], "%s%s", s->format ? s->format : "trace", s->gzip ? " (gzip)" : "");
	textf(what[1], sizeof what[1], "%s %s", count_text(n1, s->lines),
	      tl->snapshot ? (s->lines == 1 ? "trace entry" : "trace entries") : "lines");
	textf(what[2], sizeof what[2], "%s memory records",
	      count_text(b1, s->records[CG_KIND_MEMORY] ? s->records[CG_KIND_MEMORY] : tl->nmem));
	textf(what[3], sizeof what[3], "%u device%s", tl->ndevices, tl->ndevices == 1 ? "" : "s");
	textf(what[4], sizeof what[4], "ends at %s", time_text(tl, t1, tl->last_t_ns));
	put_parts(f, what, 5);
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
		cg_lines_putf(f, "%s", meta);
	if (s->truncated)
		cg_lines_wrap(f, s->truncation_note ? s->truncation_note : "the trace was cut off", 0);
	if (s->bad_lines)
		cg_lines_putf(f, "%s bad lines were skipped", count_text(n1, s->bad_lines));
	if (s->categories_inferred)
		cg_lines_wrap(f, "categories: inferred by cgmem from when each block is allocated and freed; this "
			"format does not record them (--no-infer shows them as unknown)", 0);
	else if (!s->categories_known)
		cg_lines_putf(f, "categories: this format does not record them; all memory shows as unknown");
	if (!s->pairing_known)
		cg_lines_wrap(f, "frees could not be matched to their allocations: live bytes by device and by category "
			"are exact, but lists of allocations, lifetimes, leaks and the allocator replay are "
			"not available", 0);
}

/* Allocator snapshots: the segments at the dump, and the OOM verdict. */
static void print_allocator_state(cg_lines *f, const cg_analysis *a, uint32_t d)
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
		cg_lines_wrap(f, cg_allocstate_verdict(s, verdict, sizeof verdict), 2);
	}
}

/* "  peak                15.44 MiB (16,190,672 B) at 0.123 s, reached 2
 * times", the size emphasised. */
static void print_peak(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_peak_device *p = &a->peak->devices[d];
	char lead[64], b1[32], n1[32], t1[32], rest[160];
	snprintf(lead, sizeof lead, "  %-*s", LABEL, "peak");
	int n = snprintf(rest, sizeof rest, " (%s B) at %s", count_text(n1, p->peak_bytes), time_text(a->tl, t1, p->peak_t_ns));
	if (p->reached_times > 1 && n > 0 && (size_t)n < sizeof rest)
		snprintf(rest + n, sizeof rest - (size_t)n, ", reached %u times", p->reached_times);
	cg_lines_put_styled(f, lead, bytes_text(b1, p->peak_bytes), CG_SGR_STRONG, rest);
}

static void print_key_figures(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_peak_device *p = &a->peak->devices[d];
	const cg_liveset_device *end = &a->at_end->devices[d];
	char b1[32], b2[32], t1[32], n1[32], n2[32];
	print_peak(f, a, d);
	if (p->peak_index != CG_NONE) {
		const cg_mem *m = &tl->mem[p->peak_index];
		char path[CG_SPAN_PATH_MAX], fitted[CG_LINES_BYTES(CG_SUMMARY_TEXT_MAX_WIDTH)];
		/* its category and phase, those the trace recorded */
		cg_phase phase = cg_timeline_mem_phase(tl, m);
		const char *cat = m->category != CG_CAT_UNKNOWN ? cg_category_name((cg_category)m->category) : NULL;
		const char *ph = phase != CG_PHASE_NONE || cat ? cg_phase_name(phase) : NULL;
		char what[64] = "";
		if (cat || ph)
			snprintf(what, sizeof what, " (%s%s%s)", cat ? cat : "", cat && ph ? ", " : "", ph ? ph : "");
		key_figure(f, "reached by", "%s of %s%s", bytes_text(b1, m->bytes),
		   cg_timeline_mem_op(tl, m) != CG_STR_EMPTY ? cg_timeline_str(tl, cg_timeline_mem_op(tl, m)) : "an allocation", what);
		cg_stack_span_where(tl, m->span, path, sizeof path);
		if (path[0])
			key_figure(f, "", "%s", cg_lines_fit(fitted, sizeof fitted, path, f->width - 2 - LABEL));
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
static void print_shares(cg_lines *f, const char *title, const char *const *names, const uint64_t *bytes, int n,
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
	cg_lines_putf(f, "%s", "");
	cg_lines_putf(f, "  %s", title);
	for (int i = 0; i < k; i++) {
		char row[256] = "    ", b[32], pct[32];
		cg_lines_cell(row, sizeof row, names[order[i]], 18, false);
		cg_lines_cell(row, sizeof row, bytes_text(b, bytes[order[i]]), 11, true);
		cg_lines_cell(row, sizeof row, share_text(pct, bytes[order[i]], whole), 9, true);
		cg_lines_put(f, row);
	}
}

static void print_at_peak(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	const char *cats[CG_CAT_COUNT], *phases[CG_PHASE_COUNT];
	for (int c = 0; c < CG_CAT_COUNT; c++)
		cats[c] = cg_category_name((cg_category)c);
	for (int p = 0; p < CG_PHASE_COUNT; p++)
		phases[p] = cg_phase_name((cg_phase)p);
	if (cg_source_has_categories(&a->tl->source))
		print_shares(f, a->tl->source.categories_inferred ? "at the peak, by category (inferred)"
								    : "at the peak, by category", cats, ls->by_category, CG_CAT_COUNT, ls->bytes);
	/* by phase, unless all of it is under none: the trace has no phases */
	if (ls->listed && ls->by_phase[CG_PHASE_NONE] < ls->bytes)
		print_shares(f, "at the peak, by the phase that allocated", phases, ls->by_phase, CG_PHASE_COUNT,
			     ls->bytes);
	print_live_list(f, a, ls, "largest allocations live at the peak");
}

/* The span-path tree, pruned to nodes holding at least 5 % of the peak. */
/* The first node at or after i that the tree shows (nodes holding min
 * bytes or more, 24 levels deep at most), or t->nnodes. */
static uint32_t tree_next(const cg_pathtree *t, uint32_t i, uint64_t min)
{
	while (i < t->nnodes && (t->nodes[i].total_bytes < min || t->nodes[i].depth > 24))
		i = t->nodes[i].subtree_end;
	return i;
}

/* A node's name indented by its level, escaped, into label; a node
 * ending a chain of `chain` folded frames says so: "name ‹ … (k frames)". */
static void tree_label(const cg_timeline *tl, const cg_pathnode *n, uint32_t level, uint32_t chain, char *label,
		       size_t size)
{
	const char *name = n->kind == CG_PATHNODE_SPAN ? cg_timeline_str(tl, n->name)
			   : n->kind == CG_PATHNODE_BEFORE_TRACE ? "(allocated before the trace)"
								  : "(before profiling)";
	int indent = (int)level * 2;
	snprintf(label, size, "%*s", indent, "");
	cg_termtext_escape(label + indent, size - (size_t)indent, name, strlen(name));
	if (chain) {
		size_t len = strlen(label);
		snprintf(label + len, size - len, CG_STACK_SEP "\xe2\x80\xa6 (%u frames)", chain + 1);
	}
}

/* For a stack of frames (stackview.h): whether node i of the shown tree
 * is a link of a chain, handing all its bytes to its one shown child; the
 * chain is then one row, at its last node (as the icicle's one box). */
static bool chain_link(const cg_timeline *tl, const cg_pathtree *t, uint32_t i, uint64_t min)
{
	const cg_pathnode *n = &t->nodes[i];
	if (!cg_stack_is_frames(tl) || n->kind != CG_PATHNODE_SPAN || n->own_bytes || n->depth >= 24)
		return false;
	uint32_t only = CG_NONE;
	for (uint32_t c = tree_next(t, i + 1, min); c < n->subtree_end; c = tree_next(t, t->nodes[c].subtree_end, min)) {
		if (only != CG_NONE)
			return false;
		only = c;
	}
	return only != CG_NONE && t->nodes[only].total_bytes == n->total_bytes;
}

/* Each shown node's level and the chain folded above it, in one pre-order
 * pass (a parent comes before its children). */
static void tree_levels(const cg_timeline *tl, const cg_pathtree *t, uint64_t min, uint32_t *level, uint32_t *chain,
			bool *link)
{
	for (uint32_t i = tree_next(t, 1, min); i < t->nnodes; i = tree_next(t, i + 1, min)) {
		uint32_t p = t->nodes[i].parent;
		bool top = p == CG_NONE || p == 0;
		level[i] = top ? 0 : link[p] ? level[p] : level[p] + 1;
		chain[i] = top || !link[p] ? 0 : chain[p] + 1;
		link[i] = chain_link(tl, t, i, min);
	}
}

/* The span-path tree, pruned to nodes holding at least 5 % of the peak:
 * the names as wide as the widest (within the width), the phase column
 * only when some node has one. */
static void print_tree(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_pathtree *t = &a->peak_trees->trees[d];
	if (t->nnodes < 2 || t->nodes[0].total_bytes == 0)
		return;
	const cg_timeline *tl = a->tl;
	uint64_t whole = t->nodes[0].total_bytes, min = whole / 20;
	char label[1024], row[CG_LINES_BYTES(CG_SUMMARY_TEXT_MAX_WIDTH) + 128], b[32], pct[32];
	size_t widest = 0, shown = 0;
	bool phases = false;
	uint32_t *level = cg_calloc(t->nnodes, sizeof *level), *chain = cg_calloc(t->nnodes, sizeof *chain);
	bool *link = cg_calloc(t->nnodes, sizeof *link);
	tree_levels(tl, t, min, level, chain, link);
	for (uint32_t i = tree_next(t, 1, min); i < t->nnodes && shown < a->options.top_n; i = tree_next(t, i + 1, min)) {
		if (link[i])
			continue;
		tree_label(tl, &t->nodes[i], level[i], chain[i], label, sizeof label);
		if (cg_text_width(label) > widest)
			widest = cg_text_width(label);
		phases |= t->nodes[i].phase != CG_PHASE_NONE;
		shown++;
	}
	size_t rest = 4 + 11 + 9 + (phases ? 2 + 9 : 0);
	size_t room = f->width > rest + 16 ? f->width - rest : 16;
	if (widest > room)
		widest = room;
	cg_lines_putf(f, "%s", "");
	cg_lines_putf(f, "  at the peak, by span path (nodes with 5 %% or more)");
	shown = 0;
	for (uint32_t i = tree_next(t, 1, min); i < t->nnodes && shown < a->options.top_n; i = tree_next(t, i + 1, min)) {
		const cg_pathnode *n = &t->nodes[i];
		if (link[i])
			continue;
		tree_label(tl, n, level[i], chain[i], label, sizeof label);
		snprintf(row, sizeof row, "    ");
		cg_lines_cell(row, sizeof row, label, widest, false);
		cg_lines_cell(row, sizeof row, bytes_text(b, n->total_bytes), 11, true);
		cg_lines_cell(row, sizeof row, share_text(pct, n->total_bytes, whole), 9, true);
		if (phases) {
			strcat(row, "  ");
			strcat(row, n->phase == CG_PATHTREE_MIXED ? "mixed" : cg_phase_name((cg_phase)n->phase));
		}
		cg_lines_put(f, row);
		shown++;
	}
	cg_free(link);
	cg_free(chain);
	cg_free(level);
}

static void print_over_time(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_overtime_device *o = &a->overtime->devices[d];
	char b1[32], b2[32], b3[32], t1[32];
	if (cg_source_has_categories(&tl->source)) {
		cg_lines_putf(f, "%s", "");
		cg_lines_putf(f, tl->source.categories_inferred ? "  each category's own maximum (inferred)"
								: "  each category's own maximum");
		for (int c = 0; c < CG_CAT_COUNT; c++)
			if (o->categories[c].bytes)
				cg_lines_putf(f, "    %-18s%11s  at %s", cg_category_name((cg_category)c),
				    bytes_text(b1, o->categories[c].bytes), time_text(tl, t1, o->categories[c].t_ns));
	}
	bool header = false;
	for (int p = 0; p < CG_PHASE_COUNT; p++) {
		const cg_phase_stats *s = &o->phases[p];
		if (!s->ran && !s->allocations && !s->frees)
			continue;
		if (!header) {
			cg_lines_putf(f, "%s", "");
			cg_lines_putf(f, "  %-14s%12s %10s %12s %12s", "phase", "peak", "at", "allocated", "freed");
			header = true;
		}
		char row[256] = "    ";
		cg_lines_cell(row, sizeof row, cg_phase_name((cg_phase)p), 12, false);
		cg_lines_cell(row, sizeof row, s->ran ? bytes_text(b1, s->peak_bytes) : "-", 12, true);
		strcat(row, " ");
		cg_lines_cell(row, sizeof row, s->ran ? time_text(tl, t1, s->peak_t_ns) : "-", 10, true);
		strcat(row, " ");
		cg_lines_cell(row, sizeof row, bytes_text(b2, s->allocated_bytes), 12, true);
		strcat(row, " ");
		cg_lines_cell(row, sizeof row, bytes_text(b3, s->freed_bytes), 12, true);
		cg_lines_put(f, row);
	}
	if (!o->timed && a->steps->nsteps && tl->devices[d].mem_count)
		cg_lines_putf(f, "  steps and phase peaks: not evaluated for this device (too many devices \xc3\x97 steps)");
	if (!o->nsteps)
		return;
	cg_lines_putf(f, "%s", "");
	cg_lines_putf(f, "  %-22s%10s %12s %12s %12s", "step", "start", "peak", "live at end", "growth");
	for (uint32_t k = 0; k < o->nsteps; k++) {
		if (k == a->options.top_n && o->nsteps > a->options.top_n) {
			cg_lines_putf(f, "    ... %u more steps", o->nsteps - k);
			break;
		}
		const cg_step_stats *s = &o->steps[k];
		char name[256], g[32];
		cg_lines_fit(name, sizeof name, cg_timeline_str(tl, tl->spans[a->steps->steps[k].span].name), 20);
		char row[512] = "    ";
		cg_lines_cell(row, sizeof row, name, 20, false);
		cg_lines_cell(row, sizeof row, time_text(tl, t1, a->steps->steps[k].start_ns), 10, true);
		strcat(row, " ");
		cg_lines_cell(row, sizeof row, bytes_text(b1, s->peak_bytes), 12, true);
		strcat(row, " ");
		cg_lines_cell(row, sizeof row, bytes_text(b2, s->live_at_end), 12, true);
		strcat(row, " ");
		cg_lines_cell(row, sizeof row, cg_fmt_bytes_signed(g, sizeof g, s->growth), 12, true);
		cg_lines_put(f, row);
	}
}

static void print_checkpoint_line(cg_lines *f, const cg_timeline *tl, const char *label, const cg_checkpoint *c,
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

static void print_checkpoints(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_checkpoints_device *c = &a->checkpoints->devices[d];
	const cg_replay_device *r = &a->replay->devices[d];
	char n1[32], t1[32], pct[32];
	cg_lines_putf(f, "%s", "");
	if (c->count == 0) {
		cg_lines_putf(f, "  checkpoints: none in the trace");
		return;
	}
	cg_lines_putf(f, "  checkpoints (%s)", count_text(n1, c->count));
	print_checkpoint_line(f, tl, "nearest the peak", &c->list[c->nearest_peak], r, c->nearest_peak);
	print_checkpoint_line(f, tl, "last", &c->list[c->count - 1], r, c->count - 1);
	if (c->max_fragmentation != CG_NONE)
		key_figure(f, "max fragmentation", "%s at %s",
		   cg_fmt_percent(pct, sizeof pct, c->list[c->max_fragmentation].fragmentation),
		   time_text(tl, t1, c->list[c->max_fragmentation].t_ns));
}

static void print_replay_variant(cg_lines *f, const cg_timeline *tl, const char *label, const cg_replay_variant *v)
{
	char b1[32], b2[32], b3[32], t1[32], p1[32], p2[32];
	key_figure(f, label, "reserved at most %s (from %s)", bytes_text(b1, v->peak_reserved), time_text(tl, t1, v->peak_t_ns));
	key_figure(f, "", "at the live peak: %s free, the largest free block %s", bytes_text(b2, v->at_peak.total_free),
	   bytes_text(b3, v->at_peak.largest_free));
	key_figure(f, "", "fragmentation %s (reserved - live), %s (1 - largest / free)",
	   cg_fmt_percent(p1, sizeof p1, v->at_peak.frag_reserved), cg_fmt_percent(p2, sizeof p2, v->at_peak.frag_largest));
}

static void print_replay(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_replay_device *r = &a->replay->devices[d];
	char b1[32];
	cg_lines_putf(f, "%s", "");
	if (!r->available) {
		cg_lines_putf(f, "  allocator replay: not available (%s)", r->unavailable_reason ? r->unavailable_reason : "");
		return;
	}
	cg_lines_putf(f, "  allocator replay (an estimate: PyTorch's CUDA caching allocator, one stream)");
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

static void print_leaks(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_leaks_device *l = &a->leaks->devices[d];
	char b1[32], b2[32], n1[32];
	cg_lines_putf(f, "%s", "");
	if (!l->available) {
		cg_lines_putf(f, "  leaks by allocation: not available without pairing");
		return;
	}
	if (l->count == 0) {
		cg_lines_putf(f, "  leaks: nothing but parameters and optimizer state is live at the end");
		return;
	}
	cg_lines_putf(f, "  live at the end besides parameters and optimizer state: %s in %s allocations", bytes_text(b1, l->bytes),
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
			cg_lines_putf(f, "  each of the %u steps left %s behind", l->nsteps, bytes_text(b2, lo));
		else
			cg_lines_putf(f, "  %u of %u steps left memory behind, %s to %s each", l->leaking_steps, l->nsteps,
			    bytes_text(b1, lo), bytes_text(b2, hi));
	}
	size_t n = l->ngroups < a->options.top_n ? l->ngroups : a->options.top_n;
	/* what no group holds is left out: an op, a category, steps */
	bool ops = false, cats = false, steps = false;
	for (size_t g = 0; g < n; g++) {
		ops |= l->groups[g].op != CG_STR_EMPTY;
		cats |= l->groups[g].category != CG_CAT_UNKNOWN;
		steps |= l->groups[g].steps > 0;
	}
	for (size_t g = 0; g < n; g++) {
		const cg_leak_group *x = &l->groups[g];
		char row[1024] = "    ", cnt[512], fitted[CG_LINES_BYTES(CG_SUMMARY_TEXT_MAX_WIDTH)];
		cg_lines_cell(row, sizeof row, bytes_text(b1, x->bytes), 10, true);
		if (ops)
			snprintf(cnt, sizeof cnt, "  %s \xc3\x97 %s", count_text(n1, x->count),
				 x->op != CG_STR_EMPTY ? cg_timeline_str(tl, x->op) : "?");
		else
			snprintf(cnt, sizeof cnt, "  %s allocation%s", count_text(n1, x->count), x->count == 1 ? "" : "s");
		strcat(row, cnt);
		const char *cat = !cats ? NULL : x->category == CG_LEAKS_MIXED ? "mixed" : cg_category_name((cg_category)x->category);
		if (cat && steps)
			snprintf(cnt, sizeof cnt, " (%s, %u step%s)", cat, x->steps, x->steps == 1 ? "" : "s");
		else if (cat)
			snprintf(cnt, sizeof cnt, " (%s)", cat);
		else if (steps)
			snprintf(cnt, sizeof cnt, " (%u step%s)", x->steps, x->steps == 1 ? "" : "s");
		else
			cnt[0] = '\0';
		strcat(row, cnt);
		cg_lines_put(f, row);
		char where[CG_SPAN_PATH_MAX];
		const char *path = x->path;
		if (x->path[0] && cg_stack_is_frames(tl))
			path = cg_stack_span_where(tl, tl->mem[x->example].span, where, sizeof where);
		cg_lines_putf(f, "%16s%s", "", cg_lines_fit(fitted, sizeof fitted, path[0] ? path : "(no span)", f->width - 16));
	}
}

static void print_lifetimes(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_lifetimes_device *l = &a->lifetimes->devices[d];
	char b1[32], b2[32], n1[32], n2[32];
	cg_lines_putf(f, "%s", "");
	if (!l->available) {
		cg_lines_putf(f, "  lifetimes: not available without pairing");
		return;
	}
	char n3[32];
	cg_lines_putf(f, "  lifetimes of %s freed allocations (%s); %s never freed; temporaries %s (%s)",
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
		cg_lines_cell(row, sizeof row, cg_fmt_time(lo, 32, cg_lifetime_bucket_lower(b)), 10, true);
		strcat(row, b + 1 < CG_LIFETIME_BUCKETS ? " \xe2\x80\x93 " : " or more");
		cg_lines_cell(row, sizeof row, b + 1 < CG_LIFETIME_BUCKETS ? cg_fmt_time(hi, 32, cg_lifetime_bucket_upper(b)) : "", 10, false);
		cg_lines_cell(row, sizeof row, count_text(n1, count[b]), 9, true);
		strcat(row, "  ");
		strcat(row, bar);
		cg_lines_put(f, row);
	}
}

static void print_end(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_endtrace_device *e = &a->end->devices[d];
	char b1[32], b2[32], b3[32], t1[32], n1[32];
	cg_lines_putf(f, "%s", "");
	cg_lines_putf(f, "  end of the trace");
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
		cg_lines_putf(f, "%s", "");
		cg_lines_wrap(f, e->verdict, 2);
	}
	print_live_list(f, a, &a->at_end->devices[d], "largest allocations live at the end");
	if (e->nlast) {
		cg_lines_putf(f, "%s", "");
		print_alloc_header(f, "last allocations before the end, latest first", e->nlast, e->nlast);
		cg_alloc_row *rows = cg_calloc(e->nlast, sizeof *rows);
		for (uint32_t i = 0; i < e->nlast; i++) {
			const cg_mem *m = &tl->mem[e->last_allocs[i]];
			rows[i] = (cg_alloc_row){e->last_allocs[i], m->pair, m->bytes};
		}
		cg_summary_allocs_write(f, tl, rows, e->nlast);
		cg_free(rows);
	}
}

static void print_gradients(cg_lines *f, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_gradients_result *g = a->gradients;
	char n[CG_GRAD_STATE_COUNT + 1][32], n1[32];
	if (!g->records)
		return;
	cg_lines_putf(f, "%s", "");
	cg_lines_putf(f, "gradients: %s records for %s parameters: %s present, %s missing, %s zero, %s non-finite",
	    count_text(n1, g->records), count_text(n[0], g->parameters), count_text(n[1], g->by_state[CG_GRAD_PRESENT]),
	    count_text(n[2], g->by_state[CG_GRAD_MISSING]), count_text(n[3], g->by_state[CG_GRAD_ZERO]),
	    count_text(n[4], g->by_state[CG_GRAD_NON_FINITE]));
	for (size_t i = 0; i < g->nproblems && i < a->options.top_n; i++) {
		const cg_gradient_problem *p = &g->problems[i];
		cg_lines_putf(f, "  %s.%s: %" PRIu64 " missing, %" PRIu64 " non-finite (first at line %u)",
		    cg_timeline_str(tl, p->root), cg_timeline_str(tl, p->key), p->missing, p->non_finite, p->first_line);
	}
}

/* ---- the verdict, first after the header ---- */

typedef enum verdict { VERDICT_OK, VERDICT_WARN, VERDICT_FAIL } verdict;

/* Where device d's trace ended: ", 23.6 ms into forward of train_step#2". */
static void say_where(char *buf, size_t size, const cg_analysis *a, const cg_endtrace_device *e)
{
	const cg_timeline *tl = a->tl;
	char t1[32];
	const char *step = e->step != CG_NONE && e->step < a->steps->nsteps
				   ? cg_timeline_str(tl, tl->spans[a->steps->steps[e->step].span].name)
				   : NULL;
	if (e->phase_span != CG_NONE && step)
		snprintf(buf, size, ", %s into %s of %s", cg_fmt_time(t1, sizeof t1, e->into_phase_ns),
			 cg_phase_name((cg_phase)e->phase), step);
	else if (e->phase_span != CG_NONE)
		snprintf(buf, size, ", %s into %s", cg_fmt_time(t1, sizeof t1, e->into_phase_ns), cg_phase_name((cg_phase)e->phase));
	else if (step || e->span != CG_NONE)
		snprintf(buf, size, ", in %s", step ? step : cg_timeline_str(tl, tl->spans[e->span].name));
	else
		buf[0] = '\0';
}

/* Device d's verdict in one sentence into buf, from the end-of-trace pass:
 * FAIL when it ran out of memory or the trace was cut off, warn when its
 * last checkpoint shows it nearly full, else ok (buf empty). */
static verdict device_verdict(const cg_analysis *a, uint32_t d, char *buf, size_t size)
{
	const cg_timeline *tl = a->tl;
	const cg_endtrace_device *e = &a->end->devices[d];
	const char *dev = cg_timeline_str(tl, tl->devices[d].name);
	char where[512], t1[32], b1[32], b2[32], n1[32];
	buf[0] = '\0';
	if (e->kind == CG_END_NO_RECORDS)
		return VERDICT_OK;
	say_where(where, sizeof where, a, e);
	if (e->kind == CG_END_OUT_OF_MEMORY) {
		snprintf(buf, size, "%s ran out of memory at %s: a request for %s failed%s", dev,
			 time_text(tl, t1, tl->ooms[e->oom].t_ns), bytes_text(b1, tl->ooms[e->oom].bytes), where);
		return VERDICT_FAIL;
	}
	if (tl->source.truncated) {
		snprintf(buf, size, "the run looks like it died: the trace was cut off mid-record at line %s; %s stopped at %s%s",
			 count_text(n1, tl->source.truncated_line), dev, time_text(tl, t1, e->t_ns), where);
		return VERDICT_FAIL;
	}
	if (e->nearly_full && e->checkpoint != CG_NONE) {
		const cg_devmem *c = &tl->devmem[e->checkpoint];
		snprintf(buf, size, "%s was nearly full at its last checkpoint: %s used of %s at %s", dev,
			 bytes_text(b1, c->used_bytes), bytes_text(b2, c->used_bytes + c->free_bytes), time_text(tl, t1, c->t_ns));
		return VERDICT_WARN;
	}
	return VERDICT_OK;
}

/* One paragraph per device with something wrong ("FAIL  ...", "warn
 * ..."), or one "ok" line for the whole trace. */
static void print_verdicts(cg_lines *f, const cg_analysis *a)
{
	static const char *const word[] = {"ok", "warn", "FAIL"};
	char text[1024];
	bool said = false;
	uint32_t *order = cg_device_order(a->tl);
	for (uint32_t k = 0; k < a->tl->ndevices; k++) {
		uint32_t d = order[k];
		verdict v = device_verdict(a, d, text, sizeof text);
		if (v == VERDICT_OK)
			continue;
		cg_lines_wrap_styled(f, word[v], v == VERDICT_FAIL ? CG_SGR_FAIL : NULL, text);
		said = true;
	}
	cg_free(order);
	if (said)
		return;
	if (a->tl->source.truncated) {
		char n1[32];
		snprintf(text, sizeof text, "the run looks like it died: the trace was cut off mid-record at line %s",
			 count_text(n1, a->tl->source.truncated_line));
		cg_lines_wrap_styled(f, word[VERDICT_FAIL], CG_SGR_FAIL, text);
	} else {
		cg_lines_wrap_styled(f, word[VERDICT_OK], NULL, "the trace is complete and records no out-of-memory error");
	}
}

/* ---- --brief ---- */

/* "  filled by           optimizer_state      6.09 MiB   39.5 %", one line
 * for each of the three largest categories at the peak (phases for a
 * format without categories). */
static void print_filled_by(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	bool cats = cg_source_has_categories(&a->tl->source);
	const char *label = a->tl->source.categories_inferred ? "filled by (inferred)" : "filled by";
	if (!cats && !(ls->listed && ls->by_phase[CG_PHASE_NONE] < ls->bytes))
		return;
	const uint64_t *bytes = cats ? ls->by_category : ls->by_phase;
	int n = cats ? CG_CAT_COUNT : CG_PHASE_COUNT;
	bool used[CG_CAT_COUNT + CG_PHASE_COUNT] = {false};
	for (int k = 0; k < 3; k++) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (!used[i] && bytes[i] && (best < 0 || bytes[i] > bytes[best]))
				best = i;
		if (best < 0)
			break;
		used[best] = true;
		char row[256] = "", b[32], pct[32];
		cg_lines_cell(row, sizeof row, cats ? cg_category_name((cg_category)best) : cg_phase_name((cg_phase)best), 16, false);
		cg_lines_cell(row, sizeof row, bytes_text(b, bytes[best]), 11, true);
		cg_lines_cell(row, sizeof row, share_text(pct, bytes[best], ls->bytes), 9, true);
		key_figure(f, k ? "" : cats ? label : "filled by phase", "%s", row);
	}
}

/* The peak, what filled it and the five largest allocations then. */
static void print_brief_device(cg_lines *f, const cg_analysis *a, uint32_t d)
{
	print_peak(f, a, d);
	print_filled_by(f, a, d);
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	size_t top = a->options.top_n < CG_SUMMARY_TEXT_BRIEF_TOP ? a->options.top_n : CG_SUMMARY_TEXT_BRIEF_TOP;
	size_t n = ls->nallocs < top ? ls->nallocs : top;
	if (n == 0)
		return;
	char n1[32], n2[32];
	if (n < ls->nallocs)
		key_figure(f, "largest then", "%s of the %s allocations live at the peak", count_text(n1, n),
			   count_text(n2, ls->nallocs));
	else
		key_figure(f, "largest then", "the %s allocation%s live at the peak", count_text(n1, n), n == 1 ? "" : "s");
	cg_alloc_row *rows = live_rows(ls, n);
	cg_summary_allocs_write_brief(f, a->tl, rows, n);
	cg_free(rows);
}

void cg_summary_text_write(cg_sink *out, const cg_analysis *a, const cg_summary_text_options *o)
{
	const cg_summary_text_options defaults = CG_SUMMARY_TEXT_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	unsigned width = o->width < CG_SUMMARY_TEXT_MIN_WIDTH   ? CG_SUMMARY_TEXT_MIN_WIDTH
			 : o->width > CG_SUMMARY_TEXT_MAX_WIDTH ? CG_SUMMARY_TEXT_MAX_WIDTH
								: o->width;
	cg_lines lines = {out, width, o->color}, *f = &lines;
	const cg_timeline *tl = a->tl;
	print_header(f, a);
	if (a->steps->nsteps)
		cg_lines_putf(f, "steps: %u \xc3\x97 %s", a->steps->nsteps, a->steps->label);
	print_verdicts(f, a);
	uint32_t *order = cg_device_order(tl);
	for (uint32_t k = 0; k < tl->ndevices; k++) {
		uint32_t d = order[k];
		cg_lines_putf(f, "%s", "");
		cg_lines_putf(f, "%s", cg_timeline_str(tl, tl->devices[d].name));
		if (o->brief) {
			print_brief_device(f, a, d);
			continue;
		}
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
	cg_free(order);
	if (!o->brief)
		print_gradients(f, a);
}
