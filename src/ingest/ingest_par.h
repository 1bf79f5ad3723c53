/* Parallel ingest of a JSONL trace: a reader thread reads (and inflates)
 * blocks of lines, parse threads turn each into a shard, and the calling
 * thread merges the shards in file order (tlmerge.h). */
#ifndef CG_INGEST_PAR_H
#define CG_INGEST_PAR_H

#include "jsonl_block.h"

/* Reads every block of r into ctx->tl on threads parse threads (>= 2) and
 * the calling thread, which merges the parsed blocks in file order.
 * Returns 0 or the error cg_jsonl_block_add or the reader gave first in
 * file order. */
int cg_jsonl_parallel(cg_jsonl_ctx *ctx, cg_reader *r, unsigned threads, cg_error *err);

#endif
