/* JSON text as written: walking text that cJSON has already accepted, to get
 * the literal text of values (cJSON keeps numbers only as doubles, which
 * cannot hold every 64-bit integer or every microsecond timestamp with
 * nanoseconds), and exact decimal arithmetic on number literals.
 *
 *     cJSON *ev = cJSON_ParseWithLength(text, n);      // validates
 *     cg_json_span raw[16];
 *     size_t k = cg_json_children(text, text + n, CG_JSON_WS_JSON, raw, 16);
 *     // raw[i] is the text of the i-th member value, in cJSON's child order
 *     int64_t ns;
 *     if (cg_json_decimal(raw[i].p, raw[i].n, 3, &ns, NULL) == 0) ...   // µs -> ns
 */
#ifndef CG_JSONTEXT_H
#define CG_JSONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cg_json_span {
	const char *p;
	size_t n;
} cg_json_span;

/* What counts as whitespace between tokens: JSON's four bytes, or every
 * byte up to 32 as cJSON takes it. A walk of text cJSON accepted must use
 * cJSON's rule or it loses its place (found by tests/fuzz/fuzz_jsonl). */
typedef enum cg_json_ws { CG_JSON_WS_JSON, CG_JSON_WS_CJSON } cg_json_ws;

const char *cg_json_skip_ws(const char *p, const char *end, cg_json_ws ws);
/* Skips one value of valid JSON text; returns the byte after it. */
const char *cg_json_skip_value(const char *p, const char *end, cg_json_ws ws);
/* For the object or array at p (valid JSON): stores the text of each member
 * value or element into out (at most max) and returns how many there are. */
size_t cg_json_children(const char *p, const char *end, cg_json_ws ws, cg_json_span *out, size_t max);

enum { CG_JSON_NOT_NUMBER = -1, CG_JSON_RANGE = -2, CG_JSON_INEXACT = -3 };

/* Parses a decimal number literal (JSON syntax: sign, digits, fraction,
 * exponent) as value x 10^scale, exactly, into *out. Digits beyond what an
 * integer result holds are rounded half away from zero; when exact is
 * non-NULL it tells whether nothing was rounded away. Returns 0,
 * CG_JSON_NOT_NUMBER or CG_JSON_RANGE (outside int64). */
int cg_json_decimal(const char *s, size_t n, int scale, int64_t *out, bool *exact);

/* An integer literal (no fraction once scaled): 0, or a negative code
 * (CG_JSON_INEXACT when it has a fraction). */
int cg_json_int(const char *s, size_t n, int64_t *out);

#endif
