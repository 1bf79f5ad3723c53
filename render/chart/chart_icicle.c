/* Chart 3: the bytes live at a device's peak by the span path that
 * allocated them, as an icicle (a flame graph hanging down): one row per
 * depth of the span tree, each box as wide as its bytes, children in time
 * order under their parent, coloured by phase. */
#include "chart_draw.h"

#include <stdio.h>
#include <string.h>

#include "frames.h"
#include "units.h"
#include "xalloc.h"

/* "Nearly all" of the peak: the chart starts at the deepest node whose
 * subtree leaves out at most 1/NEARLY_DIVISOR (1 %, rounded down to a byte)
 * of the bytes it would otherwise show; what it leaves out is said in the
 * subtitle. A real Python stack keeps 0.1 % beside a 45-frame chain; without
 * this the chain fills the chart. */
#define NEARLY_DIVISOR 100

/* Rows are at most this tall and at least this tall before deeper levels
 * are left out; 2 px between rows. */
#define ROW_MAX 72.0
#define ROW_MIN 18.0
#define ROW_GAP 2.0
#define MIXED_COLOR 0xBBBBBB

static bool has_spans(const cg_pathtree *t)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == CG_PATHNODE_SPAN && t->nodes[i].total_bytes)
			return true;
	return false;
}

const char *cg_chart_icicle_skip(const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	if (tl->devices[d].mem_count == 0)
		return "no memory records on this device";
	const cg_pathtree *t = &a->peak_trees->trees[d];
	if (t->nnodes == 0)
		return "which span allocated the live memory needs frees paired with allocations, which this "
		       "trace does not allow";
	if (t->nodes[0].total_bytes == 0)
		return "nothing is live at the peak";
	if (!has_spans(t))
		return "the memory live at the peak was allocated outside any span: nothing to nest";
	return NULL;
}

/* What the icicle shows: the subtree of `first`, leaving out `skip`.
 *
 * Memory allocated before profiling (a GPU's weights and caches, known only
 * from the allocator's totals) is left out when it is most of the peak: it
 * has no span, and the spans' boxes would be slivers beside it.
 *
 * A chain of nodes that each hand all their bytes to a single child (the
 * synthetic root above a run span; forty Python frames above a model's
 * forward) would fill the rows with full-width boxes saying nothing: the
 * chart starts at the deepest node that holds nearly all of the bytes
 * (NEARLY_DIVISOR), and names the chain above it in one line. Below it,
 * each chain of single children is one box ("a › b › … › z (k frames)"). */
typedef struct view {
	uint32_t first, skip;
	uint64_t total;	   /* bytes across the full width */
	uint64_t baseline; /* left out */
	uint64_t outside;  /* bytes outside first's subtree, left out (< 1 %) */
	uint32_t folded;   /* spans of the chain above first */
} view;

/* The child of p holding all its total bytes (none of its own), if any. */
static uint32_t sole_heir(const cg_pathtree *t, uint32_t p, uint32_t skip, uint64_t total)
{
	if (t->nodes[p].own_bytes)
		return CG_NONE;
	uint32_t only = CG_NONE;
	for (uint32_t i = p + 1; i < t->nodes[p].subtree_end; i = t->nodes[i].subtree_end) {
		if (i == skip || t->nodes[i].total_bytes == 0)
			continue;
		if (only != CG_NONE)
			return CG_NONE;
		only = i;
	}
	return only != CG_NONE && t->nodes[only].total_bytes == total ? only : CG_NONE;
}

/* The child of p, but skip, with the most bytes; CG_NONE without one. */
static uint32_t largest_child(const cg_pathtree *t, uint32_t p, uint32_t skip)
{
	uint32_t best = CG_NONE;
	for (uint32_t i = p + 1; i < t->nodes[p].subtree_end; i = t->nodes[i].subtree_end)
		if (i != skip && t->nodes[i].total_bytes && (best == CG_NONE || t->nodes[i].total_bytes > t->nodes[best].total_bytes))
			best = i;
	return best;
}

static view choose_view(const cg_pathtree *t)
{
	view v = {0, CG_NONE, t->nodes[0].total_bytes, 0, 0, 0};
	for (uint32_t i = 1; i < t->nnodes; i = t->nodes[i].subtree_end) {
		const cg_pathnode *n = &t->nodes[i];
		if (n->kind == CG_PATHNODE_BEFORE_PROFILING && n->total_bytes > v.total / 2 && n->total_bytes < v.total) {
			v.skip = i;
			v.baseline = n->total_bytes;
		}
	}
	v.total -= v.baseline;
	uint64_t all = v.total;
	for (uint32_t next; (next = largest_child(t, v.first, v.skip)) != CG_NONE; v.first = next) {
		uint64_t b = t->nodes[next].total_bytes;
		if (all - b > all / NEARLY_DIVISOR)
			break;
		if (t->nodes[v.first].kind == CG_PATHNODE_SPAN)
			v.folded++;
		v.total = b;
	}
	v.outside = all - v.total;
	return v;
}

/* The last node of the chain of single children that starts at i: each
 * hands all its bytes to its one child with bytes. *k: nodes in it. */
static uint32_t chain_end(const cg_pathtree *t, uint32_t i, uint32_t skip, uint32_t *k)
{
	*k = 1;
	for (uint32_t next; (next = sole_heir(t, i, skip, t->nodes[i].total_bytes)) != CG_NONE; i = next)
		++*k;
	return i;
}

/* "a › b › c", the spans above the first row, cut in the middle to fit. */
static void draw_chain(cg_chart *c, const cg_timeline *tl, const cg_pathtree *t, const view *v, double y)
{
	uint32_t chain[CG_PATHTREE_MAX_DEPTH + 1], n = 0;
	for (uint32_t p = t->nodes[v->first].parent; p != CG_NONE && n <= CG_PATHTREE_MAX_DEPTH; p = t->nodes[p].parent)
		if (t->nodes[p].kind == CG_PATHNODE_SPAN)
			chain[n++] = p;
	size_t cap = 256, len = 0;
	char *text = cg_malloc(cap);
	len = (size_t)snprintf(text, cap, "inside ");
	while (n-- > 0) {
		const char *name = cg_timeline_str(tl, t->nodes[chain[n]].name);
		size_t need = len + strlen(name) + 8;
		if (need > cap) {
			cap = need * 2;
			text = cg_realloc(text, cap);
		}
		len += (size_t)snprintf(text + len, cap - len, "%s%s", name, n ? " \xe2\x80\xba " : "");
	}
	if (v->folded > 1) {
		text = cg_realloc(text, len + 32);
		snprintf(text + len, 32, " (%u frames)", v->folded);
	}
	cg_chart_font(c, CG_TYPE_SMALL, false);
	cg_chart_color(c, CG_SECONDARY);
	char *fit = cg_chart_elide(c, text, c->width - 2 * CG_MARGIN, true, 3);
	if (fit)
		cg_chart_text(c, CG_MARGIN, y, CG_LEFT, fit);
	cg_free(fit);
	cg_free(text);
}

static const char *node_name(const cg_timeline *tl, const cg_pathnode *n)
{
	switch (n->kind) {
	case CG_PATHNODE_ROOT:
		return "all live memory";
	case CG_PATHNODE_BEFORE_TRACE:
		return "allocated before the trace";
	case CG_PATHNODE_BEFORE_PROFILING:
		return "before profiling";
	default:
		return cg_timeline_str(tl, n->name);
	}
}

/* Phase fills; spans of several phases merged into one node get a grey
 * of their own. */
static cg_rgb node_color(const cg_pathnode *n)
{
	return n->phase >= CG_PHASE_COUNT ? cg_rgb_hex(MIXED_COLOR) : cg_chart_phase_color((cg_phase)n->phase);
}

static void draw_labels(cg_chart *c, const char *label, uint64_t bytes, double x, double y, double w, double h,
			uint64_t total)
{
	if (h < ROW_MIN - ROW_GAP)
		return;
	double room = w - 14;
	cg_chart_font(c, 15, false);
	char *name = cg_chart_elide(c, label, room, true, 3);
	if (!name)
		return;
	bool two = h >= 44;
	cg_chart_color(c, CG_INK);
	cg_chart_text(c, x + 7, two ? y + 22 : y + h / 2 + 5, CG_LEFT, name);
	cg_free(name);
	if (!two)
		return;
	char b[32], pct[32], line[80];
	cg_fmt_bytes(b, sizeof b, bytes);
	cg_fmt_percent(pct, sizeof pct, (double)bytes / (double)total);
	snprintf(line, sizeof line, "%s \xc2\xb7 %s", b, pct);
	cg_chart_font(c, CG_TYPE_NOTE, false);
	cg_chart_color(c, 0x333333);
	if (cg_chart_text_width(c, line) <= room)
		cg_chart_text(c, x + 7, y + 40, CG_LEFT, line);
	else if (cg_chart_text_width(c, b) <= room)
		cg_chart_text(c, x + 7, y + 40, CG_LEFT, b);
}

typedef struct layout {
	cg_rect area;
	double pitch;
	uint32_t base_depth, rows;
} layout;

/* The label of the chain from i to its end (k nodes): "a", "a › b",
 * "a › b › z (3 frames)", "a › b › … › z (k frames)" ("spans" for a
 * trace without Python stacks). Caller frees. */
static char *chain_label(const cg_timeline *tl, const cg_pathtree *t, const view *v, uint32_t i, uint32_t end,
			 uint32_t k)
{
	const char *head = t->nodes[i].kind == CG_PATHNODE_ROOT && v->skip != CG_NONE ? "allocated in the trace"
										     : node_name(tl, &t->nodes[i]);
	if (k == 1)
		return cg_strdup(head);
	uint32_t second = sole_heir(t, i, v->skip, t->nodes[i].total_bytes);
	const char *b = node_name(tl, &t->nodes[second]), *z = node_name(tl, &t->nodes[end]);
	if (k == 2)
		return cg_asprintf("%s \xe2\x80\xba %s", head, b);
	return cg_asprintf("%s \xe2\x80\xba %s \xe2\x80\xba %s%s (%u %s)", head, b, k > 3 ? "\xe2\x80\xa6 \xe2\x80\xba " : "",
			   z, k, cg_stack_is_frames(tl) ? "frames" : "spans");
}

/* Pre-order walk: a node's box starts where its previous sibling's ended
 * (bytes summed per row, so positions are exact however many boxes);
 * a chain of single children is one box (chain_end), its children in the
 * next row; subtrees narrower than half a device pixel are skipped whole.
 * Draws when draw is set; returns the number of rows holding a visible box. */
static uint32_t walk(cg_chart *c, const cg_timeline *tl, const cg_pathtree *t, const view *v, const layout *l,
		     bool present[CG_PATHTREE_MIXED + 1], bool draw)
{
	uint64_t *cursor = cg_calloc((size_t)l->rows + 1, sizeof *cursor);
	/* row of each node of the subtree, by its index from first */
	uint32_t end = t->nodes[v->first].subtree_end, used = 0;
	uint32_t *rowof = cg_calloc((size_t)(end - v->first) + 1, sizeof *rowof);
	double width = l->area.x1 - l->area.x0, min_w = 0.5 / c->scale;
	for (uint32_t i = v->first; i < end;) {
		const cg_pathnode *n = &t->nodes[i];
		uint32_t row = i == v->first ? 0 : rowof[n->parent - v->first] + 1;
		if (row >= l->rows || n->total_bytes == 0 || i == v->skip) {
			i = n->subtree_end;
			continue;
		}
		uint64_t bytes = i == v->first ? v->total : n->total_bytes;
		uint64_t start = cursor[row];
		cursor[row] += bytes;
		cursor[row + 1] = start; /* its children start at its left edge */
		double x0 = l->area.x0 + width * (double)start / (double)v->total;
		double x1 = l->area.x0 + width * (double)cursor[row] / (double)v->total;
		if (x1 - x0 < min_w) {
			i = n->subtree_end;
			continue;
		}
		if (row + 1 > used)
			used = row + 1;
		uint32_t k, last = i == v->first ? i : chain_end(t, i, v->skip, &k);
		if (i == v->first)
			k = 1;
		rowof[last - v->first] = row;
		present[n->phase <= CG_PATHTREE_MIXED ? n->phase : CG_PATHTREE_MIXED] = true;
		if (draw) {
			double y = l->area.y0 + l->pitch * row, h = l->pitch - ROW_GAP;
			/* 1 px of white between siblings, once a box can spare it */
			double w = x1 - x0 >= 3 ? x1 - x0 - 1 : x1 - x0;
			cg_chart_box(c, x0, y, w, h, node_color(n));
			char *label = chain_label(tl, t, v, i, last, k);
			draw_labels(c, label, bytes, x0, y, w, h, v->total);
			cg_free(label);
		}
		/* the chain's nodes between i and last hold nothing else */
		i = last + 1;
	}
	cg_free(rowof);
	cg_free(cursor);
	return used;
}

void cg_chart_icicle(cg_chart *c, const cg_analysis *a, uint32_t d, const char *run_name)
{
	const cg_timeline *tl = a->tl;
	const cg_pathtree *t = &a->peak_trees->trees[d];
	const cg_peak_device *pk = &a->peak->devices[d];
	view v = choose_view(t);

	/* First measure: which rows and phases have a visible box. Widths
	 * alone decide that, so it comes before the vertical layout. */
	layout l;
	l.area = (cg_rect){CG_MARGIN, 0, c->width - CG_MARGIN, 0};
	l.base_depth = t->nodes[v.first].depth;
	l.rows = CG_PATHTREE_MAX_DEPTH + 1;
	l.pitch = 0;
	bool present[CG_PATHTREE_MIXED + 1] = {false};
	uint32_t rows = walk(c, tl, t, &v, &l, present, false);

	static const char *const names[CG_PATHTREE_MIXED + 1] = {"setup / no phase", "forward", "backward",
								   "optimizer", "mixed phases"};
	cg_legend_item items[CG_PATHTREE_MIXED + 1];
	size_t nitems = 0;
	for (int p = 0; p <= CG_PATHTREE_MIXED; p++)
		if (present[p])
			items[nitems++] = (cg_legend_item){p == CG_PATHTREE_MIXED ? cg_rgb_hex(MIXED_COLOR)
										: cg_chart_phase_color((cg_phase)p),
							   names[p]};
	double legend_w = cg_chart_legend_row(c, 0, 0, items, nitems, false);
	double inner = c->width - 2 * CG_MARGIN;
	/* Beside the subtitle when it leaves the subtitle most of the line,
	 * else on a line of its own. */
	bool own_line = legend_w > inner * 0.45;

	l.area.y0 = own_line ? 115 : 111;
	double chain_y = l.area.y0 + 10;
	if (v.folded)
		l.area.y0 += 26;
	l.area.y1 = c->height - 60;
	double avail = l.area.y1 - l.area.y0;
	l.rows = rows;
	l.pitch = avail / rows;
	if (l.pitch > ROW_MAX)
		l.pitch = ROW_MAX;
	if (l.pitch < ROW_MIN) {
		l.pitch = ROW_MIN;
		l.rows = (uint32_t)(avail / ROW_MIN);
	}
	l.area.y1 = l.area.y0 + l.pitch * l.rows;
	c->plot = l.area;
	c->x_max = (double)v.total;
	c->y_max = l.rows;

	char title[512], subtitle[512], footnote[600], bytes[32], when[32], all[32];
	cg_chart_title(c, title, sizeof title, "Where the peak was allocated", run_name, tl, d);
	cg_fmt_bytes(bytes, sizeof bytes, v.total);
	cg_timeline_fmt_time(tl, when, sizeof when, pk->peak_t_ns);
	char out[32], outpct[32];
	if (v.outside)
		snprintf(subtitle, sizeof subtitle, "%s of the %s live at %s, by the span path that allocated it (%s, %s, "
			 "allocated elsewhere left out); width \xe2\x88\x9d bytes", bytes,
			 cg_fmt_bytes(all, sizeof all, v.total + v.outside), when, cg_fmt_bytes(out, sizeof out, v.outside),
			 cg_fmt_percent(outpct, sizeof outpct, (double)v.outside / (double)(v.total + v.outside)));
	else if (v.skip == CG_NONE)
		snprintf(subtitle, sizeof subtitle, "%s live at %s, by the span path that allocated it; width \xe2\x88\x9d "
			 "bytes, children in time order", bytes, when);
	else
		snprintf(subtitle, sizeof subtitle, "%s allocated in the trace, of %s live at %s, by span path (the rest "
			 "was allocated before profiling); width \xe2\x88\x9d bytes", bytes,
			 cg_fmt_bytes(all, sizeof all, t->nodes[0].total_bytes), when);
	size_t n = (size_t)snprintf(footnote, sizeof footnote, "%s", cg_chart_source_name(tl));
	if (l.rows < rows && n < sizeof footnote)
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 %u deeper levels not shown",
				      rows - l.rows);
	if (n < sizeof footnote)
		snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 spans with the same name under the same parent "
			 "are merged; a chain of single children is one box \xc2\xb7 long names cut in the middle with \xe2\x80\x98\xe2\x80\xa6\xe2\x80\x99, "
			 "short ones at the end; boxes too narrow for 3 characters unlabelled");
	cg_chart_frame_narrow(c, title, subtitle, own_line ? inner : inner - legend_w - 30, footnote);
	cg_chart_legend_row(c, c->width - CG_MARGIN, own_line ? 96 : 70, items, nitems, true);
	if (v.folded)
		draw_chain(c, tl, t, &v, chain_y);
	walk(c, tl, t, &v, &l, present, true);
}
