/* The peak of each rank and device of a job, one bar each, stacked by
 * category at the peak: pipeline stages and imbalance at a glance. */
#include "chart_ranks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_draw.h"
#include "sink.h"
#include "units.h"
#include "xalloc.h"

static void draw(cg_chart *c, const void *ctx)
{
	const cg_rankset *s = ctx;
	size_t rows = 0;
	double max = 1;
	bool cats[CG_CAT_COUNT] = {0};
	for (size_t i = 0; i < s->n; i++)
		for (size_t d = 0; d < s->ranks[i].ndevices; d++) {
			const cg_rank_device *dv = &s->ranks[i].devices[d];
			rows++;
			if ((double)dv->peak_bytes > max)
				max = (double)dv->peak_bytes;
			for (int k = 0; k < CG_CAT_COUNT; k++)
				cats[k] |= dv->at_peak[k] > 0;
		}
	char sub[96];
	snprintf(sub, sizeof sub, "%zu ranks, %zu rank and device rows; each bar split by category at its peak", s->n,
		 rows);
	cg_chart_frame(c, "Peak per rank", sub, "cgmem report FILE... / cgmem merge (docs/ranks.md)");
	cg_rect plot = {CG_MARGIN + 90, 110, c->width - CG_MARGIN, c->height - 100};
	c->plot = plot;
	cg_ticks y;
	cg_ticks_bytes(&y, max, cg_ticks_fit(plot.y1 - plot.y0, 40));
	char unit[32];
	snprintf(unit, sizeof unit, "live at the peak (%s)", y.unit);
	cg_chart_axis_left(c, &plot, &y, unit);
	double slot = (plot.x1 - plot.x0) / (double)(rows ? rows : 1);
	double gap = slot > 6 ? slot * 0.2 : 0;
	/* a rank's number once under its bars, every k-th rank so that labels do
	 * not touch; its devices' names under their bars when some rank has
	 * several and they fit */
	cg_chart_font(c, CG_TYPE_TICK, false);
	double rank_slot = (plot.x1 - plot.x0) / (double)(s->n ? s->n : 1);
	size_t every = 1;
	while (every * rank_slot < 44 && every < s->n)
		every *= 2;
	bool device_labels = rows > s->n && slot >= 60;
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t first = k;
		for (size_t d = 0; d < s->ranks[i].ndevices; d++, k++) {
			const cg_rank_device *dv = &s->ranks[i].devices[d];
			double x0 = plot.x0 + slot * (double)k + gap / 2, w = slot - gap;
			double base = 0;
			for (int cat = 0; cat < CG_CAT_COUNT; cat++) {
				double v = (double)dv->at_peak[cat];
				if (v <= 0)
					continue;
				double ya = plot.y1 - (plot.y1 - plot.y0) * (base + v) / y.max;
				double yb = plot.y1 - (plot.y1 - plot.y0) * base / y.max;
				cg_chart_box(c, x0, ya, w, yb - ya, cg_chart_category_color((cg_category)cat));
				base += v;
			}
			/* what the categories do not cover (a format without them) */
			if ((double)dv->peak_bytes > base) {
				double ya = plot.y1 - (plot.y1 - plot.y0) * (double)dv->peak_bytes / y.max;
				double yb = plot.y1 - (plot.y1 - plot.y0) * base / y.max;
				cg_chart_box(c, x0, ya, w, yb - ya, cg_chart_category_color(CG_CAT_UNKNOWN));
				cats[CG_CAT_UNKNOWN] = true;
			}
			if (device_labels) {
				cg_chart_color(c, CG_SECONDARY);
				cg_chart_text(c, x0 + w / 2, plot.y1 + 40, CG_CENTER, dv->name);
			}
		}
		if (i % every == 0 && k > first) {
			char label[24];
			snprintf(label, sizeof label, "%" PRId64, s->ranks[i].rank);
			cg_chart_color(c, CG_SECONDARY);
			cg_chart_text(c, plot.x0 + slot * (double)(first + k) / 2, plot.y1 + 22, CG_CENTER, label);
		}
	}
	cg_chart_hline(c, plot.x0, plot.x1, plot.y1, CG_AXES);
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, (plot.x0 + plot.x1) / 2, plot.y1 + (device_labels ? 66 : 50), CG_CENTER,
		      device_labels ? "rank, and device below" : "rank");
	cg_legend_item items[CG_CAT_COUNT];
	size_t n = 0;
	for (int cat = 0; cat < CG_CAT_COUNT; cat++)
		if (cats[cat])
			items[n++] = (cg_legend_item){cg_chart_category_color((cg_category)cat),
						      cg_chart_category_label((cg_category)cat)};
	cg_chart_legend_row(c, plot.x1, 96, items, n, true);
}

int cg_chart_ranks_write(cg_outdir *od, const cg_rankset *s, const cg_charts_options *o, cg_error *err)
{
	return cg_charts_render(od, o, NULL, CG_CHART_RANKS_NAME, draw, s, err);
}
