/* The ranks document: summary.json of a distributed job's top report,
 * with the "ranks" section (docs/ranks.md, docs/summary.schema.json). It is
 * also the partial result `cgmem merge --json` prints, so that merges form
 * a tree: its rows are read back by cg_partial_read (src/ingest/partial.h),
 * the figures recomputed. The same sorted set gives the same bytes. */
#ifndef CG_RANKS_JSON_H
#define CG_RANKS_JSON_H

#include <stdbool.h>

#include "ranks.h"
#include "sink.h"

void cg_ranks_json_write(cg_sink *out, const cg_rankset *s, const cg_ranks_result *f);
/* Writes it to path; CG_EIO on a write error. */
int cg_ranks_json_save(const char *path, const cg_rankset *s, const cg_ranks_result *f, cg_error *err);

#endif
