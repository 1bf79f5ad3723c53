/* The charts of `cgmem diff`, drawn with cairo into PNG and SVG files in
 * the report's style:
 * - diff_timeline.DEVICE: both runs' live memory on one time axis, each
 *   run's time normalised to its duration (or with its phase boundaries
 *   aligned, align.h); the base run as a grey area, the new one as a line;
 * - diff_change.DEVICE: a diverging bar chart of the change at the peak
 *   (new - base) by category and by span path, growth to the right.
 *
 *     cg_chart_list list = {0};
 *     rc = cg_diff_charts_write(od, &view, NULL, &list, &err);
 *     ...list.items[i].name, .title, .skipped...
 *     cg_chart_list_free(&list);
 */
#ifndef CG_CHART_DIFF_H
#define CG_CHART_DIFF_H

#include <stddef.h>

#include "charts.h"
#include "compare.h"

/* Colours of the two runs and of the two directions of change. */
#define CG_DIFF_BASE_FILL 0xD4D4D4
#define CG_DIFF_BASE_LINE 0x707070
#define CG_DIFF_NEW_LINE 0xD55E00
#define CG_DIFF_GREW 0xD55E00
#define CG_DIFF_SHRANK 0x0072B2

/* Writes both charts of every device into od (o NULL: PNG and SVG at the
 * default size) and lists them in out: two items per device, in the
 * order of v->diff's devices, the timeline first. A device present in one
 * run only gets no change chart (its item says why). */
int cg_diff_charts_write(cg_outdir *od, const cg_diff_view *v, const cg_charts_options *o, cg_chart_list *out,
			 cg_error *err);

#endif
