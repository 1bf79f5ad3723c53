/* Which kind of trace a file holds, decided from its first bytes after
 * decompression — never from its name.
 *
 *     cg_format f;
 *     if (cg_format_detect(reader, &f, &err) < 0) ...;
 *     switch (f) { case CG_FORMAT_JSONL: ...; case CG_FORMAT_CHROME: ...; ... }
 */
#ifndef CG_FORMAT_H
#define CG_FORMAT_H

#include <stddef.h>

#include "error.h"
#include "reader.h"

typedef enum cg_format {
	CG_FORMAT_JSONL,	   /* candle-graph/trace/6, one JSON object per line */
	CG_FORMAT_CHROME,	   /* {"traceEvents": [...]} or a bare array of events */
	CG_FORMAT_MEMORY_TIMELINE, /* PyTorch export_memory_timeline raw: [[t, action, bytes, category], ...] */
	CG_FORMAT_SNAPSHOT,	   /* PyTorch CUDA allocator snapshot: a pickle (PROTO opcode first) */
} cg_format;

/* Looks at the first bytes without consuming them: whichever reader API
 * follows still starts at the beginning. Anything not recognised as one of
 * the JSON document formats is JSONL, whose reader reports what is wrong
 * line by line. Returns 0 or a negative code (a read error). */
int cg_format_detect(cg_reader *r, cg_format *out, cg_error *err);

/* The same decision on bytes in memory (the start of a file, possibly cut). */
cg_format cg_format_detect_bytes(const char *p, size_t n);

#endif
