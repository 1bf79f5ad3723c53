/* Finalize: the step from a timeline being built to one that is read.
 * The one module on top of the model that calls into the span tree
 * (spantree.h) and the pairing of memory records (pairing.h); shards of a
 * parallel read are merged before it (tlmerge.h).
 *
 *     ...cg_timeline_add_* while reading...
 *     if (cg_timeline_finalize(tl, &err) < 0) ...;
 *     ...tl is read-only from here on...
 */
#ifndef CG_FINALIZE_H
#define CG_FINALIZE_H

#include <stdint.h>

#include "error.h"
#include "timeline.h"

/* Resolves spans, sorts and pairs memory. CG_EINPUT when live bytes of a
 * device would exceed 2^64 - 1. */
int cg_timeline_finalize(cg_timeline *tl, cg_error *err);
/* The same on up to threads threads (0: every usable CPU, as
 * cg_timeline_finalize); the result does not depend on how many. */
int cg_timeline_finalize_threads(cg_timeline *tl, unsigned threads, cg_error *err);

/* After finalize, by ingest only: sets a device's baseline_bytes (memory
 * allocated before profiling, which only the allocator's totals reveal,
 * once pairing has counted the frees of blocks from before the trace) and
 * updates its live bytes at the end. CG_EINPUT when they would overflow. */
int cg_timeline_set_baseline(cg_timeline *tl, uint16_t device, uint64_t bytes, cg_error *err);

#endif
