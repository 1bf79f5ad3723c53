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

/* A line shape the fast path saw (jsonl_fast.c): the bytes before each
 * member's value (`{"kind":`, `,"bytes":`, spacing included) and the key each
 * names. A line whose bytes between values are these is read value by value. */
#define CG_JSONL_SHAPES 8
#define CG_JSONL_SHAPE_KEYS 16
#define CG_JSONL_SHAPE_LIT 24 /* longest text before a value kept in a shape */
typedef struct cg_jsonl_lit {
	uint64_t word[3], mask[3]; /* the text as three words, and its bytes */
	uint8_t len;
	char text[CG_JSONL_SHAPE_LIT];
} cg_jsonl_lit;

typedef struct cg_jsonl_shape {
	uint64_t head[2]; /* the line's first 16 bytes: which shape to try */
	uint8_t nkeys;	  /* 0: an unused slot */
	uint8_t key[CG_JSONL_SHAPE_KEYS];
	cg_jsonl_lit lit[CG_JSONL_SHAPE_KEYS];
} cg_jsonl_shape;

struct cg_jsonl_parser {
	cg_jsonl_shape shapes[CG_JSONL_SHAPES];
	unsigned last_shape, next_shape; /* tried first; replaced next */
	cg_jsonl_arena arena; /* behind cJSON's hooks while it parses */
	cg_fields fields;
	cg_json_span *members; /* raw text of the top-level members */
	size_t members_cap;
	cg_json_span *elems; /* raw text of one array's elements */
	size_t elems_cap;
	char *scratch; /* the fast path's NUL-terminated string copies */
	size_t scratch_cap;
	char *line_copy; /* a declined line with a NUL after it, for cJSON */
	size_t line_copy_cap;
	bool cjson_only;
	uint64_t fast_lines, cjson_lines; /* how lines were parsed */
	uint64_t shaped_lines;		  /* of the fast ones, read by a shape */
};

#endif
