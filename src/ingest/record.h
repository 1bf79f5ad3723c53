/* Validates one parsed line against the record definitions and appends the
 * typed record to the timeline. */
#ifndef CG_RECORD_H
#define CG_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "jsonl.h"
#include "timeline.h"

enum {
	CG_RECORD_ADDED = 0,
	CG_RECORD_BAD = 1,	    /* msg says why; the line is skipped */
	CG_RECORD_UNKNOWN_KIND = 2, /* counted and skipped; msg names the kind */
};

/* Adds the record in f, read from line number `line`. Returns one of the
 * codes above, or CG_ELIMIT when a resource limit is exceeded. Warnings
 * (unknown category, repeated meta, ...) go to the timeline's diagnostics. */
int cg_record_add(cg_timeline *tl, const cg_fields *f, uint32_t line, char *msg, size_t msgsize);

/* Parses a JSON number literal as an unsigned 64-bit integer. Returns 0, or
 * -1 with the reason ("is negative", "is not an integer", "does not fit in 64 bits"). */
int cg_parse_u64(const char *s, size_t n, uint64_t *out, const char **why);

/* Most dimensions a shape may have. */
#define CG_MAX_DIMS 64

#endif
