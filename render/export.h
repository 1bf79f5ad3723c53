/* The report's export files (--formats folded, csv): collapsed stacks and
 * CSV tables written into the report folder beside the charts.
 *
 *     cg_export_options o = CG_EXPORT_OPTIONS_INIT;
 *     o.folded = true;
 *     rc = cg_export_write(od, a, &o, &list, &err);   // entries of kind CG_EXPORT_KIND
 *
 * Per device (named with cg_chart_device_slugs, as the charts are):
 * live_at_peak.DEVICE.folded, leaks.DEVICE.folded (only where the leak
 * analysis has candidates), peak.DEVICE.csv; and steps.csv when the run has
 * steps. Each file written, or left out with the reason, is added to the
 * list for report.md. */
#ifndef CG_EXPORT_H
#define CG_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "charts.h"
#include "outdir.h"

typedef struct cg_export_options {
	bool folded, csv;
	/* Per-device files for at most this many devices, those with the
	 * largest peaks (as the charts). */
	uint32_t max_devices;
} cg_export_options;

#define CG_EXPORT_OPTIONS_INIT {false, false, CG_CHARTS_MAX_DEVICES}

/* The kind of the list entries cg_export_write adds (their name is the
 * whole file name, extension included). */
#define CG_EXPORT_KIND "export"
/* The kind of the entry that says no chart was asked for (its skipped
 * says why); the report notes it instead of showing no figure. */
#define CG_EXPORT_NO_CHARTS "no-charts"

/* Writes the files o asks for into od and adds an entry for each to list.
 * Returns 0, or CG_EIO naming the file that could not be written. */
int cg_export_write(cg_outdir *od, const cg_analysis *a, const cg_export_options *o, cg_chart_list *list,
		    cg_error *err);

#endif
