/* Chart 4: the largest allocations live at a device's peak, one row each:
 * aligned columns for the op, the span, the shape and the dtype, then a bar
 * as long as its bytes in its category's colour. */
#include "chart_draw.h"

#include <stdio.h>
#include <string.h>

#include "units.h"
#include "xalloc.h"

#define TOP_N 15
#define ROW_MAX 48.0
#define ROW_MIN 22.0
#define GUTTER 26.0

enum { COL_OP, COL_SPAN, COL_SHAPE, COL_DTYPE, NCOLS };

static const char *const headers[NCOLS] = {"op", "span", "shape", "dtype"};
/* Widest a column may be before its entries are cut. */
static const double caps[NCOLS] = {260, 320, 200, 90};

typedef struct row {
	char text[NCOLS][160];
	uint64_t bytes;
	cg_category category;
} row;

static size_t rows_listed(const cg_liveset_device *ls)
{
	size_t n = 0;
	while (n < ls->nallocs && ls->allocs[n].bytes > 0)
		n++;
	return n;
}

const char *cg_chart_top_allocations_skip(const cg_analysis *a, uint32_t d)
{
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	if (a->tl->devices[d].mem_count == 0)
		return "no memory records on this device";
	if (!ls->listed)
		return "which allocations were live at the peak needs frees paired with allocations, which this "
		       "trace does not allow";
	if (rows_listed(ls) == 0)
		return ls->bytes ? "only memory from before profiling is live at the peak" : "nothing is live at the peak";
	return NULL;
}

/* A shape is "not recorded" when the trace left it empty for a tensor
 * bigger than one element (PyTorch 1.13 records no output shapes). */
static void shape_text(const cg_timeline *tl, const cg_mem *m, char *buf, size_t size)
{
	if (cg_timeline_shape_ndims(tl, cg_timeline_mem_shape(tl, m)) > 0) {
		cg_timeline_shape_format(tl, cg_timeline_mem_shape(tl, m), buf, size);
		return;
	}
	unsigned elem = tl->dtypes[cg_timeline_mem_dtype(tl, m)].size;
	snprintf(buf, size, "%s", elem && m->bytes <= elem ? "[]" : "?");
}

static void fill_row(const cg_timeline *tl, const cg_live_alloc *la, row *r)
{
	/* An allocation from before the trace is known from its free only. */
	const cg_mem *m = &tl->mem[la->alloc != CG_NONE ? la->alloc : la->end];
	r->bytes = la->bytes;
	r->category = cg_live_alloc_category(tl, la);
	if (la->alloc == CG_NONE) {
		snprintf(r->text[COL_OP], sizeof r->text[COL_OP], "?");
		snprintf(r->text[COL_SPAN], sizeof r->text[COL_SPAN], "before the trace");
	} else {
		snprintf(r->text[COL_OP], sizeof r->text[COL_OP], "%s", cg_timeline_mem_op(tl, m) ? cg_timeline_str(tl, cg_timeline_mem_op(tl, m)) : "?");
		uint32_t s = cg_chart_named_span(tl, m->span);
		snprintf(r->text[COL_SPAN], sizeof r->text[COL_SPAN], "%s",
			 s == CG_NONE ? "?" : cg_timeline_str(tl, tl->spans[s].name));
	}
	shape_text(tl, m, r->text[COL_SHAPE], sizeof r->text[COL_SHAPE]);
	snprintf(r->text[COL_DTYPE], sizeof r->text[COL_DTYPE], "%s", cg_timeline_mem_dtype(tl, m) ? cg_timeline_str(tl, tl->dtypes[cg_timeline_mem_dtype(tl, m)].name) : "?");
}

typedef struct layout {
	double col_x[NCOLS], col_w[NCOLS];
	double bar_x0, bar_x1, scale;
	double top, pitch;
	size_t n;
	uint64_t peak;
} layout;

/* Each column as wide as its widest entry (capped) plus a gutter; when
 * they would leave the bars less than 40 % of the width, all shrink alike. */
static void columns(cg_chart *c, layout *l, const row *rows)
{
	double sum = 0;
	for (int k = 0; k < NCOLS; k++) {
		cg_chart_font(c, CG_TYPE_SMALL, true);
		double w = cg_chart_text_width(c, headers[k]);
		cg_chart_font(c, CG_TYPE_LABEL, false);
		for (size_t i = 0; i < l->n; i++) {
			double tw = cg_chart_text_width(c, rows[i].text[k]);
			if (tw > w)
				w = tw;
		}
		l->col_w[k] = (w < caps[k] ? w : caps[k]) + GUTTER;
		sum += l->col_w[k];
	}
	/* Over budget, the widest columns give way first (one cap for all,
	 * found by filling the budget from the narrowest column up), so short
	 * shapes and dtypes stay whole while long op and span names are cut. */
	double budget = (c->width - 2 * CG_MARGIN) * 0.6;
	if (sum > budget) {
		double w[NCOLS], left = budget, cap = 0;
		memcpy(w, l->col_w, sizeof w);
		for (int i = 1; i < NCOLS; i++)
			for (int j = i; j > 0 && w[j - 1] > w[j]; j--) {
				double t = w[j];
				w[j] = w[j - 1];
				w[j - 1] = t;
			}
		for (int k = 0; k < NCOLS; k++) {
			cap = left / (NCOLS - k);
			if (w[k] > cap)
				break;
			left -= w[k];
			cap = w[k];
		}
		for (int k = 0; k < NCOLS; k++)
			if (l->col_w[k] > cap)
				l->col_w[k] = cap;
	}
	double x = CG_MARGIN;
	for (int k = 0; k < NCOLS; k++) {
		l->col_x[k] = x;
		x += l->col_w[k];
	}
	l->bar_x0 = x;
	l->bar_x1 = c->width - CG_MARGIN;
}

static void value_texts(const row *r, uint64_t peak, char *bytes, size_t bsize, char *pct, size_t psize)
{
	cg_fmt_bytes(bytes, bsize, r->bytes);
	cg_fmt_percent(pct, psize, peak ? (double)r->bytes / (double)peak : 0);
}

static double bar_scale(cg_chart *c, const layout *l, const row *rows)
{
	double s = -1;
	char bytes[32], pct[32];
	for (size_t i = 0; i < l->n; i++) {
		value_texts(&rows[i], l->peak, bytes, sizeof bytes, pct, sizeof pct);
		double room = l->bar_x1 - l->bar_x0 - 10 - cg_chart_value_label(c, 0, 0, bytes, pct, false);
		double rs = (room < 2 ? 2 : room) / (double)rows[i].bytes;
		if (s < 0 || rs < s)
			s = rs;
	}
	return s;
}

static void draw_rows(cg_chart *c, const layout *l, const row *rows)
{
	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_color(c, CG_FOOTNOTE);
	for (int k = 0; k < NCOLS; k++)
		cg_chart_text(c, l->col_x[k], l->top - 19, CG_LEFT, headers[k]);
	cg_chart_text(c, l->bar_x0, l->top - 19, CG_LEFT, "bytes live at the peak");
	cg_chart_hline(c, CG_MARGIN, c->width - CG_MARGIN, l->top - 7, 0xCCCCCC);
	for (size_t i = 0; i < l->n; i++) {
		const row *r = &rows[i];
		double y = l->top + l->pitch * (double)i, cy = y + l->pitch / 2;
		if (i % 2)
			cg_chart_box(c, CG_MARGIN - 8, y, c->width - 2 * CG_MARGIN + 16, l->pitch, cg_rgb_hex(0xF7F7F7));
		cg_chart_font(c, CG_TYPE_LABEL, false);
		for (int k = 0; k < NCOLS; k++) {
			cg_chart_color(c, k == COL_DTYPE ? CG_SECONDARY : CG_INK);
			char *t = cg_chart_elide(c, r->text[k], l->col_w[k] - GUTTER, true, 1);
			if (t)
				cg_chart_text(c, l->col_x[k], cy + 6, CG_LEFT, t);
			cg_free(t);
		}
		double len = (double)r->bytes * l->scale, h = l->pitch * 0.5;
		if (len < 2)
			len = 2;
		cg_chart_box(c, l->bar_x0, cy - h / 2, len, h, cg_chart_category_color(r->category));
		char bytes[32], pct[32];
		value_texts(r, l->peak, bytes, sizeof bytes, pct, sizeof pct);
		cg_chart_value_label(c, l->bar_x0 + len + 10, cy + 6, bytes, pct, true);
	}
	cg_chart_vline(c, l->bar_x0 - 1, l->top - 7, l->top + l->pitch * (double)l->n, CG_INK);
}

void cg_chart_top_allocations(cg_chart *c, const cg_analysis *a, uint32_t d, const char *run_name)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	const cg_peak_device *pk = &a->peak->devices[d];

	layout l;
	l.peak = ls->bytes;
	l.top = 138;
	double avail = c->height - 60 - l.top;
	size_t listed = rows_listed(ls);
	l.n = listed < TOP_N ? listed : TOP_N;
	if (avail / (double)l.n < ROW_MIN)
		l.n = (size_t)(avail / ROW_MIN);
	l.pitch = avail / (double)l.n;
	if (l.pitch > ROW_MAX)
		l.pitch = ROW_MAX;

	row rows[TOP_N];
	bool present[CG_CAT_COUNT] = {false};
	for (size_t i = 0; i < l.n; i++) {
		fill_row(tl, &ls->allocs[i], &rows[i]);
		present[rows[i].category] = true;
	}
	columns(c, &l, rows);
	l.scale = bar_scale(c, &l, rows);
	c->plot = (cg_rect){l.bar_x0, l.top, l.bar_x1, l.top + l.pitch * (double)l.n};
	c->x_max = (l.bar_x1 - l.bar_x0) / l.scale;
	c->y_max = (double)l.n;

	cg_legend_item items[CG_CAT_COUNT];
	size_t nitems = 0;
	for (int s = 0; s < CG_CAT_COUNT; s++)
		if (present[cg_chart_stack_order[s]])
			items[nitems++] = (cg_legend_item){cg_chart_category_color(cg_chart_stack_order[s]),
							   cg_chart_category_label(cg_chart_stack_order[s])};
	double inner = c->width - 2 * CG_MARGIN;
	double legend_w = cg_chart_legend_row(c, 0, 0, items, nitems, false);
	bool own_line = legend_w > inner * 0.45;

	char title[512], subtitle[512], footnote[512], count[32], when[32], peak[32];
	cg_chart_title(c, title, sizeof title, "Largest allocations live at the peak", run_name, tl, d);
	cg_fmt_count(count, sizeof count, ls->count);
	cg_timeline_fmt_time(tl, when, sizeof when, pk->peak_t_ns);
	cg_fmt_bytes(peak, sizeof peak, ls->bytes);
	if (l.n < ls->count)
		snprintf(subtitle, sizeof subtitle, "the %zu largest of %s allocations live at %s; colour = category; "
			 "%% of the %s peak", l.n, count, when, peak);
	else
		snprintf(subtitle, sizeof subtitle, "all %s allocations live at %s; colour = category; %% of the %s peak",
			 count, when, peak);
	snprintf(footnote, sizeof footnote, "%s \xc2\xb7 op = allocating op \xc2\xb7 span = nearest enclosing "
		 "function or module span \xc2\xb7 ? = not recorded", cg_chart_source_name(tl));
	cg_chart_frame_narrow(c, title, subtitle, own_line ? inner : inner - legend_w - 30, footnote);
	cg_chart_legend_row(c, c->width - CG_MARGIN, own_line ? 96 : 70, items, nitems, true);
	draw_rows(c, &l, rows);
}
