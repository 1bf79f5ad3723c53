/* How a trace is read: the options every reader takes (ingest.h and each
 * format's reader below it), and the progress callback. */
#ifndef CG_INGEST_OPTIONS_H
#define CG_INGEST_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Progress while a file is read: bytes taken from the file so far, of
 * file_bytes (0 when its size is not known, as for a pipe). Called on the
 * thread that called cg_ingest, after every block of lines or few thousand
 * events, and once more with done set when reading ends (finalizing the
 * timeline comes after). Drawing it is the caller's business. */
typedef void (*cg_ingest_progress_fn)(void *ctx, uint64_t bytes_read, uint64_t file_bytes, bool done);

typedef struct cg_ingest_options {
	bool strict;			/* the first bad line is fatal */
	cg_ingest_progress_fn progress; /* NULL: no progress reports */
	void *progress_ctx;		/* handed to progress */
	size_t max_line_bytes;		/* longer lines are bad lines */
	size_t max_string_bytes;	/* interned string memory; exceeding it is fatal */
	unsigned threads;		/* parse threads; 0: one per core (at most 8); 1: no threads at all */
	size_t block_bytes;		/* lines are read and parsed in blocks this big; 0: 4 MiB */
	bool cjson_only;		/* skip the fast scanner: every line through cJSON */
} cg_ingest_options;

#define CG_INGEST_OPTIONS_INIT {false, NULL, NULL, (size_t)64 << 20, (size_t)2 << 30, 0, 0, false}

/* Calls o->progress when there is one. */
static inline void cg_ingest_progress(const cg_ingest_options *o, uint64_t bytes_read, uint64_t file_bytes,
				      bool done)
{
	if (o->progress)
		o->progress(o->progress_ctx, bytes_read, file_bytes, done);
}

#endif
