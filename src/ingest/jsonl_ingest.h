/* A candle-graph/trace/6 JSONL trace into a timeline: blocks of lines read
 * one after another, or parsed on several threads (ingest_par.h) with the
 * same result to the last diagnostic; a gzip stream cut short marks the
 * trace truncated. */
#ifndef CG_JSONL_INGEST_H
#define CG_JSONL_INGEST_H

#include "error.h"
#include "ingest_options.h"
#include "reader.h"
#include "timeline.h"

/* Reads the lines of r (at its start) into a new finalized timeline (*out,
 * the caller's). path is what the user named ("-" for stdin). Fails with
 * CG_EINPUT (strict and a bad line, no records at all), CG_EIO or
 * CG_ELIMIT; on failure *out is NULL. */
int cg_jsonl_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
		    cg_error *err);

#endif
