/* diff.html's explorer: per device of both runs, the data the page's
 * script (render/js/explore_views.js) draws both runs' live bytes from, each
 * run's as report.html's explorer has it, timed from each run's start.
 *
 *     cg_explore_script(d);               // once (explore_data.h)
 *     cg_explore_diff_device(d, v, i);    // where device i's explorer goes
 */
#ifndef CG_EXPLORE_DIFF_H
#define CG_EXPLORE_DIFF_H

#include <stddef.h>

#include "compare.h"
#include "doc.h"

/* Device i of v->diff as JSON text (caller frees), or NULL when it is not
 * in both runs or has no memory records in one. */
char *cg_explore_diff_json(const cg_diff_view *v, size_t i);
/* Adds it to d as a CG_DOC_DATA block of class "cgx-data" (nothing when NULL). */
void cg_explore_diff_device(cg_doc *d, const cg_diff_view *v, size_t i);

#endif
