/* Merging timelines: parallel ingest parses blocks of lines into small
 * unfinalized timelines (shards), then appends them, in file order, to the
 * one being built. Appending a shard gives exactly what adding its lines
 * one by one would have given: string ids, devices and dtypes are remapped
 * in the order the shard first met them, which is the order the whole file
 * meets them; records keep their order; diagnostics and counters add up.
 *
 *     cg_timeline *shard = cg_timeline_new(&limits);
 *     ...add the records of one block to shard...
 *     if (cg_timeline_mergeable(tl, shard))
 *             cg_timeline_merge(tl, shard);   // shard is emptied for reuse
 *     else
 *             ...add the block's lines to tl itself...
 */
#ifndef CG_TLMERGE_H
#define CG_TLMERGE_H

#include <stdbool.h>

#include "timeline.h"

/* Can src be appended to dst with the same result as adding its lines to
 * dst directly? False when src depends on state it could not see: a meta
 * record after dst's first meta record, or a limit (strings, devices,
 * dtypes, record counts) that the two together might reach. */
bool cg_timeline_mergeable(const cg_timeline *dst, const cg_timeline *src);

/* Appends src (unfinalized, checked with cg_timeline_mergeable) to dst
 * (unfinalized), then empties src for reuse. Never fails. */
void cg_timeline_merge(cg_timeline *dst, cg_timeline *src);
/* The same, where the shards so far (src the last) are about a share of
 * 1 / scale (>= 1) of the whole: an array that must grow takes room for
 * what it is expected to hold at the end (at most most_bytes; doubling
 * beyond), not double, so that a trace of millions of records is copied
 * once instead of at every doubling. */
void cg_timeline_merge_expecting(cg_timeline *dst, cg_timeline *src, double scale, uint64_t most_bytes);

/* Empties an unfinalized timeline, keeping its memory and string limit. */
void cg_timeline_reset(cg_timeline *tl);

#endif
