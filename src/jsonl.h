/* One JSONL line into a table of known fields.
 *
 * The parser of record is cJSON; its tree lives in a per-parser arena that is
 * reset for every line, so no tree outlives its line. A scanner for the
 * common record shapes (jsonl_fast.c) fills the same fields without a tree
 * and declines every line it does not fully understand. Numbers are kept as
 * their literal text, because cJSON's doubles cannot hold every 64-bit size
 * exactly; record.c turns them into integers with range checks.
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

/* The keys cgmem reads. Order is free; names are in jsonl.c. */
typedef enum cg_field_key {
	CG_F_KIND,
	CG_F_SCHEMA,
	CG_F_ID,
	CG_F_PARENT_ID,
	CG_F_NAME,
	CG_F_START_NS,
	CG_F_SPAN_KIND,
	CG_F_MEASURED,
	CG_F_STEP,
	CG_F_DURATION_NS,
	CG_F_SPAN_ID,
	CG_F_OP_NAME,
	CG_F_INPUTS,
	CG_F_OUTPUT,
	CG_F_SHAPE,
	CG_F_DTYPE,
	CG_F_DEVICE,
	CG_F_TIMESTAMP_NS,
	CG_F_STORAGE_BYTES,
	CG_F_INPUT_STORAGE_BYTES,
	CG_F_TENSOR_ID,
	CG_F_REQUIRES_GRAD,
	CG_F_CATEGORY,
	CG_F_BYTES,
	CG_F_ACTION,
	CG_F_USED_BYTES,
	CG_F_FREE_BYTES,
	CG_F_RESERVED_BYTES,
	CG_F_EVENT_ID,
	CG_F_ROOT,
	CG_F_KEY,
	CG_F_STATE,
	CG_F_NORM,
	CG_F_FROM_SPAN,
	CG_F_TO_SPAN,
	CG_F_COUNT
} cg_field_key;

const char *cg_field_name(cg_field_key k);
/* The key for a member name, or -1 when cgmem does not read it. */
int cg_field_lookup(const char *s, size_t n);

typedef enum cg_jtype {
	CG_JT_ABSENT,
	CG_JT_NULL,
	CG_JT_BOOL,
	CG_JT_NUMBER,
	CG_JT_STRING,
	CG_JT_ARRAY,
	CG_JT_OBJECT
} cg_jtype;

const char *cg_jtype_name(cg_jtype t);

/* A JSON value. STRING: s/n are the unescaped bytes (NUL-terminated).
 * NUMBER: s/n are the literal as written. ARRAY: elements are
 * fields->elems[first .. first + count). OBJECT: s/n are its JSON text. */
typedef struct cg_jval {
	const char *s;
	size_t n;
	uint32_t first;
	uint32_t count;
	uint8_t type;
	bool boolean;
} cg_jval;

typedef struct cg_member {
	const char *key;
	size_t key_len;
	cg_jval value;
	const char *raw; /* the value's JSON text */
	size_t raw_len;
} cg_member;

typedef struct cg_fields {
	cg_jval v[CG_F_COUNT]; /* first occurrence of each key */
	cg_jval *elems;
	size_t nelems, elems_cap;
	cg_member *members; /* every member, in order: filled for meta lines only */
	size_t nmembers, members_cap;
	bool is_meta;
	uint64_t present; /* bit k set when v[k] was filled (so clearing is cheap) */
} cg_fields;

typedef struct cg_jsonl_parser cg_jsonl_parser;

cg_jsonl_parser *cg_jsonl_parser_new(void);
void cg_jsonl_parser_free(cg_jsonl_parser *p);

/* Parses line[0..len), which must be followed by a NUL byte at line[len].
 * On success *out points into p and stays valid until the next call.
 * On failure returns -1 and writes why into msg ("not valid JSON near
 * column 17", "not a JSON object"). */
int cg_jsonl_parse(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out,
		   char *msg, size_t msgsize);

/* The same, by one path only. cg_jsonl_parse tries the fast scanner and
 * hands every line it declines to cJSON, the parser of record.
 * cg_jsonl_parse_fast returns 1 when it understood the whole line (*out then
 * equals what cg_jsonl_parse_cjson gives for it, field by field) and 0 when
 * it declined: escapes, non-ASCII or control bytes in strings, numbers outside
 * JSON's grammar, meta lines, deep nesting, anything not valid JSON. */
int cg_jsonl_parse_cjson(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out,
			 char *msg, size_t msgsize);
int cg_jsonl_parse_fast(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out);

/* With cjson_only, cg_jsonl_parse never tries the fast scanner (to measure
 * cJSON alone). */
void cg_jsonl_parser_set_cjson_only(cg_jsonl_parser *p, bool cjson_only);
/* Lines parsed so far by each path. */
void cg_jsonl_parser_counts(const cg_jsonl_parser *p, uint64_t *fast, uint64_t *cjson);

/* Installs cgmem's arena hooks into cJSON. Called once by cg_jsonl_parser_new;
 * cJSON uses plain malloc outside a parse. */
void cg_jsonl_init(void);

#endif
