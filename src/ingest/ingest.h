/* Ingest: a trace file into a finalized timeline.
 *
 *     cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
 *     cg_timeline *tl;
 *     cg_error err;
 *     if (cg_ingest(&tl, "run.jsonl.gz", &o, &err) < 0) {
 *             fprintf(stderr, "cgmem: %s\n", err.msg);
 *             ...
 *     }
 *     ...tl->source.diags...   // bad lines and warnings, with their lines
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

#include "ingest_options.h"
#include "timeline.h"

/* The record limit when cg_ingest_options.max_records is 0: the memory the
 * process may still use (cg_memory_budget: rlimits, cgroup, MemAvailable)
 * at twice CG_RECORD_COST bytes a record (arrays grow by doubling; reading
 * and the report need their share); never below CG_MIN_DEFAULT_RECORDS, so
 * a small trace reads anywhere. */
#define CG_MIN_DEFAULT_RECORDS 1000000
uint64_t cg_ingest_default_max_records(void);

/* cg_ingest (a file, "-" for standard input) and cg_ingest_memory are
 * public, declared in cgmem.h: on success *out is a finalized timeline the
 * caller frees. */

#endif
