/* What jsonl.c (the cJSON path) and jsonl_fast.c (the scanner) share:
 * the parser's state. Not part of the public API. */
#ifndef CG_JSONL_PRIVATE_H
#define CG_JSONL_PRIVATE_H

#include "jsonl.h"

typedef struct cg_arena_chunk cg_arena_chunk;
typedef struct cg_jsonl_arena {
	cg_arena_chunk *head;
} cg_jsonl_arena;

typedef struct cg_raw_span {
	const char *p;
	size_t n;
} cg_raw_span;

struct cg_jsonl_parser {
	cg_jsonl_arena arena; /* behind cJSON's hooks while it parses */
	cg_fields fields;
	cg_raw_span *members; /* raw text of the top-level members */
	size_t members_cap;
	cg_raw_span *elems; /* raw text of one array's elements */
	size_t elems_cap;
	char *scratch; /* the fast path's NUL-terminated string copies */
	size_t scratch_cap;
	bool cjson_only;
	uint64_t fast_lines, cjson_lines; /* how lines were parsed */
};

/* Resets the parts of f every parse starts from. */
void cg_fields_clear(cg_fields *f);

#endif
