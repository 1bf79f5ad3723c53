/* Ingest: a trace file into a finalized timeline.
 *
 *     cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
 *     cg_timeline *tl;
 *     cg_error err;
 *     if (cg_ingest(&tl, "run.jsonl.gz", &o, &err) < 0) {
 *             fprintf(stderr, "cgmem: %s\n", err.msg);
 *             ...
 *     }
 *     cg_diag_print(tl, stderr, 20);   // bad lines and warnings
 *     cg_timeline_free(tl);
 *
 * The format comes from the content: candle-graph/trace/6 JSONL, a PyTorch
 * profiler Chrome trace (kineto.h) or an export_memory_timeline raw file
 * (memtimeline_raw.h), each plain or gzip. Bad lines (events) are skipped and
 * counted (the first is fatal with strict); a trace cut mid-record is marked
 * truncated and read up to the cut. JSONL is parsed in blocks on every core
 * (a gzip file inflated on its own thread) with the result, to the last
 * diagnostic, of reading it line by line. */
#ifndef CG_INGEST_H
#define CG_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "timeline.h"

typedef struct cg_ingest_options {
	bool strict;		 /* the first bad line is fatal */
	FILE *progress;		 /* where to draw progress, or NULL */
	size_t max_line_bytes;	 /* longer lines are bad lines */
	size_t max_string_bytes; /* interned string memory; exceeding it is fatal */
	unsigned threads;	 /* parse threads; 0: one per core (at most 8); 1: no threads at all */
	size_t block_bytes;	 /* lines are read and parsed in blocks this big; 0: 4 MiB */
	bool cjson_only;	 /* skip the fast scanner: every line through cJSON */
} cg_ingest_options;

#define CG_INGEST_OPTIONS_INIT {false, NULL, (size_t)64 << 20, (size_t)2 << 30, 0, 0, false}

/* Reads path ("-" for standard input). On success *out is a finalized
 * timeline the caller frees. Fails with CG_EIO (cannot read), CG_EINPUT
 * (strict and a bad line, corrupt gzip, no records at all) or CG_ELIMIT. */
int cg_ingest(cg_timeline **out, const char *path, const cg_ingest_options *o, cg_error *err);

#endif
