/* report.html you can explore (docs/report-explore.md): the page's script
 * (render/js/explore.js, embedded at build time) and, per device, the data
 * it draws from as compact JSON — the live bytes by category after each
 * record (per time bucket the first, highest, lowest and last record when
 * there are many, so the exact peak is kept), phase and step lanes, the
 * allocations when there are few enough to pin any moment, and the moments
 * cgmem worked out (the peak, the end) with their lists as summary.json
 * has them. All text goes in as JSON strings, never as markup.
 *
 *     cg_explore_script(d);              // once: the script, and its CSP hash
 *     cg_explore_device(d, a, dv);       // where the device's explorer goes
 *     cg_explore_segments(d, a, dv);     // a snapshot's segment view
 */
#ifndef CG_EXPLORE_DATA_H
#define CG_EXPLORE_DATA_H

#include <stdint.h>

#include "analysis.h"
#include "doc.h"

/* Device dv's data as JSON text (caller frees). */
char *cg_explore_device_json(const cg_analysis *a, uint32_t dv);
/* Gives d the explorer's script. */
void cg_explore_script(cg_doc *d);
/* Adds device dv's data to d (a CG_DOC_DATA block of class "cgx-data"). */
void cg_explore_device(cg_doc *d, const cg_analysis *a, uint32_t dv);
/* The same with the data worked out ahead by cg_explore_device_json, which
 * d takes. */
void cg_explore_device_take(cg_doc *d, char *json);

/* For an allocator snapshot, device dv's segments and blocks at the dump
 * (explore_segments.c), for the segment view: JSON text (caller frees), or
 * NULL when the device has none. */
char *cg_explore_segments_json(const cg_analysis *a, uint32_t dv);
/* Adds them to d as a CG_DOC_DATA block (nothing when there are none). */
void cg_explore_segments(cg_doc *d, const cg_analysis *a, uint32_t dv);

#endif
