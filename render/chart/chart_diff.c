#include "chart_draw.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "xalloc.h"

static const char *const side_words[2] = {"base", "new"};

/* "+64 B", "−1.50 MiB" (a true minus, as on the axis), "0 B" */
static char *fmt_change(char *buf, size_t size, cg_diff_pair p)
{
	char b[32];
	bool grew;
	uint64_t m = cg_diff_magnitude(p, &grew);
	snprintf(buf, size, "%s%s", m == 0 ? "" : grew ? "+" : "\xe2\x88\x92", cg_fmt_bytes(b, sizeof b, m));
	return buf;
}

/* "+39.0 %", "−12.5 %", or "" when base is 0 */
static char *fmt_percent(char *buf, size_t size, cg_diff_pair p)
{
	double pct;
	if (!cg_diff_percent(p, &pct))
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "%s%.1f %%", pct < 0 ? "\xe2\x88\x92" : "+", pct < 0 ? -pct : pct);
	return buf;
}

static void run_names(const cg_diff_view *v, char names[2][256])
{
	for (int s = 0; s < 2; s++)
		cg_chart_run_name(v->run[s]->tl, names[s], 256);
}

/* ---- chart 1: the two timelines ------------------------------------------------ */

typedef struct series {
	bool present;
	uint64_t *max; /* per column: the largest live bytes entering it or inside it */
	uint64_t peak;
	double peak_at; /* on the common axis */
} series;

typedef struct tl_layout {
	cg_rect plot;
	cg_ticks y;
	size_t ncols;
} tl_layout;

static double tx(const tl_layout *l, double at)
{
	return l->plot.x0 + (l->plot.x1 - l->plot.x0) * at;
}

static double ty(const tl_layout *l, double bytes)
{
	return l->plot.y1 - (l->plot.y1 - l->plot.y0) * bytes / l->y.max;
}

static size_t column_at(double at, size_t ncols)
{
	if (!(at > 0))
		return 0;
	size_t c = (size_t)(at * (double)ncols);
	return c < ncols ? c : ncols - 1;
}

/* One pass over the device's records: each column keeps the largest live
 * bytes among the state entering it and those after its records, so the
 * drawn maximum is the peak however narrow it is. */
static void gather(series *s, const cg_diff_view *v, int side, uint32_t d, size_t ncols)
{
	const cg_timeline *tl = v->run[side]->tl;
	const cg_device *dev = &tl->devices[d];
	s->present = true;
	s->peak = v->run[side]->peak->devices[d].peak_bytes;
	s->peak_at = cg_align_at(v->align, side, v->run[side]->peak->devices[d].peak_t_ns);
	s->max = cg_calloc(ncols, sizeof *s->max);
	uint64_t live = cg_device_initial_live(dev);
	size_t cur = 0;
	s->max[0] = live;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		size_t c = column_at(cg_align_at(v->align, side, tl->mem[i].t_ns), ncols);
		while (cur < c)
			s->max[++cur] = live;
		live = cg_timeline_live_after(tl, i, live);
		if (live > s->max[c])
			s->max[c] = live;
	}
	while (cur + 1 < ncols)
		s->max[++cur] = live;
}

/* The top edge of a series, left to right, as a step line. */
static void trace_top(cg_chart *c, const tl_layout *l, const series *s)
{
	double w = (l->plot.x1 - l->plot.x0) / (double)l->ncols;
	for (size_t k = 0; k < l->ncols; k++) {
		double y = ty(l, (double)s->max[k]), x0 = l->plot.x0 + (double)k * w;
		if (k == 0)
			cairo_move_to(c->cr, x0, y);
		else
			cairo_line_to(c->cr, x0, y);
		cairo_line_to(c->cr, x0 + w, y);
	}
}

static void draw_series(cg_chart *c, const tl_layout *l, const series s[2])
{
	cairo_save(c->cr);
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_MITER);
	if (s[0].present) {
		cairo_new_path(c->cr);
		trace_top(c, l, &s[0]);
		cairo_line_to(c->cr, l->plot.x1, l->plot.y1);
		cairo_line_to(c->cr, l->plot.x0, l->plot.y1);
		cairo_close_path(c->cr);
		cg_chart_color(c, CG_DIFF_BASE_FILL);
		cairo_fill(c->cr);
		cairo_new_path(c->cr);
		trace_top(c, l, &s[0]);
		cairo_set_line_width(c->cr, 1.5);
		cg_chart_color(c, CG_DIFF_BASE_LINE);
		cairo_stroke(c->cr);
	}
	if (s[1].present) {
		cairo_new_path(c->cr);
		trace_top(c, l, &s[1]);
		cairo_set_line_width(c->cr, 2);
		cg_chart_color(c, CG_DIFF_NEW_LINE);
		cairo_stroke(c->cr);
	}
	cairo_restore(c->cr);
}

static void draw_axes(cg_chart *c, const tl_layout *l, const cg_alignment *al)
{
	char buf[32], title[96];
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = 0; i < l->y.count; i++) {
		double y = ty(l, i * l->y.step);
		if (i > 0)
			cg_chart_hline(c, l->plot.x0, l->plot.x1, y, CG_GRID);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, l->plot.x0 - 8, y + 5, CG_RIGHT, cg_ticks_label(&l->y, i, buf, sizeof buf));
	}
	snprintf(title, sizeof title, "live memory (%s)", l->y.unit);
	cairo_save(c->cr);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cairo_translate(c->cr, CG_MARGIN + 10, (l->plot.y0 + l->plot.y1) / 2);
	cairo_rotate(c->cr, -M_PI / 2);
	cg_chart_text(c, 0, 0, CG_CENTER, title);
	cairo_restore(c->cr);

	cg_chart_hline(c, l->plot.x0, l->plot.x1, l->plot.y1, CG_AXES);
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = 0; i <= 10; i++) {
		double x = tx(l, i / 10.0);
		cg_chart_vline(c, x, l->plot.y1, l->plot.y1 + 5, CG_AXES);
		snprintf(buf, sizeof buf, "%d", i * 10);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, l->plot.y1 + 22, CG_CENTER, buf);
	}
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, (l->plot.x0 + l->plot.x1) / 2, l->plot.y1 + 50, CG_CENTER,
		      al->mode == CG_ALIGN_PHASES && (al->steps_matched || al->matched)
			      ? "progress through each run (%), phase boundaries aligned"
			      : "progress through each run (% of its duration)");
}

/* Each run's phase windows in a lane above the plot, on the common axis. */
static void draw_lanes(cg_chart *c, const tl_layout *l, const cg_alignment *al, const series s[2])
{
	static const char *const words[CG_PHASE_COUNT] = {"", "forward", "backward", "optimizer"};
	static const char *const shorts[CG_PHASE_COUNT] = {"", "fwd", "bwd", "opt"};
	const double h = 20;
	for (int side = 0; side < 2; side++) {
		double y = l->plot.y0 - (side == 0 ? 62 : 40);
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_color(c, CG_FOOTNOTE);
		cg_chart_text(c, l->plot.x0 - 10, y + 15, CG_RIGHT, side_words[side]);
		if (!s[side].present || !al->nwindows[side])
			continue;
		cg_chart_box(c, l->plot.x0, y, l->plot.x1 - l->plot.x0, h, cg_chart_lane_color(CG_PHASE_NONE));
		for (uint32_t k = 0; k < al->nwindows[side]; k++) {
			const cg_align_window *w = &al->windows[side][k];
			double x0 = tx(l, cg_align_at(al, side, w->start_ns)), x1 = tx(l, cg_align_at(al, side, w->end_ns));
			double width = x1 - x0 - 1;
			cg_rgb fill = cg_chart_lane_color((cg_phase)w->phase);
			if (al->mode == CG_ALIGN_PHASES && !w->matched) /* halfway to white */
				fill = (cg_rgb){(fill.r + 1) / 2, (fill.g + 1) / 2, (fill.b + 1) / 2};
			cg_chart_box(c, x0 + 0.5, y, width > 0.5 ? width : 0.5, h, fill);
			const char *label = width >= cg_chart_text_width(c, words[w->phase]) + 6 ? words[w->phase]
											  : shorts[w->phase];
			if (width >= cg_chart_text_width(c, label) + 6) {
				cg_chart_color(c, CG_INK);
				cg_chart_text(c, (x0 + x1) / 2, y + 15, CG_CENTER, label);
			}
		}
	}
}

static void ring(cg_chart *c, double x, double y, unsigned color)
{
	cairo_new_path(c->cr);
	cairo_arc(c->cr, x, y, 6.5, 0, 2 * M_PI);
	cg_chart_color(c, 0xFFFFFF);
	cairo_fill(c->cr);
	cairo_arc(c->cr, x, y, 4.5, 0, 2 * M_PI);
	cg_chart_color(c, color);
	cairo_fill(c->cr);
}

typedef struct label_box {
	double x, y, w, h; /* y: top */
} label_box;

static bool overlap(const label_box *a, const label_box *b)
{
	return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* The highest point (smallest y) of either series between x0 and x1. */
static double data_top(const tl_layout *l, const series s[2], double x0, double x1)
{
	double w = (l->plot.x1 - l->plot.x0) / (double)l->ncols, top = l->plot.y1;
	for (int side = 0; side < 2; side++) {
		if (!s[side].present)
			continue;
		for (double x = x0; x <= x1 + w; x += w) {
			size_t k = column_at((x - l->plot.x0) / (l->plot.x1 - l->plot.x0), l->ncols);
			double y = ty(l, (double)s[side].max[k]);
			if (y < top)
				top = y;
		}
	}
	return top;
}

/* Where a peak's label goes: just above its ring, right of it (left when
 * that leaves the plot or covers more), raised above any data under it
 * and clear of the other label. */
static label_box place_label(cg_chart *c, const tl_layout *l, const series s[2], double x, double y, const char *text,
			     const label_box *avoid)
{
	cg_chart_font(c, CG_TYPE_LABEL, true);
	double w = cg_chart_text_width(c, text) + 8, h = CG_TYPE_LABEL + 8;
	label_box best = {0, 0, 0, 0};
	double best_raise = -1;
	for (int k = 0; k < 2; k++) {
		label_box b = {k == 0 ? x + 10 : x - 10 - w, y - 12 - CG_TYPE_LABEL - 4, w, h};
		if (b.x + b.w > l->plot.x1)
			b.x = l->plot.x1 - b.w;
		if (b.x < l->plot.x0)
			b.x = l->plot.x0;
		double top = data_top(l, s, b.x, b.x + b.w);
		if (b.y + b.h > top - 2)
			b.y = top - 2 - b.h;
		if (avoid && overlap(&b, avoid))
			b.y = avoid->y - 4 - b.h;
		double raise = (y - 12 - CG_TYPE_LABEL - 4) - b.y;
		if (b.y < l->plot.y0 - 4)
			continue;
		if (best_raise < 0 || raise < best_raise) {
			best = b;
			best_raise = raise;
		}
	}
	if (best_raise < 0) /* no room: the default place */
		best = (label_box){x + 10 > l->plot.x1 - w ? x - 10 - w : x + 10, y - 12 - CG_TYPE_LABEL - 4, w, h};
	return best;
}

static void draw_label(cg_chart *c, const label_box *b, const char *text, unsigned color)
{
	cg_chart_box(c, b->x, b->y, b->w, b->h, cg_rgb_hex(0xFFFFFF));
	cg_chart_font(c, CG_TYPE_LABEL, true);
	cg_chart_color(c, color);
	cg_chart_text(c, b->x + 4, b->y + CG_TYPE_LABEL + 1, CG_LEFT, text);
}

static void draw_peaks(cg_chart *c, const tl_layout *l, const series s[2], const cg_diff_device *dev)
{
	char text[2][128], b[32], pct[32], chg[32];
	unsigned colors[2] = {CG_DIFF_BASE_LINE, CG_DIFF_NEW_LINE};
	snprintf(text[0], sizeof text[0], "base peak %s", cg_fmt_bytes(b, sizeof b, s[0].peak));
	fmt_percent(pct, sizeof pct, dev->peak);
	snprintf(text[1], sizeof text[1], "new peak %s (%s%s%s)", cg_fmt_bytes(b, sizeof b, s[1].peak),
		 fmt_change(chg, sizeof chg, dev->peak), *pct ? ", " : "", pct);
	if (!s[0].present || !s[1].present)
		snprintf(text[1], sizeof text[1], "new peak %s", cg_fmt_bytes(b, sizeof b, s[1].peak));
	/* the higher peak's label first, above it */
	int first = s[1].present && (!s[0].present || s[1].peak >= s[0].peak) ? 1 : 0;
	label_box boxes[2];
	const label_box *avoid = NULL;
	for (int k = 0; k < 2; k++) {
		int side = k == 0 ? first : 1 - first;
		if (!s[side].present || s[side].peak == 0)
			continue;
		double x = tx(l, s[side].peak_at), y = ty(l, (double)s[side].peak);
		ring(c, x, y, colors[side]);
		boxes[side] = place_label(c, l, s, x, y, text[side], avoid);
		if (boxes[side].y + boxes[side].h < y - 12) { /* raised: a leader to the ring */
			cairo_save(c->cr);
			cairo_set_line_width(c->cr, 1);
			cg_chart_color(c, colors[side]);
			double bx = x < boxes[side].x ? boxes[side].x : x > boxes[side].x + boxes[side].w
										 ? boxes[side].x + boxes[side].w : x;
			cairo_move_to(c->cr, x, y - 7);
			cairo_line_to(c->cr, bx, boxes[side].y + boxes[side].h);
			cairo_stroke(c->cr);
			cairo_restore(c->cr);
		}
		draw_label(c, &boxes[side], text[side], side == 0 ? CG_SECONDARY : CG_DIFF_NEW_LINE);
		avoid = &boxes[side];
	}
}

static double legend_row(cg_chart *c, double x, double y, double width, unsigned color, bool line,
			 const char *name, const char *value)
{
	if (line) {
		cairo_save(c->cr);
		cairo_set_line_width(c->cr, 2.5);
		cg_chart_color(c, color);
		cairo_move_to(c->cr, x, y - 6);
		cairo_line_to(c->cr, x + 16, y - 6);
		cairo_stroke(c->cr);
		cairo_restore(c->cr);
	} else {
		cg_chart_box(c, x, y - 13, 16, 14, cg_rgb_hex(color));
	}
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_INK);
	char *n = cg_chart_elide(c, name, width - 24, false, 1);
	if (n)
		cg_chart_text(c, x + 24, y, CG_LEFT, n);
	cg_free(n);
	if (value) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x + width, y + 20, CG_RIGHT, value);
	}
	return y + (value ? 48 : 26);
}

static void draw_legend(cg_chart *c, const tl_layout *l, const cg_diff_view *v, const series s[2],
			const cg_diff_device *dev)
{
	double x = l->plot.x1 + 28, width = c->width - CG_MARGIN - x, y = l->plot.y0 + 4;
	char label[64], value[96], b[32], pct[32];
	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, x, y, CG_LEFT, "run, peak");
	y += 27;
	for (int side = 0; side < 2; side++) {
		/* the runs' names are in the subtitle: the legend has no room for them */
		snprintf(label, sizeof label, "%s run", side_words[side]);
		if (s[side].present)
			cg_fmt_bytes(value, sizeof value, s[side].peak);
		else
			snprintf(value, sizeof value, "not in this run");
		y = legend_row(c, x, y, width, side == 0 ? CG_DIFF_BASE_FILL : CG_DIFF_NEW_LINE, side == 1, label, value);
	}
	if (s[0].present && s[1].present) {
		fmt_percent(pct, sizeof pct, dev->peak);
		snprintf(value, sizeof value, "%s%s%s", fmt_change(b, sizeof b, dev->peak), *pct ? ", " : "", pct);
		cg_chart_font(c, CG_TYPE_SMALL, true);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, y + 4, CG_LEFT, "change of the peak");
		cg_chart_font(c, CG_TYPE_LABEL, true);
		cg_chart_color(c, CG_INK);
		cg_chart_text(c, x, y + 28, CG_LEFT, value);
		y += 56;
	}
	bool phases[CG_PHASE_COUNT] = {false};
	bool any = false;
	for (int side = 0; side < 2; side++)
		for (uint32_t k = 0; k < v->align->nwindows[side]; k++)
			phases[v->align->windows[side][k].phase] = any = true;
	if (any) {
		cg_chart_font(c, CG_TYPE_SMALL, true);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, y + 4, CG_LEFT, "phase");
		y += 31;
		for (int p = CG_PHASE_FORWARD; p < CG_PHASE_COUNT; p++) {
			if (!phases[p])
				continue;
			cg_rgb col = cg_chart_lane_color((cg_phase)p);
			unsigned hex = (unsigned)lround(col.r * 255) << 16 | (unsigned)lround(col.g * 255) << 8 |
				       (unsigned)lround(col.b * 255);
			y = legend_row(c, x, y, width, hex, false, cg_phase_name((cg_phase)p), NULL);
		}
	}
}

void cg_chart_diff_timeline(cg_chart *c, const cg_diff_view *v, size_t i)
{
	const cg_diff_device *dev = &v->diff->devices[i];
	tl_layout l;
	l.plot = (cg_rect){118, 160, c->width - 314, c->height - 92};
	c->plot = l.plot;
	l.ncols = (size_t)lround((l.plot.x1 - l.plot.x0) * c->scale);
	if (l.ncols < 1)
		l.ncols = 1;
	series s[2] = {{0}, {0}};
	for (int side = 0; side < 2; side++)
		if (dev->index[side] != CG_NONE)
			gather(&s[side], v, side, dev->index[side], l.ncols);
	double top = (double)(s[0].peak > s[1].peak ? s[0].peak : s[1].peak);
	cg_ticks_bytes(&l.y, top, 10);
	/* room above the higher peak for two labels */
	while (ty(&l, top) - l.plot.y0 < 2 * (CG_TYPE_LABEL + 14) && l.y.count < 40)
		cg_ticks_grow(&l.y);
	c->x_max = 1;
	c->y_max = l.y.max;

	char names[2][256], title[400], subtitle[600], footnote[1200];
	run_names(v, names);
	snprintf(title, sizeof title, "Live memory, base vs new \xe2\x80\x94 %s", dev->name);
	snprintf(subtitle, sizeof subtitle, "base %s  \xe2\x86\x92  new %s", names[0], names[1]);
	const cg_alignment *al = v->align;
	size_t n;
	if (al->mode == CG_ALIGN_PHASES && al->steps_matched == 0 && al->matched == 0)
		n = (size_t)snprintf(footnote, sizeof footnote,
				     "x: each run's time over its duration (no steps or phases in common to align)");
	else if (al->mode == CG_ALIGN_PHASES)
		n = (size_t)snprintf(footnote, sizeof footnote,
				     "x: each run's time with %" PRIu32 " steps and %" PRIu32 " of %" PRIu32 " / %" PRIu32
				     " phase windows aligned (paler: unmatched)",
				     al->steps_matched, al->matched, al->nwindows[0], al->nwindows[1]);
	else
		n = (size_t)snprintf(footnote, sizeof footnote, "x: each run's time over its duration");
	for (int side = 0; side < 2 && n < sizeof footnote; side++) {
		char t[32];
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 %s %s ends at %s", side_words[side],
				      cg_chart_source_name(v->run[side]->tl),
				      cg_timeline_fmt_time(v->run[side]->tl, t, sizeof t, v->run[side]->tl->last_t_ns));
		if (v->run[side]->tl->source.truncated && n < sizeof footnote)
			n += (size_t)snprintf(footnote + n, sizeof footnote - n, " (cut off)");
	}
	cg_chart_frame(c, title, subtitle, footnote);
	draw_axes(c, &l, al);
	draw_series(c, &l, s);
	if (al->nwindows[0] || al->nwindows[1]) /* no empty lanes */
		draw_lanes(c, &l, al, s);
	draw_peaks(c, &l, s, dev);
	draw_legend(c, &l, v, s, dev);
	for (int side = 0; side < 2; side++)
		cg_free(s[side].max);
}

/* ---- chart 2: the change at the peak ----------------------------------------- */

typedef struct row {
	char *label;	  /* NULL for a header */
	const char *head; /* a header's text */
	cg_diff_pair p;
} row;

typedef struct rows {
	row *items;
	size_t n, cap;
} rows;

static void add_row(rows *r, const char *label, const char *head, cg_diff_pair p)
{
	CG_GROW(r->items, r->cap, r->n + 1);
	r->items[r->n++] = (row){label ? cg_strdup(label) : NULL, head, p};
}

/* Span paths shown: those whose own bytes changed, largest change first. */
#define MAX_SPAN_ROWS 12

static void build_rows(rows *r, const cg_diff_view *v, const cg_diff_device *dev)
{
	add_row(r, NULL, "by category (live bytes at the peak)", (cg_diff_pair){{0, 0}});
	/* changed categories, largest change first, then the unchanged ones */
	int order[CG_CAT_COUNT], n = 0;
	for (int c = 0; c < CG_CAT_COUNT; c++)
		if (dev->by_category[c].v[0] || dev->by_category[c].v[1])
			order[n++] = c;
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0; b--) {
			uint64_t x = cg_diff_magnitude(dev->by_category[order[b]], NULL);
			uint64_t y = cg_diff_magnitude(dev->by_category[order[b - 1]], NULL);
			if (x <= y)
				break;
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	for (int k = 0; k < n; k++)
		add_row(r, order[k] == CG_CAT_BASELINE ? "before profiling" : cg_category_name((cg_category)order[k]),
			NULL, dev->by_category[order[k]]);
	if (!dev->listed) {
		add_row(r, NULL, "by span path: not known (the frees of a run could not be paired)", (cg_diff_pair){{0, 0}});
		return;
	}
	add_row(r, NULL, "by span path (bytes allocated directly in it, live at the peak)", (cg_diff_pair){{0, 0}});
	char path[CG_SPAN_PATH_MAX];
	size_t shown = 0;
	for (uint32_t k = 0; k < dev->nchanged && shown < MAX_SPAN_ROWS; k++) {
		const cg_diff_node *node = &dev->nodes[dev->changed[k]];
		if (!cg_diff_changed(node->own))
			continue;
		cg_diff_path(v->diff, node->path, path, sizeof path);
		add_row(r, node->path == 0 ? "(outside any span)" : path, NULL, node->own);
		shown++;
	}
	if (shown == 0)
		add_row(r, NULL, "   no span path changed", (cg_diff_pair){{0, 0}});
}

typedef struct bar_layout {
	double label_x0, label_x1; /* the label column */
	double zero, half;	   /* x of zero; pixels for ticks.max */
	double top, row_h;
	cg_ticks x;
} bar_layout;

static double bx(const bar_layout *l, double signed_bytes)
{
	return l->zero + l->half * signed_bytes / l->x.max;
}

static void draw_bar_axis(cg_chart *c, const bar_layout *l, double bottom)
{
	char buf[48], num[32];
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = -(l->x.count - 1); i <= l->x.count - 1; i++) {
		double x = bx(l, i * l->x.step);
		cg_chart_vline(c, x, l->top, bottom, i == 0 ? CG_AXES : CG_GRID);
		cg_ticks_label(&l->x, i < 0 ? -i : i, num, sizeof num);
		snprintf(buf, sizeof buf, "%s%s", i < 0 ? "\xe2\x88\x92" : i > 0 ? "+" : "", num);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, bottom + 22, CG_CENTER, buf);
	}
	char title[96];
	snprintf(title, sizeof title, "change at the peak, new \xe2\x88\x92 base (%s)", l->x.unit);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_text(c, l->zero, bottom + 50, CG_CENTER, title);
}

static void draw_row(cg_chart *c, const bar_layout *l, const row *r, double y)
{
	double mid = y + l->row_h / 2;
	if (!r->label) {
		cg_chart_font(c, CG_TYPE_SMALL, true);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, l->label_x0, mid + 6, CG_LEFT, r->head);
		return;
	}
	char values[96], b0[32], b1[32], chg[48];
	snprintf(values, sizeof values, "%s \xe2\x86\x92 %s", cg_fmt_bytes(b0, sizeof b0, r->p.v[0]),
		 cg_fmt_bytes(b1, sizeof b1, r->p.v[1]));
	cg_chart_font(c, CG_TYPE_SMALL, false);
	double vw = cg_chart_text_width(c, values);
	cg_chart_color(c, CG_FOOTNOTE);
	cg_chart_text(c, l->label_x1, mid + 5, CG_RIGHT, values);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_INK);
	char *name = cg_chart_elide(c, r->label, l->label_x1 - l->label_x0 - 16 - vw - 14, true, 1);
	if (name)
		cg_chart_text(c, l->label_x0 + 16, mid + 6, CG_LEFT, name);
	cg_free(name);

	bool grew;
	uint64_t m = cg_diff_magnitude(r->p, &grew);
	double h = l->row_h * 0.62;
	fmt_change(chg, sizeof chg, r->p);
	cg_chart_font(c, CG_TYPE_SMALL, true);
	if (m == 0) {
		cg_chart_color(c, CG_FOOTNOTE);
		cg_chart_text(c, l->zero + 6, mid + 5, CG_LEFT, chg);
		return;
	}
	double x1 = bx(l, grew ? (double)m : -(double)m);
	double x0 = l->zero;
	if (fabs(x1 - x0) < 1)
		x1 = grew ? x0 + 1 : x0 - 1; /* a change too small for a pixel still shows */
	unsigned color = grew ? CG_DIFF_GREW : CG_DIFF_SHRANK;
	cg_chart_box(c, x0 < x1 ? x0 : x1, mid - h / 2, fabs(x1 - x0), h, cg_rgb_hex(color));
	cg_chart_color(c, color);
	cg_chart_text(c, grew ? x1 + 6 : x1 - 6, mid + 5, grew ? CG_LEFT : CG_RIGHT, chg);
}

void cg_chart_diff_change(cg_chart *c, const cg_diff_view *v, size_t i)
{
	const cg_diff_device *dev = &v->diff->devices[i];
	rows r = {0};
	build_rows(&r, v, dev);
	uint64_t most = 0;
	for (size_t k = 0; k < r.n; k++) {
		uint64_t m = r.items[k].label ? cg_diff_magnitude(r.items[k].p, NULL) : 0;
		if (m > most)
			most = m;
	}
	bar_layout l;
	l.label_x0 = CG_MARGIN;
	l.label_x1 = CG_MARGIN + 0.36 * (c->width - 2 * CG_MARGIN);
	double bars_x0 = l.label_x1 + 24, bars_x1 = c->width - CG_MARGIN;
	const double pad = 100; /* room for the value beside the longest bar */
	l.zero = (bars_x0 + bars_x1) / 2;
	l.half = (bars_x1 - bars_x0) / 2 - pad;
	cg_ticks_bytes(&l.x, (double)most, 4);
	l.top = 150;
	double bottom = c->height - 92;
	l.row_h = (bottom - l.top) / (double)r.n;
	if (l.row_h > 40)
		l.row_h = 40;
	bottom = l.top + l.row_h * (double)r.n;
	c->plot = (cg_rect){l.zero - l.half, l.top, l.zero + l.half, bottom};
	c->x_max = l.x.max;
	c->y_max = 0;

	char names[2][256], title[400], subtitle[700], b0[32], b1[32], chg[48], pct[32];
	run_names(v, names);
	snprintf(title, sizeof title, "Change at the peak \xe2\x80\x94 %s", dev->name);
	fmt_percent(pct, sizeof pct, dev->peak);
	snprintf(subtitle, sizeof subtitle, "base %s \xe2\x86\x92 new %s: peak %s \xe2\x86\x92 %s (%s%s%s)", names[0],
		 names[1], cg_fmt_bytes(b0, sizeof b0, dev->peak.v[0]), cg_fmt_bytes(b1, sizeof b1, dev->peak.v[1]),
		 fmt_change(chg, sizeof chg, dev->peak), *pct ? ", " : "", pct);
	cg_chart_frame(c, title, subtitle,
		       "Bars: new minus base, at each run's own peak. Span paths by the bytes allocated directly in "
		       "them; steps written as their label (train_step#*).");
	/* the legend of the two colours, top right */
	cg_chart_font(c, CG_TYPE_SMALL, false);
	double lx = bars_x1 - cg_chart_text_width(c, "shrank in new") - 22;
	cg_chart_box(c, lx, 108, 14, 14, cg_rgb_hex(CG_DIFF_SHRANK));
	cg_chart_color(c, CG_INK);
	cg_chart_text(c, lx + 20, 120, CG_LEFT, "shrank in new");
	lx -= cg_chart_text_width(c, "grew in new") + 46;
	cg_chart_box(c, lx, 108, 14, 14, cg_rgb_hex(CG_DIFF_GREW));
	cg_chart_color(c, CG_INK);
	cg_chart_text(c, lx + 20, 120, CG_LEFT, "grew in new");

	draw_bar_axis(c, &l, bottom);
	for (size_t k = 0; k < r.n; k++) {
		if (k > 0 && !r.items[k].label)
			cg_chart_hline(c, l.label_x0, bars_x1, l.top + l.row_h * (double)k, CG_GRID);
		draw_row(c, &l, &r.items[k], l.top + l.row_h * (double)k);
	}
	if (most == 0) {
		cg_chart_font(c, CG_TYPE_LABEL, true);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, l.zero, l.top - 14, CG_CENTER, "no change at the peak");
	}
	for (size_t k = 0; k < r.n; k++)
		cg_free(r.items[k].label);
	cg_free(r.items);
}

/* ---- files ------------------------------------------------------------------------- */

/* A chart of one device of the diff, as cg_charts_render draws it. */
typedef struct diff_chart {
	void (*draw)(cg_chart *c, const cg_diff_view *v, size_t device);
	const cg_diff_view *v;
	size_t device;
} diff_chart;

static void draw_diff_chart(cg_chart *c, const void *ctx)
{
	const diff_chart *dc = ctx;
	dc->draw(c, dc->v, dc->device);
}

static int render(cg_outdir *od, const cg_charts_options *o, const char *name,
		  void (*draw)(cg_chart *c, const cg_diff_view *v, size_t device), const cg_diff_view *v,
		  size_t device, cg_error *err)
{
	diff_chart dc = {draw, v, device};
	return cg_charts_render(od, o, NULL, name, draw_diff_chart, &dc, err);
}

int cg_diff_charts_write(cg_outdir *od, const cg_diff_view *v, const cg_charts_options *o, cg_chart_list *out,
			 cg_error *err)
{
	cg_charts_options def = CG_CHARTS_OPTIONS_INIT;
	if (!o)
		o = &def;
	/* Device names that differ only in characters a file name cannot
	 * hold ("cuda:0", "cuda-0") must not share files. */
	size_t ndev = v->diff->ndevices;
	const char **names = cg_calloc(ndev ? ndev : 1, sizeof *names);
	for (size_t i = 0; i < ndev; i++)
		names[i] = v->diff->devices[i].name;
	char **slugs = cg_chart_device_slugs(names, ndev);
	cg_free(names);
	int rc = 0;
	for (size_t i = 0; i < ndev && rc == 0; i++) {
		const cg_diff_device *dev = &v->diff->devices[i];
		const char *safe = slugs[i];
		char name[CG_CHART_SLUG_MAX + 64], title[300];
		snprintf(name, sizeof name, "diff_timeline.%s", safe);
		snprintf(title, sizeof title, "Live memory of both runs on %s", dev->name);
		rc = render(od, o, name, cg_chart_diff_timeline, v, i, err);
		if (rc < 0)
			break;
		cg_chart_list_add(out, name, title, NULL);
		snprintf(name, sizeof name, "diff_change.%s", safe);
		snprintf(title, sizeof title, "Change at the peak on %s, by category and span path", dev->name);
		if (dev->index[0] == CG_NONE || dev->index[1] == CG_NONE) {
			cg_chart_list_add(out, name, title, dev->index[0] == CG_NONE ? "the device is only in the new run"
									     : "the device is only in the base run");
			continue;
		}
		rc = render(od, o, name, cg_chart_diff_change, v, i, err);
		if (rc == 0)
			cg_chart_list_add(out, name, title, NULL);
	}
	cg_chart_slugs_free(slugs, ndev);
	return rc;
}
