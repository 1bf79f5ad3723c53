/* One JSONL line into a table of known fields (jsonl_fields.h).
 *
 * The parser of record is cJSON (jsonl_cjson.h); its tree lives in a
 * per-parser arena that is reset for every line, so no tree outlives its
 * line. A scanner for the common record shapes (jsonl_fast.h) fills the same
 * fields without a tree and declines every line it does not fully
 * understand; cg_jsonl_parse tries it first and hands what it declines to
 * cJSON.
 *
 *     cg_jsonl_parser *p = cg_jsonl_parser_new();
 *     const cg_fields *f;
 *     char msg[256];
 *     if (cg_jsonl_parse(p, line, len, &f, msg, sizeof msg) < 0) ...bad line...
 *     ...f->v[CG_F_BYTES]...
 *     cg_jsonl_parser_free(p);
 */
#ifndef CG_JSONL_H
#define CG_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonl_cjson.h"
#include "jsonl_fast.h"
#include "jsonl_fields.h"

cg_jsonl_parser *cg_jsonl_parser_new(void);
void cg_jsonl_parser_free(cg_jsonl_parser *p);

/* Parses line[0..len); nothing past it is read, so the line may end its
 * buffer. On success *out points into p and stays valid
 * until the next call.
 * On failure returns -1 and writes why into msg ("not valid JSON near
 * column 17", "not a JSON object"). */
int cg_jsonl_parse(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out,
		   char *msg, size_t msgsize);

/* With cjson_only, cg_jsonl_parse never tries the fast scanner (to measure
 * cJSON alone). */
void cg_jsonl_parser_set_cjson_only(cg_jsonl_parser *p, bool cjson_only);
/* Lines parsed so far by each path. */
void cg_jsonl_parser_counts(const cg_jsonl_parser *p, uint64_t *fast, uint64_t *cjson);

#endif
