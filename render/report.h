/* report.md and report.html: what a person reads, built once as a cg_doc
 * from the analysis and written in both forms. */
#ifndef CG_REPORT_H
#define CG_REPORT_H

#include <stdbool.h>

#include "analysis.h"
#include "charts.h"
#include "doc_save.h"
#include "outdir.h"

/* Builds the report's document, without the explorer (caller frees with
 * cg_doc_free). */
cg_doc *cg_report_build(const cg_analysis *a, const cg_chart_list *charts);

/* Writes report.md, and report.html unless html is false, into od;
 * report.html with the explorer's script and data (explore_data.h) when js
 * is true, else the static page alone. */
int cg_report_write(cg_outdir *od, const cg_analysis *a, const cg_chart_list *charts, bool html, bool js,
		    cg_error *err);

/* report.html's explorer data, its costliest part, worked out before
 * cg_report_write_ahead: on another thread while the charts are drawn. */
typedef struct cg_report_explorer cg_report_explorer;
cg_report_explorer *cg_report_explorer_new(const cg_analysis *a);
void cg_report_explorer_free(cg_report_explorer *x);

/* cg_report_write with js true and the explorer data of x, which the
 * report takes (x is left empty; free it still). */
int cg_report_write_ahead(cg_outdir *od, const cg_analysis *a, const cg_chart_list *charts, bool html,
			  cg_report_explorer *x, cg_error *err);

/* Is name one the report folder gives its own files: summary.json,
 * report.md, report.html, the manifest, a chart's (*.png, *.svg, *.pdf) or
 * an export's (*.csv, *.folded)? A
 * file the user names (the Chrome trace) must not take one of them. */
bool cg_report_owns_name(const char *name);

#endif
