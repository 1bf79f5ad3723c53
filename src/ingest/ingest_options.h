/* How a trace is read: the options every reader takes (ingest.h and each
 * format's reader below it) and the progress callback, both public
 * (cgmem.h). */
#ifndef CG_INGEST_OPTIONS_H
#define CG_INGEST_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmem.h"

/* Calls o->progress when there is one. */
static inline void cg_ingest_progress(const cg_ingest_options *o, uint64_t bytes_read, uint64_t file_bytes,
				      bool done)
{
	if (o->progress)
		o->progress(o->progress_ctx, bytes_read, file_bytes, done);
}

#endif
