/* The report's parts for allocator snapshots (report.c calls them; each
 * adds nothing for other timelines): the allocator's state at the dump,
 * the OOM verdict, and the snapshot's settings in the run table. */
#ifndef CG_REPORT_SNAPSHOT_H
#define CG_REPORT_SNAPSHOT_H

#include <stdint.h>

#include "analysis.h"
#include "charts.h"
#include "doc.h"

/* Under the title: what kind of snapshot, and the allocator's settings. */
void cg_report_snapshot_header(cg_doc *d, const cg_timeline *tl);
/* The verdict on each device's OOM entry, as call-outs. */
void cg_report_snapshot_callouts(cg_doc *d, const cg_analysis *a);
/* "The allocator at the snapshot" for device dv. */
void cg_report_snapshot_section(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts);
/* Rows of the run table (two columns): the snapshot's form and settings. */
void cg_report_snapshot_run_rows(cg_doc *d, const cg_timeline *tl);

/* The chart "<kind>.<device>" when it was drawn, else a note why not (report.c). */
void cg_report_figure(cg_doc *d, const cg_chart_list *charts, const cg_timeline *tl, const char *kind,
		      uint32_t dev);

#endif
