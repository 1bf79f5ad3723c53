/* Memory records grouped by device, each device's in file order: how
 * finalize lays out tl->mem (pairing.h).
 *
 * A parallel ingest does most of it while it merges: split, device 0's
 * records stay in tl->mem and the others gather in tl->mem_rest; joined,
 * only those others move, after device 0's. Grouping the whole array at
 * finalize instead writes every record again, into fresh pages (245 MB at
 * 6.8 M records).
 *
 *     cg_timeline_split_devices(tl);          // before the first record
 *     ... cg_timeline_add_mem, cg_timeline_merge ...
 *     cg_timeline_join_devices(tl, threads);  // before finalize
 */
#ifndef CG_DEVGROUP_H
#define CG_DEVGROUP_H

#include "timeline.h"

void cg_timeline_split_devices(cg_timeline *tl);
/* Moves tl->mem_rest after tl->mem grouped by device (on up to threads
 * threads, 0: every usable CPU) and ends the split. */
void cg_timeline_join_devices(cg_timeline *tl, unsigned threads);

/* Groups tl->mem by device, keeping each device's order. */
void cg_group_by_device(cg_timeline *tl, unsigned threads);

#endif
