/* summary.json's sections for timelines read from an allocator snapshot
 * (docs/summary-format.md, "Allocator snapshots"); both write nothing for
 * other timelines. */
#ifndef CG_SUMMARY_ALLOCSTATE_H
#define CG_SUMMARY_ALLOCSTATE_H

#include <stdint.h>

#include "analysis.h"
#include "jsonw.h"

/* The top-level "snapshot" key: how the file was written and the
 * allocator's settings, verbatim. */
void cg_summary_json_snapshot(cg_jw *w, const cg_timeline *tl);
/* Device dev's "allocator_state" key, in the device object open in w. */
void cg_summary_json_allocator_state(cg_jw *w, const cg_analysis *a, uint32_t dev);

#endif
