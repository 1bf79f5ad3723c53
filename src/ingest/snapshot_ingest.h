/* Reads a PyTorch CUDA caching-allocator snapshot (torch.cuda.memory.
 * _dump_snapshot, or the bare segment list of torch.cuda.memory_snapshot())
 * into a timeline with tl->snapshot set: allocations live from alloc to
 * free_completed, stack frames as spans, segment events as reserved-bytes
 * checkpoints, OOM entries, and the memory from before the ring buffer's
 * first entry reconstructed from the segments (docs/snapshots.md).
 *
 *     if (cg_snapshot_ingest(&tl, reader, path, &o, &err) < 0) ...;
 */
#ifndef CG_SNAPSHOT_INGEST_H
#define CG_SNAPSHOT_INGEST_H

#include "ingest_options.h"
#include "reader.h"
#include "timeline.h"

int cg_snapshot_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
		       cg_error *err);

#endif
