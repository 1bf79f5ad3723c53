/* Chart 5: what the allocator held reserved against what was live, over
 * time: the live bytes as a grey area, reserved bytes as recorded at the
 * device's checkpoints and as the allocator replay estimates them (with
 * standard and with expandable segments), and on a second axis the
 * fragmentation, (reserved - live) / reserved. */
#include "chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "colseries.h"
#include "units.h"
#include "xalloc.h"

#define RESERVED_COLOR 0x7A0177 /* as the timeline's reserved line */
#define FRAG_COLOR 0xE66100	/* orange against purple: told apart by every kind of colour vision */
#define LIVE_COLOR 0xD4D4D4

static const double dash_estimate[] = {7, 4}, dash_expandable[] = {2, 3};

/* Reserved bytes recorded at checkpoints, and not all 0 (PyTorch reports
 * 0 reserved for a CPU). */
static bool recorded_reserved(const cg_checkpoints_device *cp)
{
	for (uint32_t k = 0; k < cp->count; k++)
		if (cp->list[k].has_reserved && cp->list[k].reserved_bytes > 0)
			return true;
	return false;
}

/* As the end-of-trace pass: a CPU has no caching allocator to replay. */
static bool is_cpu(const cg_timeline *tl, uint32_t d)
{
	return strncasecmp(cg_timeline_str(tl, tl->devices[d].name), "cpu", 3) == 0;
}

const char *cg_chart_fragmentation_skip(const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	if (tl->devices[d].mem_count == 0)
		return "no memory records on this device";
	if (recorded_reserved(&a->checkpoints->devices[d]))
		return NULL;
	if (is_cpu(tl, d))
		return "no reserved bytes to compare with: the trace records none (or only 0) for this device, and a "
		       "CPU has no caching allocator to replay";
	if (!a->replay->devices[d].available)
		return "no reserved bytes to compare with: the trace records none for this device, and the "
		       "allocator replay needs frees paired with allocations";
	return NULL;
}

typedef struct series {
	cg_colseries live, recorded, estimate, expandable, frag;
	bool has_recorded, has_estimate;
	uint32_t below_zero; /* checkpoints where live exceeded the recorded reserved */
	double frag_max;
} series;

static void replay_series(cg_colseries *s, const cg_replay_variant *v)
{
	cg_colseries_add(s, 0, (double)v->initial_reserved);
	for (uint32_t k = 0; k < v->nseries; k++)
		cg_colseries_add(s, v->series[k].t_ns, (double)v->series[k].reserved);
	cg_colseries_finish(s);
}

/* One pass over the device's records for the live bytes; the estimated
 * fragmentation needs the replay's reserved bytes at each record, read off
 * its change points alongside. */
static void gather(series *sr, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_device *dev = &tl->devices[d];
	const cg_checkpoints_device *cp = &a->checkpoints->devices[d];
	const cg_replay_device *rp = &a->replay->devices[d];
	bool frag_from_replay = !sr->has_recorded;
	const cg_replay_variant *v = &rp->standard;
	uint32_t next = 0;
	double reserved = sr->has_estimate ? (double)v->initial_reserved : 0;

	uint64_t live = cg_device_initial_live(dev);
	cg_colseries_add(&sr->live, 0, (double)live);
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		uint64_t t = tl->mem[i].t_ns;
		live = cg_timeline_live_after(tl, i, live);
		cg_colseries_add(&sr->live, t, (double)live);
		if (!frag_from_replay || !sr->has_estimate)
			continue;
		while (next < v->nseries && v->series[next].t_ns <= t)
			reserved = (double)v->series[next++].reserved;
		if (reserved > 0) {
			double f = (reserved - (double)live) / reserved;
			f = f < 0 ? 0 : f;
			cg_colseries_add(&sr->frag, t, f);
			if (f > sr->frag_max)
				sr->frag_max = f;
		}
	}
	cg_colseries_finish(&sr->live);

	for (uint32_t k = 0; k < cp->count; k++) {
		const cg_checkpoint *p = &cp->list[k];
		if (!p->has_reserved)
			continue;
		cg_colseries_add(&sr->recorded, p->t_ns, (double)p->reserved_bytes);
		if (p->has_fragmentation) {
			double f = p->fragmentation;
			if (f < 0) {
				sr->below_zero++;
				f = 0;
			}
			cg_colseries_add(&sr->frag, p->t_ns, f);
			if (f > sr->frag_max)
				sr->frag_max = f;
		}
	}
	cg_colseries_finish(&sr->recorded);
	cg_colseries_finish(&sr->frag);
	if (sr->has_estimate) {
		replay_series(&sr->estimate, &rp->standard);
		replay_series(&sr->expandable, &rp->expandable);
	}
}

static void stroke(cg_chart *c, const cg_colseries *s, const cg_rect *plot, double y_max, unsigned color,
		   double width, const double *dash)
{
	cairo_save(c->cr);
	cairo_new_path(c->cr);
	cg_colseries_path(c->cr, s, plot, y_max, CG_COLSERIES_LINE);
	cairo_set_line_width(c->cr, width);
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_MITER);
	if (dash)
		cairo_set_dash(c->cr, dash, 2, 0);
	cg_chart_color(c, color);
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
}

/* The second axis: 0-100 % at the plot's right edge, in the line's colour. */
static void axis_right(cg_chart *c, const cg_rect *plot)
{
	cairo_save(c->cr);
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int p = 0; p <= 100; p += 25) {
		double y = plot->y1 - (plot->y1 - plot->y0) * p / 100.0;
		cg_chart_hline(c, plot->x1, plot->x1 + 5, y, FRAG_COLOR);
		char buf[16];
		snprintf(buf, sizeof buf, "%d %%", p);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, plot->x1 + 9, y + 5, CG_LEFT, buf);
	}
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, FRAG_COLOR);
	cairo_translate(c->cr, plot->x1 + 66, (plot->y0 + plot->y1) / 2);
	cairo_rotate(c->cr, M_PI / 2);
	cg_chart_text(c, 0, 0, CG_CENTER, "fragmentation (%)");
	cairo_restore(c->cr);
}

static void draw_legend(cg_chart *c, double x, double y, const series *sr, const cg_analysis *a, uint32_t d)
{
	const cg_replay_device *rp = &a->replay->devices[d];
	double width = c->width - CG_MARGIN - x;
	char buf[32];
	y = cg_chart_legend_header(c, x, y, width, "allocator reserved", "max");
	if (sr->has_recorded)
		y = cg_chart_legend_line(c, x, y, width, RESERVED_COLOR, NULL, "recorded",
					 cg_fmt_bytes(buf, sizeof buf, (uint64_t)sr->recorded.max));
	if (sr->has_estimate) {
		y = cg_chart_legend_line(c, x, y, width, RESERVED_COLOR, dash_estimate, "estimate",
					 cg_fmt_bytes(buf, sizeof buf, rp->standard.peak_reserved));
		y = cg_chart_legend_line(c, x, y, width, RESERVED_COLOR, dash_expandable, "if expandable",
					 cg_fmt_bytes(buf, sizeof buf, rp->expandable.peak_reserved));
	}
	y = cg_chart_legend_swatch(c, x, y + 6, width, cg_rgb_hex(LIVE_COLOR), "live",
				   cg_fmt_bytes(buf, sizeof buf, a->peak->devices[d].peak_bytes));
	y = cg_chart_legend_header(c, x, y + 14, width, "fragmentation", "max");
	cg_fmt_percent(buf, sizeof buf, sr->frag_max);
	y = cg_chart_legend_line(c, x, y, width, FRAG_COLOR, NULL, sr->has_recorded ? "recorded" : "estimate",
				 sr->frag.any ? buf : "unknown");
	cg_chart_font(c, CG_TYPE_NOTE, false);
	cg_chart_color(c, CG_FOOTNOTE);
	cg_chart_text(c, x, y - 4, CG_LEFT, "(reserved \xe2\x88\x92 live) / reserved,");
	cg_chart_text(c, x, y + 13, CG_LEFT, "on the right axis");
}

void cg_chart_fragmentation(cg_chart *c, const cg_analysis *a, uint32_t d, const char *run_name)
{
	const cg_timeline *tl = a->tl;
	const cg_replay_device *rp = &a->replay->devices[d];
	cg_rect plot = {118, 112, c->width - 372, c->height - 92};
	double legend_x = c->width - 290;
	c->plot = plot;

	series sr = {0};
	sr.has_recorded = recorded_reserved(&a->checkpoints->devices[d]);
	sr.has_estimate = rp->available && !is_cpu(tl, d);
	uint64_t t_end = tl->last_t_ns ? tl->last_t_ns : 1;
	size_t ncols = (size_t)lround((plot.x1 - plot.x0) * c->scale);
	cg_colseries *all[] = {&sr.live, &sr.recorded, &sr.estimate, &sr.expandable, &sr.frag};
	for (size_t k = 0; k < 5; k++)
		cg_colseries_init(all[k], ncols, t_end);
	gather(&sr, a, d);

	double top = sr.live.max;
	for (size_t k = 1; k < 4; k++)
		if (all[k]->max > top)
			top = all[k]->max;
	cg_ticks y, x;
	char xtitle[64];
	cg_ticks_bytes(&y, top, cg_ticks_fit(plot.y1 - plot.y0, 30));
	cg_chart_time_axis(&x, tl, (double)t_end, cg_ticks_fit(plot.x1 - plot.x0, 80), xtitle, sizeof xtitle);
	c->x_max = x.max;
	c->y_max = y.max;

	char title[512], subtitle[512], footnote[600], ytitle[80];
	cg_chart_title(c, title, sizeof title, "Allocator reserved and fragmentation", run_name, tl, d);
	char count[32];
	cg_fmt_count(count, sizeof count, a->checkpoints->devices[d].count);
	if (sr.has_recorded && sr.has_estimate)
		snprintf(subtitle, sizeof subtitle, "reserved bytes as recorded at %s checkpoints and as the allocator "
			 "replay estimates them, against live bytes", count);
	else if (sr.has_recorded)
		snprintf(subtitle, sizeof subtitle, "reserved bytes as recorded at %s checkpoints, against live bytes",
			 count);
	else
		snprintf(subtitle, sizeof subtitle, "reserved bytes as the allocator replay estimates them (the trace "
			 "records none), against live bytes");
	size_t n = (size_t)snprintf(footnote, sizeof footnote, "%s", cg_chart_source_name(tl));
	if (sr.has_estimate && n < sizeof footnote)
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 estimates replay PyTorch's CUDA "
				      "caching allocator (one stream, no memory limit, no empty_cache); if expandable: with "
				      "expandable_segments:True");
	if (sr.below_zero && n < sizeof footnote)
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 live above recorded reserved at %s "
				      "checkpoints: drawn at 0 %%", cg_fmt_count(count, sizeof count, sr.below_zero));
	if (tl->source.truncated && n < sizeof footnote)
		snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 %s", tl->source.truncation_note);
	cg_chart_frame(c, title, subtitle, footnote);

	snprintf(ytitle, sizeof ytitle, "reserved and live memory (%s)", y.unit);
	cg_chart_axis_left(c, &plot, &y, ytitle);
	cairo_new_path(c->cr);
	cg_colseries_path(c->cr, &sr.live, &plot, y.max, CG_COLSERIES_AREA);
	cg_chart_color(c, LIVE_COLOR);
	cairo_fill(c->cr);
	if (sr.has_estimate) {
		stroke(c, &sr.expandable, &plot, y.max, RESERVED_COLOR, 1.5, dash_expandable);
		stroke(c, &sr.estimate, &plot, y.max, RESERVED_COLOR, 2, dash_estimate);
	}
	if (sr.has_recorded)
		stroke(c, &sr.recorded, &plot, y.max, RESERVED_COLOR, 2, NULL);
	stroke(c, &sr.frag, &plot, 1.0, FRAG_COLOR, 1.5, NULL);
	cg_chart_axis_bottom(c, &plot, &x, xtitle);
	axis_right(c, &plot);
	draw_legend(c, legend_x, plot.y0 + 4, &sr, a, d);
	for (size_t k = 0; k < 5; k++)
		cg_colseries_free(all[k]);
}
