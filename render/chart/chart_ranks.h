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

#endif
