/* Memory pairing: orders each device's memory records by time and matches
 * every free with its allocation. Part of finalize.
 *
 * When the trace cannot pair frees (source.pairing_known is false: PyTorch
 * profiler traces without addresses, the raw memory timeline), no free is
 * matched: each removes its own bytes and keeps its own category, live bytes
 * are the running sum, and what each category's sum would go below zero is
 * counted as allocated before the trace, live from the start (a warning says so). */
#ifndef CG_PAIRING_H
#define CG_PAIRING_H

#include "timeline.h"

/* Sorts tl->mem by (device, time) keeping file order among equal times,
 * fills the per-device ranges, pairs frees with allocations (anomalies are
 * counted in tl->anomalies) and sorts device checkpoints likewise.
 * Devices are paired on up to threads threads (0: every usable CPU); the
 * result does not depend on how many.
 * Returns CG_EINPUT when a device's live bytes would overflow 64 bits. */
int cg_pairing_run(cg_timeline *tl, unsigned threads, cg_error *err);

/* See cg_timeline_set_baseline. */
int cg_pairing_set_baseline(cg_timeline *tl, uint16_t device, uint64_t bytes, cg_error *err);

#endif
