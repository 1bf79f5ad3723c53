/* The lines of one block of a JSONL trace into a timeline: blank lines
 * counted, bad lines reported (fatal with strict), a last line cut short
 * marked truncated, every other line parsed (jsonl.h) and added as a
 * record (record.h). Used by the serial read (jsonl_ingest.c) and by the
 * parse threads and the merge of the parallel one (ingest_par.c). */
#ifndef CG_JSONL_BLOCK_H
#define CG_JSONL_BLOCK_H

#include <stdint.h>

#include "ingest_options.h"
#include "jsonl.h"
#include "reader.h"
#include "timeline.h"

/* How far into the decompressed bytes reading goes without finding a
 * single record before it gives up (docs/trace-format.md): a device such
 * as /dev/zero, or a file that is no trace, would otherwise be read to its
 * end, or forever. */
#define CG_JSONL_GIVE_UP_BYTES ((uint64_t)64 << 20)

/* Adding lines to one timeline (the result, or a shard of it). */
typedef struct cg_jsonl_ctx {
	cg_timeline *tl;
	const cg_ingest_options *o;
	cg_jsonl_parser *parser;
	const char *name;	 /* for messages */
	uint64_t give_up_bytes;	 /* no record by this offset: an error; 0: no limit (shards) */
	bool device;		 /* the input is a character device (for the message) */
} cg_jsonl_ctx;

/* Adds the lines of block b to ctx->tl, exactly as reading them one by one
 * does. Returns 0, or a negative code with err set (strict and a bad line,
 * a limit). The block's bytes are left as they were. */
int cg_jsonl_block_add(cg_jsonl_ctx *ctx, cg_block *b, cg_error *err);

/* Sets err to "no record could be read" (within the first give_up
 * bytes when within is set), with the first bad line's reason, and
 * returns CG_EINPUT. */
int cg_jsonl_no_record(const cg_jsonl_ctx *ctx, bool within, cg_error *err);

/* True while ctx->tl has no record. */
bool cg_jsonl_no_record_yet(const cg_timeline *tl);
/* Has reading reached offset off of the decompressed bytes without a
 * record, past give_up_bytes? Then it gives up (cg_jsonl_no_record). */
bool cg_jsonl_gives_up_at(const cg_jsonl_ctx *in, uint64_t off);

/* Marks the trace as cut off at line, with note saying how; the first
 * such mark stays. */
void cg_jsonl_mark_truncated(cg_timeline *tl, uint64_t line, const char *note);

#endif
