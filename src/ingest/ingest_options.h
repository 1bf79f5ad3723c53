/* How a trace is read: the options every reader takes (ingest.h and each
 * format's reader below it) and the progress callback, both public
 * (cgmem.h). */
#ifndef CG_INGEST_OPTIONS_H
#define CG_INGEST_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmem.h"
#include "timeline.h"

/* The timeline every reader reads into, with the limits of o: string
 * memory, and records (o->max_records as cg_ingest resolved it: 0 none). */
static inline cg_timeline *cg_ingest_timeline_new(const cg_ingest_options *o)
{
	cg_timeline_limits lim = {o->max_string_bytes, o->drop_ops};
	cg_timeline *tl = cg_timeline_new(&lim);
	cg_timeline_set_max_records(tl, o->max_records);
	return tl;
}

/* Calls o->progress when there is one. */
static inline void cg_ingest_progress(const cg_ingest_options *o, uint64_t bytes_read, uint64_t file_bytes,
				      bool done)
{
	if (o->progress)
		o->progress(o->progress_ctx, bytes_read, file_bytes, done);
}

#endif
