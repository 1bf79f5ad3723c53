/* The members of one Chrome-trace event that the Kineto reader uses, as
 * text: what kineto_events.c decides from. Two ways fill them and must
 * agree on every field: a scan of the event's bytes for the shape PyTorch
 * writes (cg_kineto_fields_fast, no tree, no allocation), and cJSON for
 * every other event (cg_kineto_fields_cjson), which also words the error
 * for text that is not JSON. tests/ingest/test_kineto_fields.c and the fuzz
 * target tests/fuzz/fuzz_kineto_fields.c compare the two. */
#ifndef CG_KINETO_FIELDS_H
#define CG_KINETO_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a member's value is, as cJSON's type tests tell it. */
typedef enum cg_kv_type {
	CG_KV_NONE,   /* absent */
	CG_KV_STRING, /* s/n: the string's bytes, unescaped, up to any NUL (cJSON's valuestring) */
	CG_KV_NUMBER, /* s/n: the literal as written */
	CG_KV_OBJECT, /* s/n: unused */
	CG_KV_OTHER,  /* array, true, false, null */
} cg_kv_type;

typedef struct cg_kv {
	const char *s;
	size_t n;
	uint8_t type;
} cg_kv;

/* The event's members (the first of each name) and, when "args" is an
 * object, the first of each of its members below. */
enum {
	CG_KF_PH, CG_KF_NAME, CG_KF_CAT, CG_KF_TS, CG_KF_DUR, CG_KF_PID, CG_KF_TID, CG_KF_ARGS,
	CG_KA_BYTES, CG_KA_ADDR, CG_KA_DEVICE_TYPE, CG_KA_DEVICE_ID, CG_KA_TOTAL_ALLOCATED,
	CG_KA_TOTAL_RESERVED,
	CG_KF_COUNT,
	CG_KA_FIRST = CG_KA_BYTES,
};

/* The member names, indexed as above. */
extern const char *const cg_kineto_field_names[CG_KF_COUNT];

typedef struct cg_kineto_fields {
	cg_kv f[CG_KF_COUNT];
} cg_kineto_fields;

/* Fills *out from the event text [p, p + n) when it has the common shape
 * (below), pointing into that text; false: it has not, and nothing is
 * decided — take cJSON's view. The shape: an object; strings without
 * backslashes or NUL bytes; numbers in JSON's grammar of at most 40 bytes;
 * true/false/null; arrays and objects nested at most 32 deep; JSON's four
 * whitespace bytes between tokens. Every such text is valid JSON, and
 * cJSON's tree of it gives the same fields. */
bool cg_kineto_fields_fast(const char *p, size_t n, cg_kineto_fields *out);

/* The same fields from cJSON's tree root of the same text (an object);
 * strings point into the tree, numbers into the text. raw is scratch for
 * the members' text (grown as needed). */
struct cJSON;
struct cg_json_span;
void cg_kineto_fields_cjson(const struct cJSON *root, const char *p, size_t n, struct cg_json_span **raw,
			    size_t *raw_cap, cg_kineto_fields *out);

#endif
