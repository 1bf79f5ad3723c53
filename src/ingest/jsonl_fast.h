/* A scanner for the common shapes of JSONL records: fills the fields of a
 * line without a tree, and declines every line it does not fully
 * understand, for cJSON to read (jsonl_cjson.h). */
#ifndef CG_JSONL_FAST_H
#define CG_JSONL_FAST_H

#include <stddef.h>

#include "jsonl_fields.h"

/* Returns 1 when it understood the whole of line[0..len) (NUL at line[len]):
 * *out then equals what cg_jsonl_parse_cjson gives for it, field by field;
 * 0 when it declined: escapes, non-ASCII or control bytes in strings,
 * numbers outside JSON's grammar, meta lines, deep nesting, anything not
 * valid JSON. */
int cg_jsonl_parse_fast(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out);

#endif
