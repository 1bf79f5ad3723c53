/* Chart 1: live memory of one device over time, stacked by category, with
 * the phases and steps above it, the peak marked, and the device's own
 * checkpoints (used, reserved, capacity) as lines. */
#include "charts.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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
	const cg_mem *m = &tl->mem[i];
	uint64_t add = cg_mem_added(m), rem = cg_timeline_mem_removed(tl, i);
	st->total += add;
	st->total -= rem;
	st->by_cat[m->category] += add;
	if (rem) {
		uint32_t r = m->action == CG_ALLOC ? cg_timeline_mem_replaced(tl, i) : CG_NONE;
		st->by_cat[r == CG_NONE ? m->category : tl->mem[r].category] -= rem;
	}
}

static size_t column_of(uint64_t t, uint64_t t_end, size_t ncols)
{
	size_t c = (size_t)((__uint128_t)t * ncols / t_end);
	return c < ncols ? c : ncols - 1;
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
	size_t cur = 0;
	td->cols[0] = st;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		size_t c = column_of(tl->mem[i].t_ns, td->t_end, td->ncols);
		while (cur < c)
			td->cols[++cur] = st; /* the state entering each column */
		uint64_t before = st.total;
		apply(tl, i, &st);
		for (int cat = 0; cat < CG_CAT_COUNT; cat++)
			if (st.by_cat[cat])
				td->occurs[cat] = true;
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

static void draw_y_axis(cg_chart *c, const layout *l)
{
	char buf[32], title[64];
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = 0; i < l->y.count; i++) {
		double y = y_of(l, i * l->y.step);
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
}

static void draw_x_axis(cg_chart *c, const layout *l)
{
	char buf[32], title[64];
	cg_chart_hline(c, l->plot.x0, l->plot.x1, l->plot.y1, CG_AXES);
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = 0; i < l->x.count; i++) {
		double x = x_of(l, i * l->x.step);
		cg_chart_vline(c, x, l->plot.y1, l->plot.y1 + 5, CG_AXES);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, l->plot.y1 + 22, CG_CENTER, cg_ticks_label(&l->x, i, buf, sizeof buf));
	}
	snprintf(title, sizeof title, "time since trace start (%s)", l->x.unit);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, (l->plot.x0 + l->plot.x1) / 2, l->plot.y1 + 50, CG_CENTER, title);
}

static void draw_areas(cg_chart *c, const layout *l, const timeline_data *td)
{
	double w = (l->plot.x1 - l->plot.x0) / (double)td->ncols;
	uint64_t *below = cg_calloc(td->ncols, sizeof *below);
	for (int s = 0; s < CG_CAT_COUNT; s++) {
		cg_category cat = cg_chart_stack_order[s];
		if (!td->occurs[cat])
			continue;
		cairo_new_path(c->cr);
		/* top edge left to right, then the bottom edge back */
		for (size_t k = 0; k < td->ncols; k++) {
			double y = y_of(l, (double)(below[k] + td->cols[k].by_cat[cat]));
			double x0 = l->plot.x0 + k * w;
			if (k == 0)
				cairo_move_to(c->cr, x0, y);
			else
				cairo_line_to(c->cr, x0, y);
			cairo_line_to(c->cr, x0 + w, y);
		}
		for (size_t k = td->ncols; k-- > 0;) {
			double y = y_of(l, (double)below[k]);
			double x0 = l->plot.x0 + k * w;
			cairo_line_to(c->cr, x0 + w, y);
			cairo_line_to(c->cr, x0, y);
		}
		cairo_close_path(c->cr);
		cg_chart_rgb(c, cg_chart_category_color(cat));
		cairo_fill(c->cr);
		for (size_t k = 0; k < td->ncols; k++)
			below[k] += td->cols[k].by_cat[cat];
	}
	cg_free(below);
}

static void step_line(cg_chart *c, const layout *l, const cg_timeline *tl, const lines *ln, int which)
{
	cairo_new_path(c->cr);
	bool started = false;
	double last_y = 0;
	for (const cg_devmem *p = ln->first; p && p < tl->devmem + tl->ndevmem && p->device == ln->first->device; p++) {
		if ((which == 0 && !p->has_used) || (which == 1 && !p->has_reserved))
			continue;
		uint64_t v = which == 0 ? p->used_bytes : which == 1 ? p->reserved_bytes : p->used_bytes + p->free_bytes;
		double x = x_of(l, (double)p->t_ns), y = y_of(l, (double)v);
		if (!started) {
			cairo_move_to(c->cr, x, y);
			started = true;
		} else {
			cairo_line_to(c->cr, x, last_y);
			cairo_line_to(c->cr, x, y);
		}
		last_y = y;
	}
	if (started)
		cairo_line_to(c->cr, l->plot.x1, last_y);
	cairo_stroke(c->cr);
}

static void draw_lines(cg_chart *c, const layout *l, const cg_timeline *tl, const lines *ln)
{
	cairo_save(c->cr);
	cairo_set_line_width(c->cr, 2);
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_MITER);
	if (ln->used) {
		cg_chart_color(c, 0x1A1A1A);
		step_line(c, l, tl, ln, 0);
	}
	if (ln->reserved) {
		double dash[] = {6, 3};
		cairo_set_dash(c->cr, dash, 2, 0);
		cg_chart_color(c, 0x7A0177);
		step_line(c, l, tl, ln, 1);
	}
	if (ln->capacity) {
		double dash[] = {10, 5};
		cairo_set_dash(c->cr, dash, 2, 0);
		cg_chart_color(c, 0xB2182B);
		step_line(c, l, tl, ln, 2);
	}
	cairo_restore(c->cr);
}

/* Spans that start a phase: their own step differs from their parent's. */
static void draw_lanes(cg_chart *c, const layout *l, const cg_timeline *tl, const cg_steps *steps)
{
	const double step_y = l->plot.y0 - 62, phase_y = l->plot.y0 - 40, h = 20;
	cg_chart_font(c, CG_TYPE_SMALL, false);
	cg_chart_color(c, CG_FOOTNOTE);
	cg_chart_text(c, l->plot.x0 - 10, step_y + 15, CG_RIGHT, "step");
	cg_chart_text(c, l->plot.x0 - 10, phase_y + 15, CG_RIGHT, "phase");
	cg_chart_box(c, l->plot.x0, phase_y, l->plot.x1 - l->plot.x0, h, cg_chart_lane_color(CG_PHASE_NONE));

	static const char *const words[CG_PHASE_COUNT] = {"", "forward", "backward", "optimizer"};
	static const char *const shorts[CG_PHASE_COUNT] = {"", "fwd", "bwd", "opt"};
	/* First the widths: one label form per phase across the lane. */
	bool full[CG_PHASE_COUNT] = {false, true, true, true};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < tl->nspans; i++) {
			const cg_span *s = &tl->spans[i];
			cg_phase parent = s->parent == CG_NONE ? CG_PHASE_NONE : (cg_phase)tl->spans[s->parent].phase;
			if (s->step == CG_PHASE_NONE || s->phase == parent)
				continue;
			double x0 = x_of(l, (double)s->start_ns), x1 = x_of(l, (double)s->end_ns);
			double w = x1 - x0 - 1;
			cg_phase ph = (cg_phase)s->phase;
			if (pass == 0) {
				if (w >= cg_chart_text_width(c, shorts[ph]) + 6 && w < cg_chart_text_width(c, words[ph]) + 6)
					full[ph] = false;
				continue;
			}
			cg_chart_box(c, x0 + 0.5, phase_y, w > 0.5 ? w : 0.5, h, cg_chart_lane_color(ph));
			const char *label = full[ph] ? words[ph] : shorts[ph];
			if (w >= cg_chart_text_width(c, label) + 6) {
				cg_chart_color(c, CG_INK);
				cg_chart_text(c, (x0 + x1) / 2, phase_y + 15, CG_CENTER, label);
			}
		}
	}
	for (size_t k = 0; k < steps->n; k++) {
		double x = x_of(l, (double)steps->start_ns[k]);
		double next = k + 1 < steps->n ? x_of(l, (double)steps->start_ns[k + 1]) : l->plot.x1;
		cg_chart_vline(c, x, step_y + 2, step_y + h, 0xAAAAAA);
		char label[32];
		snprintf(label, sizeof label, "step %zu", k);
		if (next - x - 4 >= cg_chart_text_width(c, label)) {
			cg_chart_color(c, CG_SECONDARY);
			cg_chart_text(c, x + 4, step_y + 15, CG_LEFT, label);
		}
	}
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

static void draw_peak(cg_chart *c, const layout *l, const cg_peak_device *p, const timeline_data *td)
{
	if (p->peak_bytes == 0)
		return;
	for (size_t k = 0; k < td->nreturns; k++)
		ring(c, x_of(l, (double)td->returns[k]), y_of(l, (double)p->peak_bytes), false);
	double x = x_of(l, (double)p->peak_t_ns), y = y_of(l, (double)p->peak_bytes);
	ring(c, x, y, true);

	char bytes[32], when[32], line1[96], line2[64];
	snprintf(line1, sizeof line1, "peak %s at %s", cg_fmt_bytes(bytes, sizeof bytes, p->peak_bytes),
		 cg_fmt_time(when, sizeof when, p->peak_t_ns));
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
	cg_chart_font(c, CG_TYPE_SMALL, false);
	double w = cg_chart_text_width(c, label);
	double lx = x - 6 - w < l->plot.x0 ? x + 6 : x - 6 - w;
	cg_chart_box(c, lx - 3, l->plot.y0 + 4, w + 6, 20, cg_rgb_hex(0xFFFFFF));
	cg_chart_color(c, color);
	cg_chart_text(c, lx, l->plot.y0 + 19, CG_LEFT, label);
}

static double legend_header(cg_chart *c, double x, double y, double width, const char *left, const char *right)
{
	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, x, y, CG_LEFT, left);
	if (right) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_color(c, CG_FOOTNOTE);
		cg_chart_text(c, x + width, y, CG_RIGHT, right);
	}
	return y + 27;
}

static double legend_entry(cg_chart *c, double x, double y, double width, cg_rgb swatch, const char *name,
			   const char *value)
{
	cg_chart_box(c, x, y - 13, 14, 14, swatch);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_INK);
	double room = width - 22 - (value ? 80 : 0);
	char *n = cg_chart_elide(c, name, room, false, 1);
	if (n)
		cg_chart_text(c, x + 22, y, CG_LEFT, n);
	cg_free(n);
	if (value) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x + width, y, CG_RIGHT, value);
	}
	return y + 26;
}

static double legend_line(cg_chart *c, double x, double y, double width, unsigned color, const double *dash,
			  const char *name, const char *value)
{
	cairo_save(c->cr);
	cairo_set_line_width(c->cr, 2);
	if (dash)
		cairo_set_dash(c->cr, dash, 2, 0);
	cg_chart_color(c, color);
	cairo_move_to(c->cr, x, y - 6);
	cairo_line_to(c->cr, x + 16, y - 6);
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_INK);
	cg_chart_text(c, x + 22, y, CG_LEFT, name);
	if (value) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x + width, y, CG_RIGHT, value);
	}
	return y + 26;
}

static void draw_legend(cg_chart *c, const layout *l, const cg_timeline *tl, const timeline_data *td,
			const lines *ln)
{
	double x = l->legend_x, width = c->width - CG_MARGIN - x, y = l->plot.y0 + 4;
	char buf[32];
	y = legend_header(c, x, y, width, tl->source.categories_known ? "category" : "category (not in trace)",
			  "at peak");
	for (int s = CG_CAT_COUNT; s-- > 0;) {
		cg_category cat = cg_chart_stack_order[s];
		if (!td->occurs[cat])
			continue;
		y = legend_entry(c, x, y, width, cg_chart_category_color(cat),
				 cat == CG_CAT_BASELINE ? "before profiling" : cg_category_name(cat),
				 cg_fmt_bytes(buf, sizeof buf, td->at_peak.by_cat[cat]));
	}
	bool phases[CG_PHASE_COUNT] = {false};
	bool any = false;
	for (size_t i = 0; i < tl->nspans; i++)
		if (tl->spans[i].phase != CG_PHASE_NONE)
			phases[tl->spans[i].phase] = any = true;
	if (any) {
		y = legend_header(c, x, y + 14, width, "phase", NULL);
		for (int p = CG_PHASE_FORWARD; p < CG_PHASE_COUNT; p++)
			if (phases[p])
				y = legend_entry(c, x, y, width, cg_chart_lane_color((cg_phase)p),
						 cg_phase_name((cg_phase)p), NULL);
	}
	if (ln->n) {
		static const double reserved_dash[] = {6, 3}, capacity_dash[] = {10, 5};
		y = legend_header(c, x, y + 14, width, "device", "max");
		bool off = false;
		if (ln->used || ln->used_off)
			y = legend_line(c, x, y, width, 0x1A1A1A, NULL, ln->used ? "used" : "used \xe2\x86\x91",
					cg_fmt_bytes(buf, sizeof buf, ln->max_used));
		if (ln->reserved || ln->reserved_off)
			y = legend_line(c, x, y, width, 0x7A0177, reserved_dash,
					ln->reserved ? "reserved" : "reserved \xe2\x86\x91",
					cg_fmt_bytes(buf, sizeof buf, ln->max_reserved));
		if (ln->capacity || ln->capacity_off)
			y = legend_line(c, x, y, width, 0xB2182B, capacity_dash,
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
	cg_ticks_bytes(&l.y, top, 10);
	/* Room above the peak for its label, so the label never covers data. */
	double need = peak_label_height(c, p) + 22;
	while (y_of(&l, (double)p->peak_bytes) - l.plot.y0 < need && l.y.count < 40)
		cg_ticks_grow(&l.y);
	cg_ticks_time(&l.x, (double)td.t_end, 10);
	c->x_max = l.x.max;
	c->y_max = l.y.max;

	char title[512], subtitle[1024], footnote[1024], recs[32], allocs[32], peak[32];
	snprintf(title, sizeof title, "Live memory by category \xe2\x80\x94 %s (%s)", run_name,
		 cg_timeline_str(tl, dev->name));
	cg_chart_run_subtitle(tl, subtitle, sizeof subtitle);
	size_t n = (size_t)snprintf(footnote, sizeof footnote, "%s \xc2\xb7 %s memory records \xc2\xb7 %s allocations \xc2\xb7 peak %s B",
				    cg_chart_source_name(tl), cg_fmt_count(recs, sizeof recs, dev->mem_count),
				    cg_fmt_count(allocs, sizeof allocs, p->allocations),
				    cg_fmt_count(peak, sizeof peak, p->peak_bytes));
	if (tl->source.truncated && n < sizeof footnote)
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 %s", tl->source.truncation_note);
	const char *sep = " \xc2\xb7 stacked bottom\xe2\x86\x92top: ";
	for (int s = 0; s < CG_CAT_COUNT && n < sizeof footnote; s++) {
		cg_category cat = cg_chart_stack_order[s];
		if (!td.occurs[cat])
			continue;
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, "%s%s", sep,
				      cat == CG_CAT_BASELINE ? "before profiling" : cg_category_name(cat));
		sep = ", ";
	}
	cg_chart_frame(c, title, subtitle, footnote);

	cg_steps steps;
	cg_chart_find_steps(tl, &steps);
	draw_y_axis(c, &l);
	draw_areas(c, &l, &td);
	draw_lines(c, &l, tl, &ln);
	draw_x_axis(c, &l);
	bool phased = steps.n > 0;
	for (size_t i = 0; i < tl->nspans && !phased; i++)
		phased = tl->spans[i].phase != CG_PHASE_NONE;
	if (phased)
		draw_lanes(c, &l, tl, &steps);
	for (size_t i = 0; i < tl->nooms; i++)
		if (tl->ooms[i].device == d)
			draw_marker(c, &l, x_of(&l, (double)tl->ooms[i].t_ns), "out of memory", 0xB2182B);
	if (tl->source.truncated)
		draw_marker(c, &l, l.plot.x1, "trace ends here", CG_INK);
	draw_peak(c, &l, p, &td);
	draw_legend(c, &l, tl, &td, &ln);
	cg_chart_steps_free(&steps);
	cg_free(td.cols);
	cg_free(td.returns);
}
