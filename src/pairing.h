/* Memory pairing: orders each device's memory records by time and matches
 * every free with its allocation. Part of finalize. */
#ifndef CG_PAIRING_H
#define CG_PAIRING_H

#include "timeline.h"

/* Sorts tl->mem by (device, time) keeping file order among equal times,
 * fills the per-device ranges, pairs frees with allocations (anomalies are
 * counted in tl->anomalies) and sorts device checkpoints likewise.
 * Returns CG_EINPUT when a device's live bytes would overflow 64 bits. */
int cg_pairing_run(cg_timeline *tl, cg_error *err);

#endif
