/* The analysis: every pass run over a finalized timeline, gathered in one
 * result that summary.json, the terminal summary, the charts and the reports
 * all read.
 *
 *     cg_analysis_options o = CG_ANALYSIS_OPTIONS_INIT;
 *     cg_analysis *a;
 *     if (cg_analysis_run(&a, tl, &o, &err) < 0) ...;
 *     printf("%llu\n", (unsigned long long)a->peak->devices[0].peak_bytes);
 *     cg_analysis_free(a);
 *
 * The analysis borrows tl, which must outlive it. */
#ifndef CG_ANALYSIS_H
#define CG_ANALYSIS_H

#include "peak.h"
#include "timeline.h"

typedef struct cg_analysis_options {
	unsigned top_n; /* allocations listed at the peak */
} cg_analysis_options;

#define CG_ANALYSIS_OPTIONS_INIT {20}

typedef struct cg_analysis {
	const cg_timeline *tl;
	cg_analysis_options options;
	cg_peak_result *peak;
} cg_analysis;

int cg_analysis_run(cg_analysis **out, const cg_timeline *tl, const cg_analysis_options *o,
		    cg_error *err);
void cg_analysis_free(cg_analysis *a);

#endif
