/* What the outputs of `cgmem diff` read: the two analyses, their
 * comparison and their alignment on one time axis. All borrowed. */
#ifndef CG_DIFF_VIEW_H
#define CG_DIFF_VIEW_H

#include "align.h"
#include "analysis.h"
#include "diff.h"

typedef struct cg_diff_view {
	const cg_analysis *run[2]; /* [CG_DIFF_BASE], [CG_DIFF_NEW] */
	const cg_diff_result *diff;
	const cg_alignment *align;
	unsigned top;		   /* longest list of span paths and allocations */
} cg_diff_view;

#endif
