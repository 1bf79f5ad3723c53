/* Two runs compared: what the outputs of `cgmem diff` read. The
 * comparison of their analyses (diff.h) and their alignment on one time
 * axis (align.h), built together.
 *
 *     cg_diff_view *v;
 *     if (cg_diff_view_new(&v, base, new_run, CG_ALIGN_PHASES, 20, &err) < 0) ...;
 *     ...v->diff->devices[i]..., v->align...
 *     cg_diff_view_free(v);
 */
#ifndef CG_COMPARE_H
#define CG_COMPARE_H

#include "align.h"
#include "analysis.h"
#include "diff.h"

typedef struct cg_diff_view {
	const cg_analysis *run[2]; /* [CG_DIFF_BASE], [CG_DIFF_NEW]; borrowed */
	cg_diff_result *diff;	   /* owned when made by cg_diff_view_new */
	cg_alignment *align;
	unsigned top;		   /* longest list of span paths and allocations */
} cg_diff_view;

/* Compares base with new_run and aligns them by mode; lists are at most
 * top long. The analyses stay borrowed and must outlive *out, which is the
 * caller's (cg_diff_view_free). Fails as cg_diff_run does; *out is then
 * NULL. */
int cg_diff_view_new(cg_diff_view **out, const cg_analysis *base, const cg_analysis *new_run, cg_align_mode mode,
		     unsigned top, cg_error *err);
/* Frees a view made by cg_diff_view_new (its diff and alignment). */
void cg_diff_view_free(cg_diff_view *v);

#endif
