/* The events of a Chrome trace on several threads: a reader thread finds
 * them (chrome_stream.h) and copies them into blocks, parse threads scan
 * each event of a block for its fields (kineto_fields.h), and the calling
 * thread takes the events in document order. What it takes, and in which
 * order, is what one thread reading the stream takes. */
#ifndef CG_KINETO_PAR_H
#define CG_KINETO_PAR_H

#include <stdbool.h>

#include "chrome_stream.h"
#include "error.h"
#include "ingest_options.h"
#include "kineto_fields.h"
#include "reader.h"

/* Called for each event in order on the calling thread, with its fields
 * when the scan read them, NULL when it declined (or fast is off): the
 * callee reads the event itself. A negative return stops reading. */
typedef int (*cg_kineto_each)(void *ctx, const cg_chrome_event *ev, const cg_kineto_fields *f, cg_error *err);

/* Reads every event of s (which reads r) on workers (>= 1) parse threads
 * besides the reader thread and the caller's. Returns 0 once the stream
 * says 0, or the first negative code in document order: each's, or the
 * stream's (with err set). Progress goes to o as blocks are taken. */
int cg_kineto_read_parallel(cg_chrome_stream *s, cg_reader *r, const cg_ingest_options *o, unsigned workers,
			    bool fast, cg_kineto_each each, void *ctx, cg_error *err);

#endif
