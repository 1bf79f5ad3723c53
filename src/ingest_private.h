/* What ingest.c (one thread) and ingest_par.c (blocks parsed on several
 * threads) share. Not part of the public API. */
#ifndef CG_INGEST_PRIVATE_H
#define CG_INGEST_PRIVATE_H

#include "ingest.h"
#include "jsonl.h"
#include "reader.h"

/* Adding lines to one timeline (the result, or a shard of it). */
typedef struct cg_ingest_ctx {
	cg_timeline *tl;
	const cg_ingest_options *o;
	cg_jsonl_parser *parser;
	const char *name; /* for messages */
} cg_ingest_ctx;

/* Adds the lines of block b to ctx->tl, exactly as reading them one by one
 * does. Returns 0, or a negative code with err set (strict and a bad line,
 * a limit). The block's bytes are left as they were. */
int cg_ingest_block(cg_ingest_ctx *ctx, cg_block *b, cg_error *err);

/* Reads every block of r into tl on threads parse threads (>= 2) and the
 * calling thread, which merges the parsed blocks in file order. Returns 0
 * or the error cg_ingest_block or the reader gave first in file order. */
int cg_ingest_parallel(cg_ingest_ctx *ctx, cg_reader *r, unsigned threads, cg_error *err);

#endif
