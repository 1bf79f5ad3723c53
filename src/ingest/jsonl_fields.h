/* The table of fields one JSONL line is parsed into: the keys cgmem reads
 * and their values, as both parsers (jsonl_cjson.c, jsonl_fast.c) fill it
 * and record.c reads it. Numbers are kept as their literal text, because
 * cJSON's doubles cannot hold every 64-bit size exactly; record.c turns
 * them into integers with range checks. */
#ifndef CG_JSONL_FIELDS_H
#define CG_JSONL_FIELDS_H

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

/* Resets the parts of f every parse starts from. */
void cg_fields_clear(cg_fields *f);

/* A JSONL parser (jsonl.h); its state is in jsonl_parser.h. */
typedef struct cg_jsonl_parser cg_jsonl_parser;

#endif
