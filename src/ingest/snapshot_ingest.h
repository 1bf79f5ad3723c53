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

/* Which reader of trace entries: the fast path (the default: the
 * opcodes of a batch of entries read without building its dicts, pickle.h
 * on_entry) or the general unpickler alone. Both give the same timeline
 * and the same errors; the general one is there to prove it
 * (tests/ingest/test_snapshot_paths.c, tests/fuzz/fuzz_snapshot_paths.c). */
typedef enum cg_snap_parser {
	CG_SNAP_PARSER_FAST,
	CG_SNAP_PARSER_GENERAL,
} cg_snap_parser;

/* What the fast path did: entries it read, batches it sent back. */
typedef struct cg_snap_parse_stats {
	uint64_t fast_entries, fast_fallbacks;
} cg_snap_parse_stats;

/* cg_snapshot_ingest with the reader chosen; stats may be NULL. */
int cg_snapshot_ingest_with(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
			    cg_snap_parser parser, cg_snap_parse_stats *stats, cg_error *err);

#endif
