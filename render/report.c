#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devorder.h"
#include "explore_data.h"
#include "export.h"
#include "report_cells.h"
#include "report_snapshot.h"
#include "stackview.h"
#include "units.h"
#include "utf8.h"
#include "xalloc.h"

static const char *category_label(cg_category c)
{
	return c == CG_CAT_BASELINE ? "before profiling" : cg_category_name(c);
}

static const char *dev_name(const cg_timeline *tl, uint32_t d)
{
	return cg_timeline_str(tl, tl->devices[d].name);
}

void cg_report_figure(cg_doc *d, const cg_chart_list *charts, const cg_timeline *tl, const char *kind, uint32_t dev)
{
	(void)tl;
	if (!charts)
		return;
	/* By kind and device: two devices may have names with one file-name
	 * form, and each has files of its own (cg_chart_device_slugs). */
	for (size_t i = 0; i < charts->n; i++) {
		const cg_chart_file *f = &charts->items[i];
		if (f->device != dev || !f->kind || strcmp(f->kind, kind) != 0)
			continue;
		if (f->skipped)
			cg_doc_note(d, "%s: not drawn (%s).", f->title, f->skipped);
		else
			cg_doc_figure(d, f->name, f->title);
	}
}

/* --- the top of the report -------------------------------------------------- */

static void callouts(cg_doc *d, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	if (tl->source.truncated)
		cg_doc_callout(d, "The trace was cut off: %s. Everything below is as of the last complete record.",
			       tl->source.truncation_note);
	for (size_t i = 0; i < tl->nooms && i < 3; i++) {
		cell t, b;
		cg_doc_callout(d, "Out of memory on %s at %s: an allocation of %s failed.",
			       dev_name(tl, tl->ooms[i].device), when(tl, t, tl->ooms[i].t_ns), bytes(b, tl->ooms[i].bytes));
	}
	if (tl->nooms > 3)
		cg_doc_note(d, "... and %zu more out-of-memory events.", tl->nooms - 3);
	uint32_t *order = cg_device_order(tl);
	for (uint32_t k = 0; a->end && k < a->end->ndevices && k < tl->ndevices; k++) {
		uint32_t dv = order[k];
		if (a->end->devices[dv].verdict)
			cg_doc_callout(d, "%s%s%s", tl->ndevices > 1 ? dev_name(tl, dv) : "", tl->ndevices > 1 ? ": " : "",
				       a->end->devices[dv].verdict);
	}
	cg_free(order);
	cg_report_snapshot_callouts(d, a);
}

/* Fragmentation in words: the recorded checkpoint nearest the peak, else
 * the allocator replay's estimate (not for a CPU, which has no caching allocator). */
static void fragmentation_cell(cell c, const cg_analysis *a, uint32_t dv)
{
	const cg_checkpoints_device *cp = &a->checkpoints->devices[dv];
	if (cp->nearest_peak != CG_NONE && cp->list[cp->nearest_peak].has_fragmentation) {
		const cg_checkpoint *k = &cp->list[cp->nearest_peak];
		cell res, t;
		snprintf(c, sizeof(cell), "%.1f %% of %s reserved (checkpoint at %s)", 100.0 * k->fragmentation,
			 bytes(res, k->reserved_bytes), when(a->tl, t, k->t_ns));
		return;
	}
	const cg_replay_device *r = &a->replay->devices[dv];
	if (r->available && strncmp(dev_name(a->tl, dv), "cpu", 3) != 0) {
		cell t;
		snprintf(c, sizeof(cell), "%.1f %% of %s (allocator replay, estimate)", 100.0 * r->standard.at_peak.frag_reserved,
			 bytes(t, r->standard.at_peak.reserved));
		return;
	}
	snprintf(c, sizeof(cell), "not recorded");
}

static void capacity_cell(cell c, const cg_analysis *a, uint32_t dv)
{
	const cg_checkpoints_device *cp = &a->checkpoints->devices[dv];
	const cg_checkpoint *k = NULL;
	if (cp->nearest_peak != CG_NONE && cp->list[cp->nearest_peak].has_capacity)
		k = &cp->list[cp->nearest_peak];
	for (uint32_t i = 0; !k && i < cp->count; i++)
		if (cp->list[i].has_capacity)
			k = &cp->list[i];
	if (!k) {
		snprintf(c, sizeof(cell), "not recorded");
		return;
	}
	char cap[32], head[32], t[32];
	snprintf(c, sizeof(cell), "%s capacity, %s headroom (at %s)", cg_fmt_bytes(cap, sizeof cap, k->capacity_bytes),
		 cg_fmt_bytes(head, sizeof head, k->free_bytes), cg_fmt_time(t, sizeof t, k->t_ns));
}

/* The devices a section shows: all of them when there are at most max,
 * else the max with the largest peaks; accelerators first, each group in
 * the trace's order (cg_device_order). A report about thousands of devices
 * stays readable; summary.json has them all. */
static uint32_t *select_devices(const cg_analysis *a, uint32_t max, uint32_t *n)
{
	uint32_t all = a->tl->ndevices;
	uint32_t *sel = cg_malloc((all ? all : 1) * sizeof *sel);
	for (uint32_t i = 0; i < all; i++)
		sel[i] = all > max ? a->peak->by_peak[i] : i;
	*n = all < max ? all : max;
	cg_device_order_sort(a->tl, sel, *n);
	return sel;
}

#define REPORT_KEY_DEVICES 8
#define REPORT_DETAIL_DEVICES 32
/* Rows of a ranking table on paper: the top few; the page says where the
 * rest are (issue 15: the report of a large trace in a handful of pages). */
#define PRINT_ROWS 5

/* The rows device dv's ranking tables print: fewer for a CPU beside an
 * accelerator, the secondary device of a GPU run, condensed on paper. */
static size_t print_rows(const cg_timeline *tl, uint32_t dv)
{
	if (!cg_device_is_cpu(tl, dv))
		return PRINT_ROWS;
	for (uint32_t i = 0; i < tl->ndevices; i++)
		if (!cg_device_is_cpu(tl, i))
			return 3;
	return PRINT_ROWS;
}

static void key_figures(cg_doc *d, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	uint32_t n;
	uint32_t *sel = select_devices(a, REPORT_KEY_DEVICES, &n);
	cg_doc_heading(d, 2, "Key figures");
	char align[REPORT_KEY_DEVICES + 2] = "k";
	for (uint32_t i = 0; i < n; i++)
		strcat(align, "r");
	cg_doc_table(d, n + 1, align);
	const char **row = cg_calloc(n + 1, sizeof *row);
	cell *cells = cg_calloc(n, sizeof *cells);
	/* One row per figure, one column per device. */
#define FIGURE(label, ...) \
	do { \
		row[0] = label; \
		for (uint32_t k = 0; k < n; k++) { \
			uint32_t dv = sel[k]; \
			const cg_peak_device *p = &a->peak->devices[dv]; \
			const cg_device *dev = &tl->devices[dv]; \
			char *c = cells[k]; \
			(void)p; \
			(void)dev; \
			__VA_ARGS__; \
			row[k + 1] = c; \
		} \
		cg_doc_row(d, row); \
	} while (0)
	FIGURE("", snprintf(c, sizeof(cell), "%s", dev_name(tl, dv)));
	FIGURE("peak", bytes_exact(c, p->peak_bytes));
	FIGURE("first reached at", {
		cell t;
		if (p->reached_times > 1)
			snprintf(c, sizeof(cell), "%s (reached %" PRIu32 " times)", when(tl, t, p->peak_t_ns), p->reached_times);
		else
			when(tl, c, p->peak_t_ns);
	});
	FIGURE("live at the peak", snprintf(c, sizeof(cell), "%" PRIu32 " allocations", p->live_at_peak));
	FIGURE("capacity and headroom", capacity_cell(c, a, dv));
	FIGURE("fragmentation", fragmentation_cell(c, a, dv));
	FIGURE("allocated before the trace", {
		cell b;
		snprintf(c, sizeof(cell), "%s in %" PRIu32 " frees", bytes(b, dev->preexisting_bytes), dev->preexisting_count);
	});
	if (tl->ndevices && a->peak) {
		bool any = false;
		for (uint32_t k = 0; k < n; k++)
			any |= tl->devices[sel[k]].baseline_bytes > 0;
		if (any)
			FIGURE("before profiling", bytes(c, dev->baseline_bytes));
	}
	FIGURE("never freed", {
		cell b, nb;
		snprintf(c, sizeof(cell), "%s in %s allocations", bytes(b, p->live_at_end), count(nb, p->live_count_at_end));
	});
	FIGURE("allocated in all", {
		cell b, na, nf;
		snprintf(c, sizeof(cell), "%s in %s allocations, %s frees", bytes(b, p->bytes_allocated),
			 count(na, p->allocations), count(nf, p->frees));
	});
#undef FIGURE
	cg_free(row);
	cg_free(cells);
	cg_free(sel);
	if (tl->ndevices > n)
		cg_doc_note(d, "The %" PRIu32 " devices with the largest peaks of %" PRIu32 "; summary.json has every device.",
			    n, tl->ndevices);
	cg_doc_note(d, "Peak: the largest live bytes after any memory record, in time order (PyTorch's \"Total Allocated\"). "
		       "Never freed: still live when the trace %s. Allocated before the trace: frees of memory the trace never "
		       "saw allocated, counted live from the start. docs/analysis.md defines every figure.",
		    tl->source.truncated ? "was cut off" : "ends");
}

/* --- per device -------------------------------------------------------------- */

/* Sorts keys[0..n) by size[key], largest first; among equals the order
 * they came in (a stable insertion sort: n is at most a dozen). */
static void by_bytes(int *keys, size_t n, const uint64_t *size)
{
	for (size_t i = 1; i < n; i++) {
		int k = keys[i];
		size_t j = i;
		for (; j > 0 && size[keys[j - 1]] < size[k]; j--)
			keys[j] = keys[j - 1];
		keys[j] = k;
	}
}

/* The whole stack of the peak's allocation, behind a one-line summary. */
static void peak_stack(cg_doc *d, const cg_timeline *tl, uint32_t span)
{
	if (!cg_stack_is_frames(tl) || span == CG_NONE)
		return;
	size_t n;
	const char **names = cg_stack_span_names(tl, span, &n);
	char *c = cg_stack_cell(names, n);
	cg_free(names);
	const char *body = strchr(c, '\n');
	if (body) {
		char head[96];
		snprintf(head, sizeof head, "The stack of that allocation, innermost first (%zu frames)", n);
		cg_doc_details(d, head, body + 1);
	}
	cg_free(c);
}

static void moment_of_peak(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts)
{
	const cg_timeline *tl = a->tl;
	const cg_peak_device *p = &a->peak->devices[dv];
	const cg_liveset_device *ls = &a->at_peak->devices[dv];
	cell b, t;
	if (p->peak_index != CG_NONE) {
		const cg_mem *m = &tl->mem[p->peak_index];
		char path[CG_SPAN_PATH_MAX + 8], where[CG_SPAN_PATH_MAX + 320] = "";
		cg_stack_span_text(tl, m->span, path, sizeof path);
		uint32_t mod = cg_stack_is_frames(tl) ? cg_stack_module(tl, m->span) : CG_NONE;
		if (mod != CG_NONE)
			snprintf(where, sizeof where, "%s, at %s", cg_timeline_str(tl, tl->spans[mod].name), path);
		cell mb;
		cg_doc_paragraph(d, "Live memory peaked at %s at %s, when %s of %s (%s, %s phase) was allocated in %s. "
				    "%" PRIu64 " allocations were live.",
				 bytes_exact(b, p->peak_bytes), when(tl, t, p->peak_t_ns), bytes(mb, m->bytes),
				 cg_timeline_mem_op(tl, m) ? cg_timeline_str(tl, cg_timeline_mem_op(tl, m)) : "an unnamed op",
				 category_label((cg_category)m->category), cg_phase_name(cg_timeline_mem_phase(tl, m)),
				 *where ? where : *path ? path : "no span", ls->count);
		peak_stack(d, tl, m->span);
	} else {
		cg_doc_paragraph(d, "Live memory was highest, %s, from the start: memory allocated before the trace.",
				 bytes_exact(b, p->peak_bytes));
	}
	cg_report_figure(d, charts, tl, "timeline", dv);

	cg_doc_heading(d, 3, "What was live at the peak");
	if (tl->source.categories_inferred)
		cg_doc_note(d, "This trace format records no categories: the categories below are inferred by cgmem "
			       "from when each block is allocated and freed (docs/pytorch-traces.md, \"Inferred "
			       "categories\"; --no-infer shows them as unknown).");
	else if (!tl->source.categories_known)
		cg_doc_note(d, "This trace format records no categories: live bytes are shown as unknown, apart from "
			       "memory allocated before profiling.");
	cg_doc_table(d, 4, "lrrr");
	ROW(d, tl->source.categories_inferred ? "category (inferred)" : "category", "bytes", "of the peak",
	    "allocations");
	int cats[CG_CAT_COUNT];
	for (int s = 0; s < CG_CAT_COUNT; s++)
		cats[s] = (int)cg_chart_stack_order[CG_CAT_COUNT - 1 - s];
	by_bytes(cats, CG_CAT_COUNT, ls->by_category);
	for (int s = 0; s < CG_CAT_COUNT; s++) {
		cg_category c = (cg_category)cats[s];
		if (!ls->by_category[c])
			continue;
		cell cb, cp, cc;
		ROW(d, category_label(c), bytes(cb, ls->by_category[c]), percent(cp, ls->by_category[c], ls->bytes),
		    c == CG_CAT_BASELINE ? "" : count(cc, ls->count_by_category[c]));
	}
	if (ls->listed) {
		cg_doc_table(d, 3, "lrr");
		ROW(d, "phase that allocated it", "bytes", "of the peak");
		int phases[CG_PHASE_COUNT + 1];
		for (int ph = CG_PHASE_FORWARD; ph <= CG_PHASE_COUNT; ph++)
			phases[ph - CG_PHASE_FORWARD] = ph == CG_PHASE_COUNT ? CG_PHASE_NONE : ph;
		int nphases = CG_PHASE_COUNT + 1 - CG_PHASE_FORWARD;
		by_bytes(phases, (size_t)nphases, ls->by_phase);
		for (int k = 0; k < nphases; k++) {
			int phase = phases[k];
			if (!ls->by_phase[phase])
				continue;
			cell cb, cp;
			ROW(d, phase == CG_PHASE_NONE ? "no phase" : cg_phase_name((cg_phase)phase),
			    bytes(cb, ls->by_phase[phase]), percent(cp, ls->by_phase[phase], ls->bytes));
		}
	}
	cg_report_figure(d, charts, tl, "breakdown", dv);
}

static int cmp_own(const void *x, const void *y)
{
	const cg_pathnode *a = *(const cg_pathnode *const *)x, *b = *(const cg_pathnode *const *)y;
	if (a->own_bytes != b->own_bytes)
		return a->own_bytes > b->own_bytes ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The path of a node of the span-path tree as a cell: names from the root
 * down joined by '/' (ending in "…" when longer than CG_SPAN_PATH_MAX), or
 * for stacks of frames cg_stack_cell's. Caller frees. */
static char *node_path(const cg_timeline *tl, const cg_pathtree *t, uint32_t i)
{
	size_t depth = 0;
	for (uint32_t k = i; k != CG_NONE && t->nodes[k].kind != CG_PATHNODE_ROOT; k = t->nodes[k].parent)
		depth++;
	const char **names = cg_malloc((depth ? depth : 1) * sizeof *names);
	size_t n = depth;
	for (uint32_t k = i; k != CG_NONE && t->nodes[k].kind != CG_PATHNODE_ROOT; k = t->nodes[k].parent) {
		const cg_pathnode *nd = &t->nodes[k];
		names[--n] = nd->kind == CG_PATHNODE_BEFORE_TRACE	? "(allocated before the trace)"
			     : nd->kind == CG_PATHNODE_BEFORE_PROFILING ? "(before profiling)"
									: cg_timeline_str(tl, nd->name);
	}
	char *s;
	if (cg_stack_is_frames(tl)) {
		s = cg_stack_cell(names, depth);
	} else {
		size_t len = 0;
		s = cg_malloc(CG_SPAN_PATH_MAX + 4);
		s[0] = '\0';
		for (size_t k = 0; k < depth; k++) {
			size_t add = strlen(names[k]) + (k + 1 < depth);
			if (len + add > CG_SPAN_PATH_MAX) {
				size_t keep = cg_utf8_prefix(names[k], strlen(names[k]), CG_SPAN_PATH_MAX - len);
				memcpy(s + len, names[k], keep);
				memcpy(s + len + keep, "\xe2\x80\xa6", 4);
				break;
			}
			len += (size_t)snprintf(s + len, CG_SPAN_PATH_MAX + 4 - len, "%s%s", names[k], k + 1 < depth ? "/" : "");
		}
	}
	cg_free(names);
	return s;
}

static void where_allocated(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts)
{
	const cg_timeline *tl = a->tl;
	const cg_pathtree *t = a->peak_trees && dv < a->peak_trees->ntrees ? &a->peak_trees->trees[dv] : NULL;
	if (!t || !t->nnodes)
		return;
	cg_doc_heading(d, 3, "Where the peak was allocated");
	const cg_pathnode **own = cg_malloc(t->nnodes * sizeof *own);
	size_t n = 0;
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].own_bytes)
			own[n++] = &t->nodes[i];
	qsort(own, n, sizeof *own, cmp_own);
	uint64_t total = t->nodes[0].total_bytes;
	bool frames = cg_stack_is_frames(tl);
	cg_doc_table(d, 4, frames ? "srrr" : "prrr");
	ROW(d, frames ? "stack, innermost first (frames of one name under one parent merged)"
		      : "span path (spans of one name under one parent merged)",
	    "bytes", "of the peak", "allocations");
	cg_doc_table_print_rows(d, print_rows(tl, dv), "summary.json's span_tree_at_peak");
	for (size_t k = 0; k < n && k < 15; k++) {
		char *path = node_path(tl, t, (uint32_t)(own[k] - t->nodes));
		cell b, p, c;
		ROW(d, *path ? path : "(outside any span)", bytes(b, own[k]->own_bytes), percent(p, own[k]->own_bytes, total),
		    count(c, own[k]->own_count));
		cg_free(path);
	}
	if (n > 15)
		cg_doc_note(d, "The 15 largest of %zu paths; summary.json has them all.", n);
	cg_free(own);
	cg_report_figure(d, charts, tl, "icicle", dv);
}

static void largest_at_peak(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_peak->devices[dv];
	cg_doc_heading(d, 3, "Largest allocations live at the peak");
	if (!ls->listed) {
		cg_doc_paragraph(d, "Not available: the frees in this trace cannot be matched to their allocations.");
		return;
	}
	size_t top = a->options.top_n < ls->nallocs ? a->options.top_n : ls->nallocs;
	bool frames = cg_stack_is_frames(tl);
	cg_doc_table(d, 8, frames ? "rkkkkrrs" : "rkkkkrrp");
	ROW(d, "bytes", "category", "phase", "op", "shape, dtype", "allocated at", "freed at",
	    frames ? "where: module \xc2\xb7 stack, innermost first" : "span path");
	cg_doc_table_print_rows(d, print_rows(tl, dv), "summary.json's at_peak.top");
	for (size_t k = 0; k < top; k++) {
		const cg_live_alloc *la = &ls->allocs[k];
		cell b, at, fr, sh;
		char *path = NULL;
		const char *op = "", *phase = cg_phase_name(cg_live_alloc_phase(tl, la));
		if (la->alloc != CG_NONE) {
			const cg_mem *m = &tl->mem[la->alloc];
			char shape[96];
			cg_timeline_shape_format(tl, cg_timeline_mem_shape(tl, m), shape, sizeof shape);
			const char *dt = cg_timeline_mem_dtype(tl, m) ? cg_timeline_str(tl, tl->dtypes[cg_timeline_mem_dtype(tl, m)].name) : "";
			snprintf(sh, sizeof sh, "%s%s%s", cg_timeline_mem_shape(tl, m) ? shape : "?", *dt ? " " : "", dt);
			op = cg_timeline_mem_op(tl, m) ? cg_timeline_str(tl, cg_timeline_mem_op(tl, m)) : "?";
			path = cg_stack_span_cell(tl, m->span);
			when(tl, at, m->t_ns);
		} else {
			snprintf(sh, sizeof sh, "?");
			snprintf(at, sizeof at, "before the trace");
		}
		if (la->end == CG_NONE)
			snprintf(fr, sizeof fr, "never");
		else
			when(tl, fr, tl->mem[la->end].t_ns);
		ROW(d, bytes(b, la->bytes), category_label(cg_live_alloc_category(tl, la)), phase, op, sh, at, fr,
		    path ? path : "");
		cg_free(path);
	}
	if (top < ls->nallocs)
		cg_doc_note(d, "The %zu largest of %zu (--top sets how many).", top, ls->nallocs);
	cg_report_figure(d, charts, tl, "top_allocations", dv);
}

static void steps_and_phases(cg_doc *d, const cg_analysis *a, uint32_t dv)
{
	const cg_timeline *tl = a->tl;
	const cg_overtime_device *o = &a->overtime->devices[dv];
	if (!o->timed)
		return;
	bool phases = false;
	for (int ph = CG_PHASE_FORWARD; ph < CG_PHASE_COUNT; ph++)
		phases |= o->phases[ph].ran;
	if (o->nsteps) {
		cg_doc_heading(d, 3, "Steps");
		cg_doc_table(d, 6, "lrrrrr");
		ROW(d, a->steps->label ? a->steps->label : "step", "started at", "live at its start", "peak while it ran",
		    "live at its end", "growth");
		for (uint32_t k = 0; k < o->nsteps; k++) {
			const cg_step_stats *s = &o->steps[k];
			char name[256];
			snprintf(name, sizeof name, "%s", cg_timeline_str(tl, tl->spans[a->steps->steps[k].span].name));
			cell st, ls, pk, le, gr;
			ROW(d, name, when(tl, st, a->steps->steps[k].start_ns), bytes(ls, s->live_at_start),
			    bytes(pk, s->peak_bytes), bytes(le, s->live_at_end), cg_fmt_bytes_signed(gr, sizeof gr, s->growth));
		}
	}
	if (phases) {
		cg_doc_heading(d, 3, "Phases");
		cg_doc_table(d, 4, "lrrr");
		ROW(d, "phase", "peak while it ran", "allocated in it", "freed in it");
		for (int ph = CG_PHASE_FORWARD; ph < CG_PHASE_COUNT; ph++) {
			const cg_phase_stats *s = &o->phases[ph];
			if (!s->ran)
				continue;
			cell pk, al, fr;
			ROW(d, cg_phase_name((cg_phase)ph), bytes(pk, s->peak_bytes), bytes(al, s->allocated_bytes),
			    bytes(fr, s->freed_bytes));
		}
	}
}

static void fragmentation(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts)
{
	const cg_timeline *tl = a->tl;
	const cg_checkpoints_device *cp = &a->checkpoints->devices[dv];
	const cg_replay_device *r = &a->replay->devices[dv];
	bool cpu = strncmp(dev_name(tl, dv), "cpu", 3) == 0;
	if (!cp->count && (!r->available || cpu))
		return;
	cg_doc_heading(d, 3, "Fragmentation and the allocator");
	if (cp->max_fragmentation != CG_NONE) {
		const cg_checkpoint *k = &cp->list[cp->max_fragmentation];
		cell res, live, t;
		cg_doc_paragraph(d, "The allocator held %s reserved for %s live at %s: %.1f %% of what it reserved was not in "
				    "use, the most at any of the %" PRIu32 " checkpoints.",
				 bytes(res, k->reserved_bytes), bytes(live, k->live_bytes), when(tl, t, k->t_ns),
				 100.0 * k->fragmentation, cp->count);
	} else if (cp->count) {
		cg_doc_paragraph(d, "%" PRIu32 " device checkpoints, without the allocator's reserved bytes.", cp->count);
	}
	if (r->available && !cpu) {
		cell s, e, sv;
		int64_t saved = r->saved_bytes;
		cg_doc_paragraph(d, "A replay of this allocation sequence through a model of PyTorch's caching allocator "
				    "(an estimate) reserves at most %s; with expandable_segments:True it would reserve %s, "
				    "%s %s. At the peak, %.1f %% of the reserved bytes are not live and the largest free block "
				    "is %.1f %% short of all free memory.",
				 bytes(s, r->standard.peak_reserved), bytes(e, r->expandable.peak_reserved),
				 saved >= 0 ? "saving" : "costing", bytes(sv, (uint64_t)(saved >= 0 ? saved : -saved)),
				 100.0 * r->standard.at_peak.frag_reserved, 100.0 * r->standard.at_peak.frag_largest);
	}
	cg_report_figure(d, charts, tl, "fragmentation", dv);
}

static void leaks(cg_doc *d, const cg_analysis *a, uint32_t dv)
{
	const cg_timeline *tl = a->tl;
	const cg_leaks_device *l = &a->leaks->devices[dv];
	cg_doc_heading(d, 3, "Leak candidates");
	if (!l->available) {
		cg_doc_paragraph(d, "Not available: the frees in this trace cannot be matched to their allocations.");
		return;
	}
	if (!l->count) {
		cg_doc_paragraph(d, "None: everything live at the end is a parameter or optimizer state.");
		return;
	}
	cell b, c;
	cg_doc_paragraph(d, "%s in %s allocations are live at the end and are neither parameters nor optimizer state%s",
			 bytes(b, l->bytes), count(c, l->count),
			 l->leaking_steps > 1 ? ", and steps left memory behind:" : ".");
	if (l->leaking_steps > 1) {
		cg_doc_table(d, 3, "lrr");
		ROW(d, "step", "left live at the end", "allocations");
		for (uint32_t k = 0; k < l->nsteps; k++) {
			cell sb, sc;
			ROW(d, cg_timeline_str(tl, tl->spans[a->steps->steps[k].span].name), bytes(sb, l->step_bytes[k]),
			    count(sc, l->step_count[k]));
		}
	}
	bool frames = cg_stack_is_frames(tl);
	cg_doc_table(d, 5, frames ? "skkrr" : "pkkrr");
	ROW(d, frames ? "where: module \xc2\xb7 stack, innermost first" : "span path", "op", "category", "bytes",
	    "allocations");
	for (size_t k = 0; k < l->ngroups && k < a->options.top_n; k++) {
		const cg_leak_group *g = &l->groups[k];
		cell gb, gc;
		/* a group is one path: its first allocation's stack is the group's */
		char *path = frames && *g->path ? cg_stack_span_cell(tl, tl->mem[g->example].span) : NULL;
		ROW(d, path ? path : *g->path ? g->path : "(outside any span)", g->op ? cg_timeline_str(tl, g->op) : "?",
		    g->category < CG_CAT_COUNT ? category_label((cg_category)g->category) : "mixed", bytes(gb, g->bytes),
		    count(gc, g->count));
		cg_free(path);
	}
}

static void lifetimes(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts)
{
	const cg_lifetimes_device *l = &a->lifetimes->devices[dv];
	if (!l->available || !l->ended_count)
		return;
	cg_doc_heading(d, 3, "Lifetimes");
	cell e, eb, t, tb, n, nb;
	cg_doc_paragraph(d, "%s allocations (%s) were freed in the trace; %s of them (%s) were temporaries, freed before "
			    "the span that allocated them ended. %s (%s) were never freed.",
			 count(e, l->ended_count), bytes(eb, l->ended_bytes), count(t, l->temporaries_count),
			 bytes(tb, l->temporaries_bytes), count(n, l->never_freed_count), bytes(nb, l->never_freed_bytes));
	cg_report_figure(d, charts, a->tl, "lifetimes", dv);
}

static void end_of_trace(cg_doc *d, const cg_analysis *a, uint32_t dv)
{
	const cg_timeline *tl = a->tl;
	const cg_endtrace_device *e = &a->end->devices[dv];
	if (e->kind == CG_END_NO_RECORDS)
		return;
	cg_doc_heading(d, 3, "The end of the trace");
	cell t, b;
	if (e->verdict)
		cg_doc_paragraph(d, "%s", e->verdict);
	else
		cg_doc_paragraph(d, "The %s at %s, with %s live.",
				 e->kind == CG_END_OUT_OF_MEMORY ? "run ran out of memory" : "last memory record is",
				 when(tl, t, e->t_ns), bytes(b, e->live_bytes));
	if (!e->nlast)
		return;
	bool frames = cg_stack_is_frames(tl);
	cg_doc_table(d, 5, frames ? "rrkks" : "rrkkp");
	ROW(d, "at", "bytes", "op", "category", frames ? "where: module \xc2\xb7 stack, innermost first" : "span path");
	cg_doc_table_print_rows(d, print_rows(tl, dv), "summary.json's end.last_allocations");
	for (uint32_t k = 0; k < e->nlast && k < 10; k++) {
		const cg_mem *m = &tl->mem[e->last_allocs[k]];
		char *path = cg_stack_span_cell(tl, m->span);
		cell at, mb;
		ROW(d, when(tl, at, m->t_ns), bytes(mb, m->bytes), cg_timeline_mem_op(tl, m) ? cg_timeline_str(tl, cg_timeline_mem_op(tl, m)) : "?",
		    category_label((cg_category)m->category), path);
		cg_free(path);
	}
	cg_doc_note(d, "The last %" PRIu32 " allocations before the end, latest first.", e->nlast < 10 ? e->nlast : 10);
}

/* The explorer data of the devices with sections, per device (NULL:
 * none), when worked out ahead. */
struct cg_report_explorer {
	char **json;
	uint32_t ndevices;
};

static void device_blocks(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts, bool js,
			  cg_report_explorer *x);

/* Does device dv's section have explorer data (device_blocks)? */
static bool explored(const cg_analysis *a, uint32_t dv)
{
	return a->tl->devices[dv].mem_count || a->peak->devices[dv].initial_bytes;
}

static void device_sections(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts, bool js,
			    cg_report_explorer *x)
{
	const cg_timeline *tl = a->tl;
	size_t first = d->n;
	if (tl->ndevices > 1)
		cg_doc_heading(d, 2, "%s", dev_name(tl, dv));
	else
		cg_doc_heading(d, 2, "The peak");
	device_blocks(d, a, dv, charts, js, x);
	/* each device's sections are anchored under its name: the table of
	 * contents links "cuda-0-steps", not the second "steps" */
	for (size_t i = first + 1; tl->ndevices > 1 && i < d->n; i++)
		if (d->blocks[i].kind == CG_DOC_HEADING) {
			char *key = cg_asprintf("%s %s", dev_name(tl, dv), d->blocks[i].text);
			cg_doc_heading_key(d, i, key);
			cg_free(key);
		}
}

static void device_blocks(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts, bool js,
			  cg_report_explorer *x)
{
	if (!explored(a, dv)) {
		cg_doc_paragraph(d, "No memory records on this device.");
		cg_report_snapshot_section(d, a, dv, charts);
		if (js)
			cg_explore_segments(d, a, dv);
		return;
	}
	if (js && x && dv < x->ndevices && x->json[dv]) {
		cg_explore_device_take(d, x->json[dv]);
		x->json[dv] = NULL;
	} else if (js) {
		cg_explore_device(d, a, dv);
	}
	moment_of_peak(d, a, dv, charts);
	where_allocated(d, a, dv, charts);
	largest_at_peak(d, a, dv, charts);
	steps_and_phases(d, a, dv);
	fragmentation(d, a, dv, charts);
	cg_report_snapshot_section(d, a, dv, charts);
	if (js)
		cg_explore_segments(d, a, dv);
	leaks(d, a, dv);
	lifetimes(d, a, dv, charts);
	end_of_trace(d, a, dv);
}

/* --- run-wide sections ----------------------------------------------------------- */

static void gradients(cg_doc *d, const cg_analysis *a)
{
	const cg_gradients_result *g = a->gradients;
	if (!g || !g->records)
		return;
	const cg_timeline *tl = a->tl;
	cg_doc_heading(d, 2, "Gradients");
	cell r, p, ok, miss, z, nf;
	cg_doc_paragraph(d, "%s gradient records for %s parameters: %s present, %s missing, %s zero, %s non-finite.",
			 count(r, g->records), count(p, g->parameters), count(ok, g->by_state[CG_GRAD_PRESENT]),
			 count(miss, g->by_state[CG_GRAD_MISSING]), count(z, g->by_state[CG_GRAD_ZERO]),
			 count(nf, g->by_state[CG_GRAD_NON_FINITE] + g->non_finite_norms));
	if (!g->nproblems)
		return;
	cg_doc_table(d, 4, "llrr");
	ROW(d, "parameter", "root", "missing", "non-finite");
	for (size_t k = 0; k < g->nproblems && k < 20; k++) {
		const cg_gradient_problem *pr = &g->problems[k];
		cell m, n;
		ROW(d, cg_timeline_str(tl, pr->key), cg_timeline_str(tl, pr->root), count(m, pr->missing),
		    count(n, pr->non_finite));
	}
}

static void anomalies_section(cg_doc *d, const cg_timeline *tl)
{
	bool any = false;
	for (int k = 0; k < CG_ANOM_COUNT; k++)
		if (tl->anomalies[k].count)
			any = true;
	cg_doc_heading(d, 2, "Anomalies");
	if (!any) {
		cg_doc_paragraph(d, "None: every free matched a live allocation and every span was well formed.");
		return;
	}
	cg_doc_table(d, 3, "lrp");
	ROW(d, "what", "count", "first examples");
	for (int k = 0; k < CG_ANOM_COUNT; k++) {
		const cg_anomaly_stats *s = &tl->anomalies[k];
		if (!s->count)
			continue;
		char examples[1600] = "";
		size_t n = 0;
		for (uint32_t e = 0; e < s->nexamples && e < 3 && n < sizeof examples; e++)
			n += (size_t)snprintf(examples + n, sizeof examples - n, "%s%s", e ? "; " : "", s->examples[e]);
		cell c;
		ROW(d, cg_anomaly_description((cg_anomaly)k), count(c, s->count), examples);
	}
}

static void diagnostics_section(cg_doc *d, const cg_timeline *tl)
{
	const cg_source *s = &tl->source;
	if (!s->bad_lines && !s->warnings && !s->unknown_kinds && !s->unknown_categories)
		return;
	cg_doc_heading(d, 2, "Reading the trace");
	cell bad, warn;
	cg_doc_paragraph(d, "%s bad records were skipped; %s warnings. %" PRIu64 " records of unknown kinds and %" PRIu64
			    " unknown categories were counted.",
			 count(bad, s->bad_lines), count(warn, s->warnings), s->unknown_kinds, s->unknown_categories);
	cg_doc_table(d, 2, "rl");
	ROW(d, cg_timeline_position_word(tl), "message");
	for (size_t i = 0; i < s->ndiags && i < 20; i++) {
		char line[32];
		snprintf(line, sizeof line, "%" PRIu64, s->diags[i].line);
		ROW(d, s->diags[i].line ? line : "", s->diags[i].msg);
	}
	if (s->bad_lines + s->warnings > 20)
		cg_doc_note(d, "The first 20 are shown; summary.json lists the first %d.", CG_MAX_DIAGS);
}

static void run_section(cg_doc *d, const cg_timeline *tl)
{
	const cg_source *s = &tl->source;
	cell lines, size;
	cg_doc_heading(d, 2, "The run");
	bool jsonl = s->format && strncmp(s->format, "candle-graph", 12) == 0;
	if (!s->meta_seen && jsonl)
		cg_doc_note(d, "The trace has no meta record: its run metadata is unknown.");
	cg_doc_table(d, 2, "kl");
	ROW(d, "run", "value");
	cg_doc_table_print_rows(d, 2 * PRINT_ROWS, "summary.json's source and run");
	ROW(d, "trace", s->display_name ? s->display_name : "");
	char fmt[256];
	snprintf(fmt, sizeof fmt, "%s%s, %s, %s %ss", s->format ? s->format : "", s->gzip ? " (gzip)" : "",
		 bytes(size, s->data_bytes), count(lines, s->lines), cg_timeline_position_word(tl));
	ROW(d, "format", fmt);
	for (size_t i = 0; i < tl->nmeta; i++) {
		const char *v = cg_timeline_str(tl, tl->meta[i].value);
		char cut[310];
		size_t keep = cg_utf8_prefix(v, strlen(v), 300);
		snprintf(cut, sizeof cut, "%.*s%s", (int)keep, v, strlen(v) > keep ? "\xe2\x80\xa6" : "");
		ROW(d, cg_timeline_str(tl, tl->meta[i].key), cut);
	}
	cg_report_snapshot_run_rows(d, tl);
}

/* The export files (--formats folded, csv) in the list, written or not,
 * and a note when no chart was asked for. */
static void exports_section(cg_doc *d, const cg_chart_list *charts)
{
	size_t n = 0;
	for (size_t i = 0; charts && i < charts->n; i++) {
		const cg_chart_file *f = &charts->items[i];
		if (f->kind && strcmp(f->kind, CG_EXPORT_NO_CHARTS) == 0)
			cg_doc_note(d, "No charts were drawn: %s.", f->skipped);
		if (!f->kind || strcmp(f->kind, CG_EXPORT_KIND) != 0)
			continue;
		if (n++ == 0) {
			cg_doc_heading(d, 2, "Exported files");
			cg_doc_table(d, 2, "kl");
			ROW(d, "file", "contents");
		}
		char what[600];
		snprintf(what, sizeof what, "%s%s%s", f->title, f->skipped ? " \xe2\x80\x94 not written: " : "",
			 f->skipped ? f->skipped : "");
		ROW(d, f->name, what);
	}
	if (n)
		cg_doc_note(d, "docs/exports.md describes the folded stacks and the CSV columns.");
}

static cg_doc *build(const cg_analysis *a, const cg_chart_list *charts, bool js, cg_report_explorer *x)
{
	const cg_timeline *tl = a->tl;
	char run[256], title[320];
	cg_chart_run_name(tl, run, sizeof run);
	snprintf(title, sizeof title, "Memory report \xe2\x80\x94 %s", run);
	cg_doc *d = cg_doc_new(title);
	if (js)
		cg_explore_script(d);
	if (charts)
		cg_doc_set_png_suffix(d, charts->png_suffix);
	char sub[1024];
	cg_chart_run_subtitle(tl, sub, sizeof sub);
	if (*sub)
		cg_doc_note(d, "%s", sub);
	cg_report_snapshot_header(d, tl);
	callouts(d, a);
	key_figures(d, a);
	exports_section(d, charts);
	uint32_t ndetail;
	uint32_t *detail = select_devices(a, REPORT_DETAIL_DEVICES, &ndetail);
	for (uint32_t k = 0; k < ndetail; k++)
		device_sections(d, a, detail[k], charts, js, x);
	if (tl->ndevices > ndetail)
		cg_doc_note(d, "Sections for the %" PRIu32 " devices with the largest peaks; the other %" PRIu32
			       " are in summary.json.", ndetail, tl->ndevices - ndetail);
	cg_free(detail);
	gradients(d, a);
	anomalies_section(d, tl);
	diagnostics_section(d, tl);
	run_section(d, tl);
	cg_doc_note(d, "Written by cgmem %s. summary.json holds every figure as data; trace.json.gz opens in "
		       "Perfetto or chrome://tracing.", CGMEM_VERSION);
	return d;
}

cg_doc *cg_report_build(const cg_analysis *a, const cg_chart_list *charts)
{
	return build(a, charts, false, NULL);
}

int cg_report_write(cg_outdir *od, const cg_analysis *a, const cg_chart_list *charts, bool html, bool js,
		    cg_error *err)
{
	cg_doc *d = build(a, charts, html && js, NULL);
	int rc = cg_doc_save(d, od, "report", html, err);
	cg_doc_free(d);
	return rc;
}

cg_report_explorer *cg_report_explorer_new(const cg_analysis *a)
{
	cg_report_explorer *x = cg_calloc(1, sizeof *x);
	x->ndevices = a->tl->ndevices;
	x->json = cg_calloc(x->ndevices ? x->ndevices : 1, sizeof *x->json);
	uint32_t ndetail;
	uint32_t *detail = select_devices(a, REPORT_DETAIL_DEVICES, &ndetail);
	for (uint32_t k = 0; k < ndetail; k++)
		if (explored(a, detail[k]))
			x->json[detail[k]] = cg_explore_device_json(a, detail[k]);
	cg_free(detail);
	return x;
}

void cg_report_explorer_free(cg_report_explorer *x)
{
	if (!x)
		return;
	for (uint32_t d = 0; d < x->ndevices; d++)
		cg_free(x->json[d]);
	cg_free(x->json);
	cg_free(x);
}

int cg_report_write_ahead(cg_outdir *od, const cg_analysis *a, const cg_chart_list *charts, bool html,
			  cg_report_explorer *x, cg_error *err)
{
	cg_doc *d = build(a, charts, html, x);
	int rc = cg_doc_save(d, od, "report", html, err);
	cg_doc_free(d);
	return rc;
}

bool cg_report_owns_name(const char *name)
{
	static const char *const own[] = {"summary.json", "report.md", "report.html", CG_OUTDIR_MANIFEST};
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	size_t n = strlen(name);
	return (n >= 4 && (strcmp(name + n - 4, ".png") == 0 || strcmp(name + n - 4, ".svg") == 0 ||
			   strcmp(name + n - 4, ".pdf") == 0 || strcmp(name + n - 4, ".csv") == 0)) ||
	       (n >= 7 && strcmp(name + n - 7, ".folded") == 0);
}
