/* The parser of record for a JSONL line: cJSON, its tree in the parser's
 * arena (reset for every line), the literal text of numbers taken from the
 * line itself. */
#ifndef CG_JSONL_CJSON_H
#define CG_JSONL_CJSON_H

#include <stddef.h>

#include "jsonl_fields.h"

/* Parses line[0..len) (NUL at line[len]) into p's fields: as
 * cg_jsonl_parse, by cJSON alone. */
int cg_jsonl_parse_cjson(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out,
			 char *msg, size_t msgsize);

/* Installs cgmem's arena hooks into cJSON. Called once by cg_jsonl_parser_new;
 * cJSON uses plain malloc outside a parse. */
void cg_jsonl_init(void);

/* Frees the arena's memory (the parser is being freed). */
void cg_jsonl_arena_free(cg_jsonl_parser *p);

#endif
