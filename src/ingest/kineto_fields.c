#include "kineto_fields.h"

#include <cjson/cJSON.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <string.h>

#include "jsontext.h"
#include "xalloc.h"

const char *const cg_kineto_field_names[CG_KF_COUNT] = {
	"ph", "name", "cat", "ts", "dur", "pid", "tid", "args",
	"Bytes", "Addr", "Device Type", "Device Id", "Total Allocated", "Total Reserved",
};

/* strlen of each name above */
static const uint8_t name_len[CG_KF_COUNT] = {2, 4, 3, 2, 3, 3, 3, 4, 5, 4, 11, 9, 15, 14};

#define MAX_DEPTH 32
/* Longest number literal taken here; cJSON reads at most 63 number bytes. */
#define MAX_NUMBER_LEN 40

/* --- the scan ------------------------------------------------------------------ */

typedef struct scan {
	const char *p, *end;
} scan;

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline void skip_ws(scan *s)
{
	while (s->p < s->end && is_ws(*s->p))
		s->p++;
}

/* The first '"', '\\' or NUL byte at or after p, or end. */
static inline const char *string_stop(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), zero = _mm_setzero_si128();
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
					    _mm_cmpeq_epi8(v, zero));
		unsigned bits = (unsigned)_mm_movemask_epi8(stop);
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\' && *p != '\0')
		p++;
	return p;
}

/* A string at s->p (its opening quote): its bytes, s->p past it. A
 * backslash or NUL declines (cJSON's unescaping and valuestring decide). */
static inline bool string_span(scan *s, const char **text, size_t *len)
{
	const char *q = string_stop(s->p + 1, s->end);
	if (q >= s->end || *q != '"')
		return false;
	*text = s->p + 1;
	*len = (size_t)(q - *text);
	s->p = q + 1;
	return true;
}

static inline bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A number in JSON's grammar (leading zeros allowed, as cJSON's strtod takes them). */
static bool number_span(scan *s)
{
	const char *p = s->p, *e = s->end;
	if (p < e && *p == '-')
		p++;
	if (p >= e || !digit(*p))
		return false;
	while (p < e && digit(*p))
		p++;
	if (p < e && *p == '.') {
		if (++p >= e || !digit(*p))
			return false;
		while (p < e && digit(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || !digit(*p))
			return false;
		while (p < e && digit(*p))
			p++;
	}
	if (p - s->p > MAX_NUMBER_LEN)
		return false;
	s->p = p;
	return true;
}

static bool literal(scan *s, const char *word, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return false;
	s->p += n;
	return true;
}

/* Values that end at a delimiter must not run into another token. */
static inline bool delimited(const scan *s)
{
	return s->p == s->end || is_ws(*s->p) || *s->p == ',' || *s->p == '}' || *s->p == ']';
}

static bool value(scan *s, int depth, cg_kv *kv);

/* The members of the object at s->p ('{'). names[first..last) are the
 * members kept, into out (NULL: none kept); "args" at the top opens its
 * own members. */
static bool object(scan *s, int depth, cg_kineto_fields *out, int first, int last)
{
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return true;
	}
	for (;;) {
		if (s->p >= s->end || *s->p != '"')
			return false;
		const char *key;
		size_t klen;
		if (!string_span(s, &key, &klen))
			return false;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ':')
			return false;
		s->p++;
		skip_ws(s);
		int slot = -1;
		if (out)
			for (int i = first; i < last; i++)
				if (name_len[i] == klen && out->f[i].type == CG_KV_NONE &&
				    memcmp(cg_kineto_field_names[i], key, klen) == 0) {
					slot = i;
					break;
				}
		if (slot == CG_KF_ARGS && s->p < s->end && *s->p == '{') {
			out->f[slot].type = CG_KV_OBJECT;
			const char *start = s->p;
			if (depth + 1 > MAX_DEPTH || !object(s, depth + 1, out, CG_KA_FIRST, CG_KF_COUNT))
				return false;
			out->f[slot].s = start;
			out->f[slot].n = (size_t)(s->p - start);
		} else {
			cg_kv scratch;
			if (!value(s, depth, slot >= 0 ? &out->f[slot] : &scratch))
				return false;
		}
		skip_ws(s);
		if (s->p >= s->end)
			return false;
		if (*s->p == '}') {
			s->p++;
			return true;
		}
		if (*s->p != ',')
			return false;
		s->p++;
		skip_ws(s);
	}
}

static bool array(scan *s, int depth)
{
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return true;
	}
	for (;;) {
		cg_kv scratch;
		if (!value(s, depth, &scratch))
			return false;
		skip_ws(s);
		if (s->p >= s->end)
			return false;
		if (*s->p == ']') {
			s->p++;
			return true;
		}
		if (*s->p != ',')
			return false;
		s->p++;
		skip_ws(s);
	}
}

/* One value at s->p, into *kv. */
static bool value(scan *s, int depth, cg_kv *kv)
{
	if (s->p >= s->end)
		return false;
	const char *start = s->p;
	char c = *s->p;
	if (c == '"') {
		if (!string_span(s, &kv->s, &kv->n))
			return false;
		kv->type = CG_KV_STRING;
		return true;
	}
	if (c == '{' || c == '[') {
		if (depth + 1 > MAX_DEPTH)
			return false;
		if (!(c == '{' ? object(s, depth + 1, NULL, 0, 0) : array(s, depth + 1)))
			return false;
		kv->type = c == '{' ? CG_KV_OBJECT : CG_KV_OTHER;
	} else if (c == '-' || digit(c)) {
		if (!number_span(s) || !delimited(s))
			return false;
		kv->type = CG_KV_NUMBER;
	} else if (literal(s, "true", 4) || literal(s, "false", 5) || literal(s, "null", 4)) {
		if (!delimited(s))
			return false;
		kv->type = CG_KV_OTHER;
	} else {
		return false;
	}
	kv->s = start;
	kv->n = (size_t)(s->p - start);
	return true;
}

bool cg_kineto_fields_fast(const char *p, size_t n, cg_kineto_fields *out)
{
	memset(out, 0, sizeof *out);
	scan s = {p, p + n};
	skip_ws(&s);
	if (s.p >= s.end || *s.p != '{' || !object(&s, 1, out, 0, CG_KA_FIRST))
		return false;
	skip_ws(&s);
	return s.p == s.end;
}

/* --- cJSON's view --------------------------------------------------------------- */

/* The text of each member, in cJSON's child order (numbers stay exact). */
static size_t raw_members(const char *text, size_t len, cg_json_span **buf, size_t *cap)
{
	size_t n = cg_json_children(text, text + len, CG_JSON_WS_JSON, *buf, *cap);
	if (n > *cap) {
		CG_GROW(*buf, *cap, n);
		n = cg_json_children(text, text + len, CG_JSON_WS_JSON, *buf, *cap);
	}
	return n;
}

static void take(const cJSON *c, cg_json_span raw, cg_kv *kv)
{
	if (cJSON_IsString(c)) {
		kv->type = CG_KV_STRING;
		kv->s = c->valuestring;
		kv->n = strlen(c->valuestring);
	} else {
		kv->type = cJSON_IsNumber(c) ? CG_KV_NUMBER : cJSON_IsObject(c) ? CG_KV_OBJECT : CG_KV_OTHER;
		kv->s = raw.p;
		kv->n = raw.n;
	}
}

/* The first member of each name in names[first..last). */
static void members(const cJSON *obj, const cg_json_span *raw, size_t n, cg_kineto_fields *out, int first,
		    int last)
{
	size_t i = 0;
	for (const cJSON *c = obj->child; c && i < n; c = c->next, i++)
		for (int k = first; k < last; k++)
			if (out->f[k].type == CG_KV_NONE && strcmp(c->string, cg_kineto_field_names[k]) == 0) {
				take(c, raw[i], &out->f[k]);
				break;
			}
}

void cg_kineto_fields_cjson(const cJSON *root, const char *p, size_t n, cg_json_span **raw, size_t *raw_cap,
			    cg_kineto_fields *out)
{
	memset(out, 0, sizeof *out);
	size_t k = raw_members(p, n, raw, raw_cap);
	members(root, *raw, k, out, 0, CG_KA_FIRST);
	const cg_kv *args = &out->f[CG_KF_ARGS];
	if (args->type != CG_KV_OBJECT)
		return;
	const cJSON *a = NULL;
	size_t i = 0;
	for (const cJSON *c = root->child; c && i < k; c = c->next, i++)
		if (strcmp(c->string, "args") == 0) {
			a = c;
			break;
		}
	k = raw_members(args->s, args->n, raw, raw_cap);
	members(a, *raw, k, out, CG_KA_FIRST, CG_KF_COUNT);
}
