/* Test helpers of the ingest layer: a trace given as text, read as a file. */
#ifndef CG_INGESTUTIL_H
#define CG_INGESTUTIL_H

#include "testutil.h"

#include "ingest.h"
#include "timeline.h"

/* Ingests text (as a file) with default options; asserts success. */
cg_timeline *tu_ingest_text(const char *text);
/* Ingests and returns the result code; err and *out as cg_ingest. */
int tu_ingest_text_rc(const char *text, const cg_ingest_options *o, cg_timeline **out, cg_error *err);

#endif
