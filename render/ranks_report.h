/* report.md and report.html of a distributed job's top report: one row per
 * rank and device (peak, when, step, phase, headroom, how and when the
 * trace ends), the imbalance overall and per phase, the highest rank, the
 * first to stop, the outliers and the missing ranks (docs/ranks.md). */
#ifndef CG_RANKS_REPORT_H
#define CG_RANKS_REPORT_H

#include <stdbool.h>

#include "outdir.h"
#include "ranks.h"

/* chart: the folder holds the ranks_peak, ranks_heatmap and
 * ranks_timelines charts (chart_ranks.h), shown after the findings. */
int cg_ranks_report_write(cg_outdir *od, const cg_rankset *s, const cg_ranks_result *f, bool chart, bool html,
			  cg_error *err);

#endif
