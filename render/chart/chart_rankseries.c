/* The two charts of a job's top report drawn from each row's live_series
 * (docs/charts.md): a rank x time heat map of live bytes, and the
 * timelines of the highest-peak and the median-peak row overlaid. Time is
 * trace time, from each rank's own start (the series are in it; wall
 * clocks are not known for every format). */
#include "chart_ranks.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_draw.h"
#include "units.h"
#include "xalloc.h"

typedef struct row_ref {
	const cg_rank *r;
	const cg_rank_device *d;
} row_ref;

/* Every rank and device row in order; *n of them, caller frees. */
static row_ref *rows_of(const cg_rankset *s, size_t *n)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		k += s->ranks[i].ndevices;
	row_ref *out = cg_malloc((k ? k : 1) * sizeof *out);
	k = 0;
	for (size_t i = 0; i < s->n; i++)
		for (size_t d = 0; d < s->ranks[i].ndevices; d++)
			out[k++] = (row_ref){&s->ranks[i], &s->ranks[i].devices[d]};
	*n = k;
	return out;
}

/* The time axis: the longest series' end. */
static double axis_end(const row_ref *rows, size_t n)
{
	double t = 1;
	for (size_t i = 0; i < n; i++)
		if (rows[i].d->nseries && (double)rows[i].d->series_end_ns > t)
			t = (double)rows[i].d->series_end_ns;
	return t;
}

/* Bucket k of n over [0, end]: [k end / n, (k + 1) end / n). */
static double bucket_t(const cg_rank_device *d, size_t k)
{
	return (double)d->series_end_ns * (double)k / (double)d->nseries;
}

static void row_label(char *buf, size_t size, const row_ref *r, bool device)
{
	if (device)
		snprintf(buf, size, "%" PRId64 " %s", r->r->rank, r->d->name);
	else
		snprintf(buf, size, "%" PRId64, r->r->rank);
}

/* A sequential scale, pale yellow to dark blue (as viridis, reversed):
 * v in [0, 1]. */
static cg_rgb heat(double v)
{
	static const unsigned stops[] = {0xFDE725, 0x5DC863, 0x21908D, 0x3B528B, 0x440154};
	const size_t ns = sizeof stops / sizeof *stops;
	if (v < 0)
		v = 0;
	if (v > 1)
		v = 1;
	double x = v * (double)(ns - 1);
	size_t i = (size_t)x;
	if (i >= ns - 1)
		return cg_rgb_hex(stops[ns - 1]);
	double f = x - (double)i;
	cg_rgb a = cg_rgb_hex(stops[i]), b = cg_rgb_hex(stops[i + 1]);
	return (cg_rgb){a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

static void draw_heatmap(cg_chart *c, const void *ctx)
{
	const cg_rankset *s = ctx;
	size_t n;
	row_ref *rows = rows_of(s, &n);
	double t_end = axis_end(rows, n), max = 1;
	bool several = n > s->n;
	size_t without = 0;
	for (size_t i = 0; i < n; i++) {
		if ((double)rows[i].d->peak_bytes > max)
			max = (double)rows[i].d->peak_bytes;
		without += rows[i].d->nseries == 0;
	}
	char sub[160];
	snprintf(sub, sizeof sub, "%zu rank and device rows; colour: the most live bytes in each time column", n);
	char foot[160];
	snprintf(foot, sizeof foot, "white: after the rank's trace ended%s", without ? "; grey: a partial without live_series" : "");
	cg_chart_frame(c, "Live memory per rank over time", sub, foot);
	cg_rect plot = {CG_MARGIN + 130, 110, c->width - CG_MARGIN - 150, c->height - 110};
	c->plot = plot;
	double rh = (plot.y1 - plot.y0) / (double)(n ? n : 1);
	double cw = plot.x1 - plot.x0;
	size_t ncols = cw >= 1 ? (size_t)cw : 1;
	/* one pixel per row and column, scaled up without smoothing: an SVG
	 * holds it as one embedded image, not a rectangle per cell, so the
	 * chart's size does not grow with ranks x columns. More rows than
	 * pixels share a pixel row, which shows the most of them: a rank's
	 * peak is never dropped by the scaling. */
	size_t nimg = n ? n : 1;
	if ((double)nimg > plot.y1 - plot.y0 && plot.y1 - plot.y0 >= 1)
		nimg = (size_t)(plot.y1 - plot.y0);
	enum { ENDED, VALUE, NO_SERIES };
	uint64_t *cell = cg_reallocarray(NULL, nimg * ncols, sizeof *cell);
	unsigned char *state = cg_calloc(nimg * ncols, 1);
	uint64_t *col = cg_malloc(ncols * sizeof *col);
	bool *has = cg_malloc(ncols * sizeof *has);
	for (size_t i = 0; i < n; i++) {
		const cg_rank_device *d = rows[i].d;
		size_t r = i * nimg / n;
		uint64_t *out = cell + r * ncols;
		unsigned char *st = state + r * ncols;
		if (!d->nseries) {
			for (size_t j = 0; j < ncols; j++)
				if (st[j] == ENDED)
					st[j] = NO_SERIES;
			continue;
		}
		memset(col, 0, ncols * sizeof *col);
		memset(has, 0, ncols * sizeof *has);
		/* each column the largest bucket overlapping it: the peak's column
		 * shows the peak's colour */
		for (size_t k = 0; k < d->nseries; k++) {
			double t0 = bucket_t(d, k), t1 = bucket_t(d, k + 1);
			size_t c0 = (size_t)(t0 / t_end * (double)ncols);
			size_t c1 = (size_t)(t1 / t_end * (double)ncols);
			if (c1 > c0 && t1 / t_end * (double)ncols == (double)c1)
				c1--; /* a bucket ending on a column's edge is not in it */
			for (size_t j = c0; j <= c1 && j < ncols; j++) {
				uint64_t v = (uint64_t)d->series[k];
				if (!has[j] || v > col[j])
					col[j] = v;
				has[j] = true;
			}
		}
		for (size_t j = 0; j < ncols; j++)
			if (has[j] && (st[j] != VALUE || col[j] > out[j])) {
				out[j] = col[j];
				st[j] = VALUE;
			}
	}
	cg_free(col);
	cg_free(has);
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ncols, (int)nimg);
	unsigned char *px = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	for (size_t r = 0; r < nimg && px; r++) {
		uint32_t *line = (uint32_t *)(void *)(px + (size_t)stride * r);
		for (size_t j = 0; j < ncols; j++) {
			unsigned char st = state[r * ncols + j];
			cg_rgb rgb = st == NO_SERIES ? cg_rgb_hex(CG_GRID)
				     : st == VALUE   ? heat((double)cell[r * ncols + j] / max)
						     : cg_rgb_hex(0xFFFFFF);
			line[j] = (uint32_t)(rgb.r * 255 + 0.5) << 16 | (uint32_t)(rgb.g * 255 + 0.5) << 8 |
				  (uint32_t)(rgb.b * 255 + 0.5);
		}
	}
	cg_free(cell);
	cg_free(state);
	cairo_surface_mark_dirty(img);
	cairo_save(c->cr);
	cairo_translate(c->cr, plot.x0, plot.y0);
	cairo_scale(c->cr, cw / (double)ncols, (plot.y1 - plot.y0) / (double)nimg);
	cairo_set_source_surface(c->cr, img, 0, 0);
	cairo_pattern_set_filter(cairo_get_source(c->cr), CAIRO_FILTER_NEAREST);
	cairo_rectangle(c->cr, 0, 0, (double)ncols, (double)nimg);
	cairo_fill(c->cr);
	cairo_restore(c->cr);
	cairo_surface_destroy(img);
	size_t every = 1;
	while (every * rh < 18 && every < n)
		every *= 2;
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (size_t i = 0; i < n; i += every) {
		char label[96];
		row_label(label, sizeof label, &rows[i], several);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, plot.x0 - 8, plot.y0 + rh * (double)i + rh / 2 + 5, CG_RIGHT, label);
	}
	cg_ticks x;
	cg_ticks_time(&x, t_end, cg_ticks_fit(cw, 90));
	char xt[96];
	snprintf(xt, sizeof xt, "trace time from each rank's start (%s)", x.unit);
	cg_chart_axis_bottom(c, &plot, &x, xt);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, CG_MARGIN, plot.y0 - 12, CG_LEFT, several ? "rank device" : "rank");
	/* the legend: a colour bar from 0 to the largest peak, in bytes */
	cg_ticks y;
	cg_ticks_bytes(&y, max, cg_ticks_fit(plot.y1 - plot.y0, 50));
	double bx = plot.x1 + 30, bw = 20, bh = plot.y1 - plot.y0;
	for (int k = 0; k < 200; k++) {
		double v0 = (double)k / 200, v1 = (double)(k + 1) / 200;
		cg_chart_box(c, bx, plot.y1 - bh * v1, bw, bh * (v1 - v0) + 0.5, heat(v0 * y.max / max));
	}
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = 0; i < y.count; i++) {
		char b[32];
		double yy = plot.y1 - bh * (double)i * y.step / y.max;
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, bx + bw + 6, yy + 5, CG_LEFT, cg_ticks_label(&y, i, b, sizeof b));
		cg_chart_hline(c, bx + bw, bx + bw + 4, yy, CG_AXES);
	}
	char unit[48];
	snprintf(unit, sizeof unit, "live (%s)", y.unit);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, bx, plot.y0 - 12, CG_LEFT, unit);
	cg_free(rows);
}

/* The rows drawn by the timelines, among the rows with a series: the
 * first with the highest peak, and the first whose peak is the median
 * (the lower middle, as the imbalance figures). NULL when there is none. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void pick(const row_ref *rows, size_t n, const row_ref **hi, const row_ref **med)
{
	int64_t *peaks = cg_malloc((n ? n : 1) * sizeof *peaks);
	size_t m = 0;
	*hi = *med = NULL;
	for (size_t i = 0; i < n; i++)
		if (rows[i].d->nseries) {
			peaks[m++] = rows[i].d->peak_bytes;
			if (!*hi || rows[i].d->peak_bytes > (*hi)->d->peak_bytes)
				*hi = &rows[i];
		}
	qsort(peaks, m, sizeof *peaks, cmp_i64);
	for (size_t i = 0; i < n && m > 1; i++)
		if (rows[i].d->nseries && rows[i].d->peak_bytes == peaks[(m - 1) / 2]) {
			*med = &rows[i];
			break;
		}
	cg_free(peaks);
}

static void series_path(cg_chart *c, const cg_rank_device *d, double t_end, double y_max)
{
	const cg_rect *p = &c->plot;
	if (d->series_end_ns <= 0 && d->nseries) {
		/* a trace without times (a snapshot of one moment): a dot, not a
		 * line of no length that would not show */
		double y = p->y1 - (p->y1 - p->y0) * (double)d->series[0] / y_max;
		cairo_new_path(c->cr);
		cairo_arc(c->cr, p->x0, y, 6, 0, 2 * M_PI);
		cairo_fill(c->cr);
		return;
	}
	for (size_t k = 0; k < d->nseries; k++) {
		double x0 = p->x0 + (p->x1 - p->x0) * bucket_t(d, k) / t_end;
		double x1 = p->x0 + (p->x1 - p->x0) * bucket_t(d, k + 1) / t_end;
		double y = p->y1 - (p->y1 - p->y0) * (double)d->series[k] / y_max;
		if (k == 0)
			cairo_move_to(c->cr, x0, y);
		else
			cairo_line_to(c->cr, x0, y);
		cairo_line_to(c->cr, x1, y);
	}
	cairo_stroke(c->cr);
}

static void draw_timelines(cg_chart *c, const void *ctx)
{
	const cg_rankset *s = ctx;
	size_t n;
	row_ref *rows = rows_of(s, &n);
	const row_ref *hi, *med;
	pick(rows, n, &hi, &med);
	bool several = n > s->n;
	cg_chart_frame(c, "Highest and median rank over time",
		       "live bytes of the row with the highest peak and of the one with the median peak; per time "
		       "bucket the most live",
		       "trace time from each rank's start; the series' maximum is the rank's exact peak");
	cg_rect plot = {CG_MARGIN + 90, 120, c->width - CG_MARGIN, c->height - 100};
	c->plot = plot;
	double t_end = 1, max = 1;
	const row_ref *shown[2] = {hi, med};
	for (int i = 0; i < 2; i++)
		if (shown[i]) {
			if ((double)shown[i]->d->series_end_ns > t_end)
				t_end = (double)shown[i]->d->series_end_ns;
			if ((double)shown[i]->d->peak_bytes > max)
				max = (double)shown[i]->d->peak_bytes;
		}
	cg_ticks y;
	cg_ticks_bytes(&y, max, cg_ticks_fit(plot.y1 - plot.y0, 40));
	char unit[32];
	snprintf(unit, sizeof unit, "live memory (%s)", y.unit);
	cg_chart_axis_left(c, &plot, &y, unit);
	static const unsigned colors[2] = {0xD55E00, 0x0072B2}; /* Okabe-Ito vermillion, blue */
	static const double dash[2] = {8, 5};
	cairo_set_line_width(c->cr, 2.5);
	for (int i = 1; i >= 0; i--)
		if (shown[i]) {
			cg_chart_color(c, colors[i]);
			cairo_set_dash(c->cr, i ? dash : NULL, i ? 2 : 0, 0);
			series_path(c, shown[i]->d, t_end, y.max);
		}
	cairo_set_dash(c->cr, NULL, 0, 0);
	cg_ticks x;
	cg_ticks_time(&x, t_end, cg_ticks_fit(plot.x1 - plot.x0, 90));
	char xt[96];
	snprintf(xt, sizeof xt, "trace time from each rank's start (%s)", x.unit);
	cg_chart_axis_bottom(c, &plot, &x, xt);
	/* the legend names the ranks and their peaks, above the plot */
	cg_chart_font(c, CG_TYPE_LABEL, false);
	char labels[2][160];
	cg_legend_item items[2];
	size_t nl = 0;
	for (int i = 0; i < 2; i++) {
		if (!shown[i])
			continue;
		char r[96], b[32];
		row_label(r, sizeof r, shown[i], several);
		snprintf(labels[i], sizeof labels[i], "%s: rank %s, peak %s%s", i ? "median peak (dashed)" : "highest peak", r,
			 cg_fmt_bytes(b, sizeof b, (uint64_t)shown[i]->d->peak_bytes),
			 shown[i]->d->series_end_ns <= 0 ? " (one moment, no times: a dot)" : "");
		items[nl++] = (cg_legend_item){cg_rgb_hex(colors[i]), labels[i]};
	}
	cg_chart_legend_row(c, plot.x1, 96, items, nl, true);
	if (!hi) {
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, (plot.x0 + plot.x1) / 2, (plot.y0 + plot.y1) / 2, CG_CENTER,
			      "no row has a live_series (partials of an older cgmem)");
	}
	cg_free(rows);
}

int cg_chart_ranks_heatmap_write(cg_outdir *od, const cg_rankset *s, const cg_charts_options *o, cg_error *err)
{
	return cg_charts_render(od, o, NULL, CG_CHART_RANKS_HEATMAP_NAME, draw_heatmap, s, err);
}

int cg_chart_ranks_timelines_write(cg_outdir *od, const cg_rankset *s, const cg_charts_options *o, cg_error *err)
{
	return cg_charts_render(od, o, NULL, CG_CHART_RANKS_TIMELINES_NAME, draw_timelines, s, err);
}
