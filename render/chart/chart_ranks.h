/* The chart of a job's top report (docs/ranks.md): the peak of every rank
 * and device, each bar stacked by what was live then by category. What the
 * rest of render sees of it, without cairo. */
#ifndef CG_CHART_RANKS_H
#define CG_CHART_RANKS_H

#include "charts.h"
#include "rankset.h"

/* The chart's file name without extension. */
#define CG_CHART_RANKS_NAME "ranks_peak"

/* Draws ranks_peak.png and .svg (the formats o asks for) into od. Returns
 * 0, or CG_EIO naming the file. */
int cg_chart_ranks_write(cg_outdir *od, const cg_rankset *s, const cg_charts_options *o, cg_error *err);

/* From each row's live_series (chart_rankseries.c): a rank x time heat map
 * of live bytes, and the highest-peak and median-peak rows' timelines. */
#define CG_CHART_RANKS_HEATMAP_NAME "ranks_heatmap"
#define CG_CHART_RANKS_TIMELINES_NAME "ranks_timelines"
int cg_chart_ranks_heatmap_write(cg_outdir *od, const cg_rankset *s, const cg_charts_options *o, cg_error *err);
int cg_chart_ranks_timelines_write(cg_outdir *od, const cg_rankset *s, const cg_charts_options *o, cg_error *err);

#endif
