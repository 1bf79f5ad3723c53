/* The analysis: every pass run over a finalized timeline, gathered in one
 * result that summary.json, the terminal summary, the charts and the reports
 * all read. Every figure is defined in docs/analysis.md.
 *
 *     cg_analysis_options o = CG_ANALYSIS_OPTIONS_INIT;
 *     cg_analysis *a;
 *     if (cg_analysis_run(&a, tl, &o, &err) < 0) ...;
 *     printf("%llu\n", (unsigned long long)a->peak->devices[0].peak_bytes);
 *     cg_analysis_free(a);
 *
 * The analysis borrows tl, which must outlive it. The driver runs the
 * passes in dependency order and hands each what it needs from the others
 * as plain data (record indices, times); passes never call each other. */
#ifndef CG_ANALYSIS_H
#define CG_ANALYSIS_H

#include "allocstate.h"
#include "checkpoints.h"
#include "endtrace.h"
#include "gradients.h"
#include "leaks.h"
#include "lifetimes.h"
#include "liveset.h"
#include "overtime.h"
#include "pathtree.h"
#include "peak.h"
#include "replay.h"
#include "steps.h"
#include "timeline.h"

/* cg_analysis_options and CG_ANALYSIS_OPTIONS_INIT are public (cgmem.h). */

typedef struct cg_analysis {
	const cg_timeline *tl;
	cg_analysis_options options;
	cg_peak_result *peak;		 /* 1. the peak of each device */
	cg_liveset_result *at_peak;	 /* 1-2. what was live at each device's peak */
	cg_pathtree_result *peak_trees;	 /* 2. trees[d]: span-path tree of at_peak (empty when not listed) */
	cg_steps_result *steps;		 /* 3. the repeating steps */
	cg_overtime_result *overtime;	 /* 3. categories, phases and steps over time */
	cg_checkpoints_result *checkpoints; /* 4. device checkpoints and fragmentation */
	cg_replay_result *replay;	 /* 5. allocator replay (estimates) */
	cg_liveset_result *at_end;	 /* 6, 8. what was live at each device's end moment */
	cg_leaks_result *leaks;		 /* 6. leak candidates */
	cg_lifetimes_result *lifetimes;	 /* 7. lifetimes and temporaries */
	cg_endtrace_result *end;	 /* 8. the end of the trace */
	cg_gradients_result *gradients;	 /* 9. gradient states */
	cg_allocstate_result *allocstate; /* 10. the allocator's segments and blocks (snapshots; else 0 devices) */
} cg_analysis;

/* Runs every pass. *out belongs to the caller; on failure it is NULL and
 * err says why. */
int cg_analysis_run(cg_analysis **out, const cg_timeline *tl, const cg_analysis_options *o,
		    cg_error *err);
void cg_analysis_free(cg_analysis *a);

#endif
