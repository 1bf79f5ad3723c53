/* A streaming JSON writer: values go straight to a sink, with commas,
 * indentation and escaping handled here. Nothing is built in memory.
 *
 *     cg_jw w;
 *     cg_jw_init(&w, sink, true);
 *     cg_jw_object(&w);
 *     cg_jw_key(&w, "peak_bytes"); cg_jw_u64(&w, 16190672);
 *     cg_jw_end(&w);
 */
#ifndef CG_JSONW_H
#define CG_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink.h"

#define CG_JW_MAX_DEPTH 32

typedef struct cg_jw {
	cg_sink *out;
	bool pretty;
	int depth;
	bool has_items[CG_JW_MAX_DEPTH];
	char closer[CG_JW_MAX_DEPTH];
	bool after_key;
} cg_jw;

void cg_jw_init(cg_jw *w, cg_sink *out, bool pretty);
void cg_jw_object(cg_jw *w);
void cg_jw_array(cg_jw *w);
/* Closes the innermost object or array. */
void cg_jw_end(cg_jw *w);
void cg_jw_key(cg_jw *w, const char *key);

void cg_jw_string(cg_jw *w, const char *s);
void cg_jw_string_n(cg_jw *w, const char *s, size_t n);
void cg_jw_u64(cg_jw *w, uint64_t v);
void cg_jw_i64(cg_jw *w, int64_t v);
/* Finite values in the shortest form that reads back exactly; NaN and
 * infinities (which JSON cannot hold) as null. */
void cg_jw_double(cg_jw *w, double v);
void cg_jw_bool(cg_jw *w, bool v);
void cg_jw_null(cg_jw *w);
/* Writes text that is already valid JSON. */
void cg_jw_raw(cg_jw *w, const char *json, size_t n);

/* key + value shorthands */
void cg_jw_kv_string(cg_jw *w, const char *key, const char *s);
void cg_jw_kv_u64(cg_jw *w, const char *key, uint64_t v);
void cg_jw_kv_double(cg_jw *w, const char *key, double v);
void cg_jw_kv_bool(cg_jw *w, const char *key, bool v);

#endif
