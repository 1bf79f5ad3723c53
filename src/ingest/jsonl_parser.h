/* A JSONL parser's state, which jsonl.c (the parser), jsonl_cjson.c (the
 * cJSON path) and jsonl_fast.c (the scanner) share. Internal to those. */
#ifndef CG_JSONL_PARSER_H
#define CG_JSONL_PARSER_H

#include "jsonl_fields.h"
#include "jsontext.h"

typedef struct cg_arena_chunk cg_arena_chunk;
typedef struct cg_jsonl_arena {
	cg_arena_chunk *head;
} cg_jsonl_arena;

struct cg_jsonl_parser {
	cg_jsonl_arena arena; /* behind cJSON's hooks while it parses */
	cg_fields fields;
	cg_json_span *members; /* raw text of the top-level members */
	size_t members_cap;
	cg_json_span *elems; /* raw text of one array's elements */
	size_t elems_cap;
	char *scratch; /* the fast path's NUL-terminated string copies */
	size_t scratch_cap;
	bool cjson_only;
	uint64_t fast_lines, cjson_lines; /* how lines were parsed */
};

#endif
