/* Chart 1: live memory of one device over time, stacked by category, with
 * the phases and steps above it, the peak marked, and the device's own
 * checkpoints (used, reserved, capacity) as lines. */
#include "chart_draw.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colseries.h"
#include "units.h"
#include "xalloc.h"

typedef struct column {
	uint64_t total;
	uint64_t by_cat[CG_CAT_COUNT];
} column;

typedef struct timeline_data {
	uint64_t t_end;	   /* right edge of the x axis, ns */
	size_t ncols;	   /* one per device pixel */
	column *cols;	   /* the state with the largest total in each column */
	column at_peak;	   /* by category at the first peak */
	bool occurs[CG_CAT_COUNT];
	uint64_t *returns; /* times live bytes came back up to the peak, after the first */
	size_t nreturns, returns_cap;
} timeline_data;

static void apply(const cg_timeline *tl, uint32_t i, column *st)
{
	cg_timeline_apply_live(tl, i, &st->total, st->by_cat);
}

/* One pass over the device's records: each pixel column keeps the state
 * with the largest total among the state entering it and those inside it,
 * so a 1-ns spike still reaches its height and the drawn maximum is the
 * peak. O(records + columns). */
static void gather(timeline_data *td, const cg_timeline *tl, const cg_device *dev, const cg_peak_device *p)
{
	column st = {0};
	st.total = cg_device_initial_live(dev);
	memcpy(st.by_cat, dev->initial_by_cat, sizeof st.by_cat);
	if (p->peak_index == CG_NONE)
		td->at_peak = st;
	for (int cat = 0; cat < CG_CAT_COUNT; cat++)
		td->occurs[cat] = st.by_cat[cat] != 0;
	size_t cur = 0;
	td->cols[0] = st;
	cg_columns cols;
	cg_columns_init(&cols, td->ncols, td->t_end);
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		size_t c = cg_columns_of(&cols, tl->mem[i].t_ns);
		while (cur < c)
			td->cols[++cur] = st; /* the state entering each column */
		uint64_t before = st.total;
		apply(tl, i, &st);
		if (tl->mem[i].bytes)
			td->occurs[tl->mem[i].category] = true;
		if (st.total > td->cols[c].total)
			td->cols[c] = st;
		if (i == p->peak_index)
			td->at_peak = st;
		else if (st.total == p->peak_bytes && before < st.total && p->peak_index != CG_NONE &&
			 i > p->peak_index) {
			CG_GROW(td->returns, td->returns_cap, td->nreturns + 1);
			td->returns[td->nreturns++] = tl->mem[i].t_ns;
		}
	}
	while (cur + 1 < td->ncols)
		td->cols[++cur] = st;
	for (int cat = 0; cat < CG_CAT_COUNT; cat++)
		if (td->at_peak.by_cat[cat])
			td->occurs[cat] = true;
}

/* --- layout ---------------------------------------------------------------- */

typedef struct layout {
	cg_rect plot;
	cg_ticks y, x;
	double legend_x;
} layout;

static double x_of(const layout *l, double t_ns)
{
	return l->plot.x0 + (l->plot.x1 - l->plot.x0) * t_ns / l->x.max;
}

static double y_of(const layout *l, double bytes)
{
	return l->plot.y1 - (l->plot.y1 - l->plot.y0) * bytes / l->y.max;
}

/* Checkpoint series of the device that fit the scale. */
typedef struct lines {
	const cg_devmem *first;
	size_t n;
	bool used, reserved, capacity; /* drawn */
	uint64_t max_used, max_reserved, capacity_bytes;
	bool used_off, reserved_off, capacity_off; /* known but off the scale */
} lines;

static void choose_lines(lines *ln, const cg_timeline *tl, uint32_t d, uint64_t peak)
{
	memset(ln, 0, sizeof *ln);
	for (size_t i = 0; i < tl->ndevmem; i++) {
		const cg_devmem *c = &tl->devmem[i];
		if (c->device != d)
			continue;
		if (!ln->first)
			ln->first = c;
		ln->n++;
		if (c->has_used) {
			ln->used = true;
			if (c->used_bytes > ln->max_used)
				ln->max_used = c->used_bytes;
			if (c->used_bytes + c->free_bytes > ln->capacity_bytes)
				ln->capacity_bytes = c->used_bytes + c->free_bytes;
		}
		if (c->has_reserved) {
			ln->reserved = true;
			if (c->reserved_bytes > ln->max_reserved)
				ln->max_reserved = c->reserved_bytes;
		}
	}
	ln->capacity = ln->used && ln->capacity_bytes > 0;
	/* A line far above the live bytes would flatten them: leave it out
	 * and say so in the legend (a CPU's "used" is the whole process). */
	double limit = 4.0 * (double)(peak ? peak : 1);
	if (ln->used && ln->max_used > limit) {
		ln->used = false;
		ln->used_off = true;
	}
	if (ln->reserved && ln->max_reserved > limit) {
		ln->reserved = false;
		ln->reserved_off = true;
	}
	double top = (double)peak;
	if (ln->used && ln->max_used > top)
		top = (double)ln->max_used;
	if (ln->reserved && ln->max_reserved > top)
		top = (double)ln->max_reserved;
	if (ln->capacity && ln->capacity_bytes > 1.5 * top) {
		ln->capacity = false;
		ln->capacity_off = true;
	}
}

/* --- drawing ----------------------------------------------------------------- */

/* The stack, painted from its top category down: each category's area
 * runs from the baseline up to the top of its band, and the next one down
 * covers it up to its own top. Each area then has one stepped edge, not
 * two (half the points in an SVG path), adjacent bands share no
 * anti-aliased seam, and a flat stretch is a single segment. */
static void draw_areas(cg_chart *c, const layout *l, const timeline_data *td)
{
	double w = (l->plot.x1 - l->plot.x0) / (double)td->ncols;
	uint64_t *upto = cg_malloc(td->ncols * sizeof *upto);
	for (size_t k = 0; k < td->ncols; k++)
		upto[k] = td->cols[k].total;
	for (int s = CG_CAT_COUNT; s-- > 0;) {
		cg_category cat = cg_chart_stack_order[s];
		if (!td->occurs[cat])
			continue;
		cairo_new_path(c->cr);
		cairo_move_to(c->cr, l->plot.x0, l->plot.y1);
		double pen = l->plot.y1;
		for (size_t k = 0; k < td->ncols; k++) {
			double y = y_of(l, (double)upto[k]);
			if (y != pen) {
				double x = l->plot.x0 + (double)k * w;
				cairo_line_to(c->cr, x, pen);
				cairo_line_to(c->cr, x, y);
				pen = y;
			}
			upto[k] -= td->cols[k].by_cat[cat];
		}
		cairo_line_to(c->cr, l->plot.x1, pen);
		cairo_line_to(c->cr, l->plot.x1, l->plot.y1);
		cairo_close_path(c->cr);
		cg_chart_rgb(c, cg_chart_category_color(cat));
		cairo_fill(c->cr);
	}
	cg_free(upto);
}

/* A checkpoint series (which: 0 used, 1 reserved, 2 capacity) reduced to
 * pixel columns, so a trace with a checkpoint every few records still
 * draws a line of O(width) points. */
static void step_line(cg_chart *c, const layout *l, const cg_timeline *tl, const lines *ln, int which,
		      size_t ncols, uint64_t t_end)
{
	cg_colseries sr;
	cg_colseries_init(&sr, ncols, t_end);
	for (const cg_devmem *p = ln->first; p && p < tl->devmem + tl->ndevmem && p->device == ln->first->device; p++) {
		if ((which == 0 && !p->has_used) || (which == 1 && !p->has_reserved))
			continue;
		uint64_t v = which == 0 ? p->used_bytes : which == 1 ? p->reserved_bytes : p->used_bytes + p->free_bytes;
		cg_colseries_add(&sr, p->t_ns, (double)v);
	}
	cg_colseries_finish(&sr);
	cairo_new_path(c->cr);
	cg_colseries_path(c->cr, &sr, &l->plot, l->y.max, CG_COLSERIES_LINE);
	cairo_stroke(c->cr);
	cg_colseries_free(&sr);
}

static void draw_lines(cg_chart *c, const layout *l, const cg_timeline *tl, const lines *ln, size_t ncols,
		       uint64_t t_end)
{
	cairo_save(c->cr);
	cairo_set_line_width(c->cr, 2);
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_MITER);
	if (ln->used) {
		cg_chart_color(c, 0x1A1A1A);
		step_line(c, l, tl, ln, 0, ncols, t_end);
	}
	if (ln->reserved) {
		double dash[] = {6, 3};
		cairo_set_dash(c->cr, dash, 2, 0);
		cg_chart_color(c, 0x7A0177);
		step_line(c, l, tl, ln, 1, ncols, t_end);
	}
	if (ln->capacity) {
		double dash[] = {10, 5};
		cairo_set_dash(c->cr, dash, 2, 0);
		cg_chart_color(c, 0xB2182B);
		step_line(c, l, tl, ln, 2, ncols, t_end);
	}
	cairo_restore(c->cr);
}

/* --- lanes: phases and steps above the plot --- */

typedef struct band {
	double x0, x1;
} band;

static const cg_timeline *sort_tl; /* qsort has no context argument in C11 */

static int cmp_span_start(const void *pa, const void *pb)
{
	uint64_t a = sort_tl->spans[*(const uint32_t *)pa].start_ns, b = sort_tl->spans[*(const uint32_t *)pb].start_ns;
	if (a != b)
		return a < b ? -1 : 1;
	return *(const uint32_t *)pa < *(const uint32_t *)pb ? -1 : 1;
}

/* The bands of one phase: spans that start it (their phase differs from
 * their parent's), in time order, merged where less than 2 px apart, so a
 * run of thousands of steps draws at most one band per two pixels. */
static size_t phase_bands(const cg_timeline *tl, const layout *l, cg_phase ph, band **out)
{
	uint32_t *idx = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *idx);
	size_t n = 0;
	bool sorted = true;
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		cg_phase parent = s->parent == CG_NONE ? CG_PHASE_NONE : (cg_phase)tl->spans[s->parent].phase;
		if (s->step == CG_PHASE_NONE || s->phase == parent || s->phase != ph)
			continue;
		if (n && tl->spans[idx[n - 1]].start_ns > s->start_ns)
			sorted = false;
		idx[n++] = (uint32_t)i;
	}
	if (!sorted) {
		sort_tl = tl;
		qsort(idx, n, sizeof *idx, cmp_span_start);
	}
	band *b = cg_malloc((n ? n : 1) * sizeof *b);
	size_t nb = 0;
	for (size_t k = 0; k < n; k++) {
		const cg_span *s = &tl->spans[idx[k]];
		double x0 = x_of(l, (double)s->start_ns), x1 = x_of(l, (double)s->end_ns);
		if (nb && x0 - b[nb - 1].x1 < 2) {
			if (x1 > b[nb - 1].x1)
				b[nb - 1].x1 = x1;
		} else {
			b[nb++] = (band){x0, x1};
		}
	}
	cg_free(idx);
	*out = b;
	return nb;
}

/* Phase-starting spans: a phase of their own, unlike their parent. */
static size_t count_phase_spans(const cg_timeline *tl)
{
	size_t n = 0;
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		cg_phase parent = s->parent == CG_NONE ? CG_PHASE_NONE : (cg_phase)tl->spans[s->parent].phase;
		n += s->step != CG_PHASE_NONE && s->phase != parent;
	}
	return n;
}

/* Marks closer than this on average say nothing: the row says so in words. */
#define LANE_MIN_PX 6.0

static void lane_note(cg_chart *c, const layout *l, double y, const char *text)
{
	cg_chart_color(c, CG_FOOTNOTE);
	char *t = cg_chart_elide(c, text, l->plot.x1 - l->plot.x0 - 12, false, 3);
	if (t)
		cg_chart_text(c, l->plot.x0 + 6, y + 15, CG_LEFT, t);
	cg_free(t);
}

/* The phase row: tinted bands with one label form per phase, or a line of
 * text when the phases are too short to draw. Returns whether it shows
 * bands (the legend keys them). */
static bool draw_phase_row(cg_chart *c, const layout *l, const cg_timeline *tl, double y, double h)
{
	const double width = l->plot.x1 - l->plot.x0;
	cg_chart_box(c, l->plot.x0, y, width, h, cg_chart_lane_color(CG_PHASE_NONE));
	/* Too short when even merged (phase_bands) the bands are too many:
	 * thousands of op spans of one forward pass make one band. */
	band *bands[CG_PHASE_COUNT] = {NULL};
	size_t nbands[CG_PHASE_COUNT] = {0}, total = 0;
	for (int ph = CG_PHASE_FORWARD; ph < CG_PHASE_COUNT; ph++) {
		nbands[ph] = phase_bands(tl, l, (cg_phase)ph, &bands[ph]);
		total += nbands[ph];
	}
	if (total > width / LANE_MIN_PX) {
		for (int ph = CG_PHASE_FORWARD; ph < CG_PHASE_COUNT; ph++)
			cg_free(bands[ph]);
		char note[200], count[32];
		snprintf(note, sizeof note, "%s phase spans: too short to show at this width",
			 cg_fmt_count(count, sizeof count, count_phase_spans(tl)));
		lane_note(c, l, y, note);
		return false;
	}
	static const char *const words[CG_PHASE_COUNT] = {"", "forward", "backward", "optimizer"};
	static const char *const shorts[CG_PHASE_COUNT] = {"", "fwd", "bwd", "opt"};
	for (int ph = CG_PHASE_FORWARD; ph < CG_PHASE_COUNT; ph++) {
		band *b = bands[ph];
		size_t nb = nbands[ph];
		/* One label form per phase across the lane: the word when every
		 * band wide enough for a label fits it. */
		bool full = true;
		double w_word = cg_chart_text_width(c, words[ph]) + 6, w_short = cg_chart_text_width(c, shorts[ph]) + 6;
		for (size_t k = 0; k < nb; k++) {
			double w = b[k].x1 - b[k].x0 - 1;
			if (w >= w_short && w < w_word)
				full = false;
		}
		/* All bands of the phase in one path: 1 px of white at their right */
		cairo_new_path(c->cr);
		for (size_t k = 0; k < nb; k++) {
			double w = b[k].x1 - b[k].x0 - 1;
			cairo_rectangle(c->cr, b[k].x0 + 0.5, y, w > 0.5 ? w : 0.5, h);
		}
		cg_chart_rgb(c, cg_chart_lane_color((cg_phase)ph));
		cairo_fill(c->cr);
		cg_chart_color(c, CG_INK);
		for (size_t k = 0; k < nb; k++)
			if (b[k].x1 - b[k].x0 - 1 >= (full ? w_word : w_short))
				cg_chart_text(c, (b[k].x0 + b[k].x1) / 2, y + 15, CG_CENTER, full ? words[ph] : shorts[ph]);
		cg_free(b);
	}
	return true;
}

/* The step row: a grey tick and "step N" where there is room, or a line of
 * text when steps are too many to mark. */
static void draw_step_row(cg_chart *c, const layout *l, const cg_steps_result *steps, double y, double h)
{
	if (steps->nsteps > (l->plot.x1 - l->plot.x0) / LANE_MIN_PX) {
		char note[200], count[32];
		snprintf(note, sizeof note, "%s steps (%s): too many to mark at this width",
			 cg_fmt_count(count, sizeof count, steps->nsteps), steps->label ? steps->label : "");
		lane_note(c, l, y, note);
		return;
	}
	/* Ticks, leaving out those within 3 px of the last one drawn. */
	cairo_new_path(c->cr);
	double last = -1e9;
	for (uint32_t k = 0; k < steps->nsteps; k++) {
		double x = cg_chart_crisp(c, x_of(l, (double)steps->steps[k].start_ns));
		if (x - last < 3)
			continue;
		last = x;
		cairo_move_to(c->cr, x, y + 2);
		cairo_line_to(c->cr, x, y + h);
	}
	cairo_save(c->cr);
	cairo_set_line_width(c->cr, 1);
	cg_chart_color(c, 0xAAAAAA);
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
	cg_chart_color(c, CG_SECONDARY);
	double free_from = -1e9;
	for (uint32_t k = 0; k < steps->nsteps; k++) {
		double x = x_of(l, (double)steps->steps[k].start_ns);
		double next = k + 1 < steps->nsteps ? x_of(l, (double)steps->steps[k + 1].start_ns) : l->plot.x1;
		if (x < free_from || next - x < 30)
			continue;
		char label[32];
		snprintf(label, sizeof label, "step %" PRIu32, k);
		double w = cg_chart_text_width(c, label);
		if (next - x - 4 >= w) {
			cg_chart_text(c, x + 4, y + 15, CG_LEFT, label);
			free_from = x + 4 + w;
		}
	}
}

/* The two rows above the plot. Returns whether the phase row shows bands. */
static bool draw_lanes(cg_chart *c, const layout *l, const cg_timeline *tl, const cg_steps_result *steps)
{
	const double step_y = l->plot.y0 - 62, phase_y = l->plot.y0 - 40, h = 20;
	cg_chart_font(c, CG_TYPE_SMALL, false);
	cg_chart_color(c, CG_FOOTNOTE);
	if (steps->nsteps)
		cg_chart_text(c, l->plot.x0 - 10, step_y + 15, CG_RIGHT, "step");
	cg_chart_text(c, l->plot.x0 - 10, phase_y + 15, CG_RIGHT, "phase");
	bool bands = draw_phase_row(c, l, tl, phase_y, h);
	cg_chart_font(c, CG_TYPE_SMALL, false);
	if (steps->nsteps)
		draw_step_row(c, l, steps, step_y, h);
	return bands;
}

static void ring(cg_chart *c, double x, double y, bool filled)
{
	cairo_new_path(c->cr);
	cairo_arc(c->cr, x, y, 4.5 + 2, 0, 2 * M_PI);
	cg_chart_color(c, 0xFFFFFF);
	cairo_fill(c->cr);
	cairo_arc(c->cr, x, y, 4.5, 0, 2 * M_PI);
	cg_chart_color(c, CG_INK);
	if (filled) {
		cairo_fill(c->cr);
	} else {
		cairo_set_line_width(c->cr, 1.5);
		cairo_stroke(c->cr);
	}
}

static double peak_label_height(cg_chart *c, const cg_peak_device *p)
{
	(void)c;
	return p->reached_times > 1 ? CG_TYPE_LABEL + 6 + CG_TYPE_SMALL : CG_TYPE_LABEL;
}

static void draw_peak(cg_chart *c, const layout *l, const cg_timeline *tl, const cg_peak_device *p,
		      const timeline_data *td)
{
	if (p->peak_bytes == 0)
		return;
	double x = x_of(l, (double)p->peak_t_ns), y = y_of(l, (double)p->peak_bytes);
	/* Returns to the peak: a hollow ring each, but none within 8 px of one
	 * already drawn (thousands of steps may each reach it). */
	double last = x;
	for (size_t k = 0; k < td->nreturns; k++) {
		double rx = x_of(l, (double)td->returns[k]);
		if (rx - last >= 8) {
			ring(c, rx, y, false);
			last = rx;
		}
	}
	ring(c, x, y, true);

	char bytes[32], when[32], line1[96], line2[64];
	snprintf(line1, sizeof line1, "peak %s at %s", cg_fmt_bytes(bytes, sizeof bytes, p->peak_bytes),
		 cg_timeline_fmt_time(tl, when, sizeof when, p->peak_t_ns));
	snprintf(line2, sizeof line2, "reached %" PRIu32 " times", p->reached_times);
	cg_chart_font(c, CG_TYPE_LABEL, true);
	double w1 = cg_chart_text_width(c, line1);
	cg_chart_font(c, CG_TYPE_SMALL, false);
	double w2 = p->reached_times > 1 ? cg_chart_text_width(c, line2) : 0;
	double w = w1 > w2 ? w1 : w2;
	double h = peak_label_height(c, p);
	double last_base = y - 12;
	double first_base = p->reached_times > 1 ? last_base - CG_TYPE_SMALL - 6 : last_base;
	double lx = x + 10;
	if (lx + w > l->plot.x1)
		lx = x - 10 - w;
	if (lx < l->plot.x0)
		lx = l->plot.x0;
	cg_chart_box(c, lx - 4, first_base - CG_TYPE_LABEL - 2, w + 8, h + 8, cg_rgb_hex(0xFFFFFF));
	cg_chart_color(c, CG_INK);
	cg_chart_font(c, CG_TYPE_LABEL, true);
	cg_chart_text(c, lx, first_base, CG_LEFT, line1);
	if (p->reached_times > 1) {
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_text(c, lx, last_base, CG_LEFT, line2);
	}
}

static void draw_marker(cg_chart *c, const layout *l, double x, const char *label, unsigned color)
{
	cairo_save(c->cr);
	double dash[] = {4, 3};
	cairo_set_dash(c->cr, dash, 2, 0);
	cg_chart_vline(c, x, l->plot.y0, l->plot.y1, color);
	cairo_restore(c->cr);
	if (!label)
		return;
	cg_chart_font(c, CG_TYPE_SMALL, false);
	double w = cg_chart_text_width(c, label);
	double lx = x - 6 - w < l->plot.x0 ? x + 6 : x - 6 - w;
	cg_chart_box(c, lx - 3, l->plot.y0 + 4, w + 6, 20, cg_rgb_hex(0xFFFFFF));
	cg_chart_color(c, color);
	cg_chart_text(c, lx, l->plot.y0 + 19, CG_LEFT, label);
}

static void draw_legend(cg_chart *c, const layout *l, const cg_timeline *tl, const timeline_data *td,
			const lines *ln, bool phase_key)
{
	double x = l->legend_x, width = c->width - CG_MARGIN - x;
	char buf[32];
	bool phases[CG_PHASE_COUNT] = {false};
	bool any = false;
	for (size_t i = 0; i < tl->nspans && phase_key; i++)
		if (tl->spans[i].phase != CG_PHASE_NONE)
			phases[tl->spans[i].phase] = any = true;
	/* Heights of the sections: categories, the phase key, the device's
	 * lines. On a short canvas the column starts beside the lanes, and the
	 * phase key, which the lanes repeat in words, goes first. */
	int ncat = 0, nphase = 0, nlines = 0;
	for (int k = 0; k < CG_CAT_COUNT; k++)
		ncat += td->occurs[k];
	for (int p = CG_PHASE_FORWARD; p < CG_PHASE_COUNT; p++)
		nphase += phases[p];
	nlines = (ln->used || ln->used_off) + (ln->reserved || ln->reserved_off) + (ln->capacity || ln->capacity_off);
	double h_cat = 27 + 26.0 * ncat, h_phase = any ? 41 + 26.0 * nphase : 0;
	double h_lines = ln->n ? 41 + 26.0 * nlines + 14 : 0, limit = c->height - 36;
	double y = l->plot.y0 + 4;
	if (y + h_cat + h_phase + h_lines > limit)
		y = l->plot.y0 - 62 + 4;
	if (y + h_cat + h_phase + h_lines > limit)
		any = false;
	y = cg_chart_legend_header(c, x, y, width, tl->source.categories_known ? "category"
					  : tl->source.categories_inferred ? "category (inferred)" : "category (not in trace)",
			  "at peak");
	for (int s = CG_CAT_COUNT; s-- > 0;) {
		cg_category cat = cg_chart_stack_order[s];
		if (!td->occurs[cat])
			continue;
		y = cg_chart_legend_swatch(c, x, y, width, cg_chart_category_color(cat),
				 cg_chart_category_label(cat),
				 cg_fmt_bytes(buf, sizeof buf, td->at_peak.by_cat[cat]));
	}
	if (any) {
		y = cg_chart_legend_header(c, x, y + 14, width, "phase", NULL);
		for (int p = CG_PHASE_FORWARD; p < CG_PHASE_COUNT; p++)
			if (phases[p])
				y = cg_chart_legend_swatch(c, x, y, width, cg_chart_lane_color((cg_phase)p),
						 cg_phase_name((cg_phase)p), NULL);
	}
	if (ln->n) {
		static const double reserved_dash[] = {6, 3}, capacity_dash[] = {10, 5};
		y = cg_chart_legend_header(c, x, y + 14, width, "device", "max");
		bool off = false;
		if (ln->used || ln->used_off)
			y = cg_chart_legend_line(c, x, y, width, 0x1A1A1A, NULL, ln->used ? "used" : "used \xe2\x86\x91",
					cg_fmt_bytes(buf, sizeof buf, ln->max_used));
		if (ln->reserved || ln->reserved_off)
			y = cg_chart_legend_line(c, x, y, width, 0x7A0177, reserved_dash,
					ln->reserved ? "reserved" : "reserved \xe2\x86\x91",
					cg_fmt_bytes(buf, sizeof buf, ln->max_reserved));
		if (ln->capacity || ln->capacity_off)
			y = cg_chart_legend_line(c, x, y, width, 0xB2182B, capacity_dash,
					ln->capacity ? "capacity" : "capacity \xe2\x86\x91",
					cg_fmt_bytes(buf, sizeof buf, ln->capacity_bytes));
		off = ln->used_off || ln->reserved_off || ln->capacity_off;
		if (off) {
			cg_chart_font(c, CG_TYPE_NOTE, false);
			cg_chart_color(c, CG_FOOTNOTE);
			cg_chart_text(c, x, y - 4, CG_LEFT, "\xe2\x86\x91 far above the live bytes: not drawn");
		}
	}
}

const char *cg_chart_timeline_skip(const cg_analysis *a, uint32_t d)
{
	return a->tl->devices[d].mem_count ? NULL : "no memory records on this device";
}

void cg_chart_timeline(cg_chart *c, const cg_analysis *a, uint32_t d, const char *run_name)
{
	const cg_timeline *tl = a->tl;
	const cg_device *dev = &tl->devices[d];
	const cg_peak_device *p = &a->peak->devices[d];

	layout l;
	l.plot = (cg_rect){118, 160, c->width - 314, c->height - 92};
	l.legend_x = l.plot.x1 + 28;
	c->plot = l.plot;

	timeline_data td = {0};
	td.t_end = tl->last_t_ns ? tl->last_t_ns : 1;
	td.ncols = (size_t)lround((l.plot.x1 - l.plot.x0) * c->scale);
	td.cols = cg_calloc(td.ncols, sizeof *td.cols);
	gather(&td, tl, dev, p);

	lines ln;
	choose_lines(&ln, tl, d, p->peak_bytes);
	double top = (double)p->peak_bytes;
	if (ln.used && ln.max_used > top)
		top = (double)ln.max_used;
	if (ln.reserved && ln.max_reserved > top)
		top = (double)ln.max_reserved;
	if (ln.capacity && ln.capacity_bytes > top)
		top = (double)ln.capacity_bytes;
	cg_ticks_bytes(&l.y, top, cg_ticks_fit(l.plot.y1 - l.plot.y0, 30));
	/* Room above the peak for its label, so the label never covers data. */
	double need = peak_label_height(c, p) + 22;
	while (y_of(&l, (double)p->peak_bytes) - l.plot.y0 < need && l.y.count < 40)
		cg_ticks_grow(&l.y);
	char xtitle[64];
	cg_chart_time_axis(&l.x, tl, (double)td.t_end, cg_ticks_fit(l.plot.x1 - l.plot.x0, 80), xtitle, sizeof xtitle);
	c->x_max = l.x.max;
	c->y_max = l.y.max;

	char title[512], subtitle[1024], footnote[1024], recs[32], allocs[32], peak[32];
	cg_chart_title(c, title, sizeof title, "Live memory by category", run_name, tl, d);
	cg_chart_run_subtitle(tl, subtitle, sizeof subtitle);
	size_t n = (size_t)snprintf(footnote, sizeof footnote, "%s \xc2\xb7 %s memory record%s \xc2\xb7 %s allocation%s "
				    "\xc2\xb7 peak %s B", cg_chart_source_name(tl),
				    cg_fmt_count(recs, sizeof recs, dev->mem_count), dev->mem_count == 1 ? "" : "s",
				    cg_fmt_count(allocs, sizeof allocs, p->allocations), p->allocations == 1 ? "" : "s",
				    cg_fmt_count(peak, sizeof peak, p->peak_bytes));
	if (tl->source.truncated && n < sizeof footnote)
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 %s", tl->source.truncation_note);
	const char *sep = " \xc2\xb7 stacked bottom\xe2\x86\x92top: ";
	for (int s = 0; s < CG_CAT_COUNT && n < sizeof footnote; s++) {
		cg_category cat = cg_chart_stack_order[s];
		if (!td.occurs[cat])
			continue;
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, "%s%s", sep,
				      cg_chart_category_label(cat));
		sep = ", ";
	}
	cg_chart_frame(c, title, subtitle, footnote);

	char ytitle[64];
	snprintf(ytitle, sizeof ytitle, "live memory (%s)", l.y.unit);
	cg_chart_axis_left(c, &l.plot, &l.y, ytitle);
	draw_areas(c, &l, &td);
	draw_lines(c, &l, tl, &ln, td.ncols, td.t_end);
	cg_chart_axis_bottom(c, &l.plot, &l.x, xtitle);
	bool phased = a->steps->nsteps > 0;
	for (size_t i = 0; i < tl->nspans && !phased; i++)
		phased = tl->spans[i].phase != CG_PHASE_NONE;
	bool phase_key = phased && draw_lanes(c, &l, tl, a->steps);
	/* Out-of-memory events: the last one labelled (the one that stopped
	 * the run), earlier ones as lines, none within 6 px of another. */
	double last_oom = -1e9;
	for (size_t i = tl->nooms; i-- > 0;) {
		if (tl->ooms[i].device != d)
			continue;
		double x = x_of(&l, (double)tl->ooms[i].t_ns);
		if (fabs(last_oom - x) < 6)
			continue;
		draw_marker(c, &l, x, last_oom < -1e8 ? "out of memory" : NULL, 0xB2182B);
		last_oom = x;
	}
	if (tl->source.truncated)
		draw_marker(c, &l, l.plot.x1, "trace ends here", CG_INK);
	draw_peak(c, &l, tl, p, &td);
	draw_legend(c, &l, tl, &td, &ln, phase_key);
	cg_free(td.cols);
	cg_free(td.returns);
}
