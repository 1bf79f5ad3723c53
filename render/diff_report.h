/* diff.md and diff.html: the comparison of two runs as people read it,
 * built once as a cg_doc and written in both forms. */
#ifndef CG_DIFF_REPORT_H
#define CG_DIFF_REPORT_H

#include <stdbool.h>

#include "charts.h"
#include "compare.h"
#include "doc_save.h"
#include "outdir.h"

/* Builds the document without the explorer (caller frees with
 * cg_doc_free). charts: as cg_diff_charts_write lists them, or NULL for
 * none. */
cg_doc *cg_diff_report_build(const cg_diff_view *v, const cg_chart_list *charts);

/* Writes diff.md, and diff.html unless html is false, into od; diff.html
 * with its explorer (explore_diff.h) when js, else the static page. */
int cg_diff_report_write(cg_outdir *od, const cg_diff_view *v, const cg_chart_list *charts, bool html, bool js,
			 cg_error *err);

#endif
