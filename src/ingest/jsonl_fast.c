/* The fast path of the JSONL reader: a scanner for the record shapes trace
 * writers produce, filling cg_fields directly without building a tree.
 *
 * It accepts a strict subset of what cJSON accepts and declines the rest:
 * strings without escapes whose bytes are printable ASCII, numbers in JSON's
 * grammar (leading zeros allowed), true/false/null, arrays and objects
 * nested at most MAX_DEPTH deep, spaces and tabs between tokens, and lines
 * that are not meta records. On that subset cJSON's tree and this scan agree
 * on every field (tests/ingest/test_jsonl_fast.c and the fuzz target
 * tests/fuzz/fuzz_jsonl.c compare them); anything else goes to cJSON, which
 * also words the error messages. */
#include "jsonl_fast.h"

#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <string.h>

#include "jsonl_parser.h"
#include "xalloc.h"

#define MAX_DEPTH 32
/* Longest number literal taken here; cJSON reads at most 63 number bytes. */
#define MAX_NUMBER_LEN 40

typedef struct scan {
	const char *p, *end;
	cg_jsonl_parser *parser;
	char *scratch; /* where string copies go */
} scan;

/* A byte a string may hold here; the others (the quote, a backslash, control
 * bytes, DEL, non-ASCII) end the scan, and all but the quote decline the line. */
#define P16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const bool plain_byte[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* '"' */
	P16, P16,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* '\\' */
	P16,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* DEL */
	/* 0x80 and up: 0 */
};

static inline bool plain(unsigned char c)
{
	return plain_byte[c];
}

static inline void skip_ws(scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
		s->p++;
}

#ifdef __SSE2__
/* Sixteen bytes at a time while they fit before end: stops at the first
 * chunk holding a byte that is not plain (compared as signed, bytes from
 * 0x80 up are below 0x20 too). */
static inline const char *skip_plain16(const char *p, const char *end)
{
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
		      del = _mm_set1_epi8(0x7f), space = _mm_set1_epi8(0x20);
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
					    _mm_or_si128(_mm_cmpeq_epi8(v, del), _mm_cmplt_epi8(v, space)));
		unsigned bits = (unsigned)_mm_movemask_epi8(stop);
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
	return p;
}
#else
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static inline uint64_t zero_byte(uint64_t v)
{
	return (v - ONES) & ~v & HIGHS;
}

/* Without SSE2, eight bytes at a time ("Bit Twiddling Hacks"): a byte below
 * 0x20, with the high bit, or equal to '"', '\\' or DEL stops the run. */
static inline const char *skip_plain16(const char *p, const char *end)
{
	while (end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		if (((w - ONES * 0x20) & ~w & HIGHS) | (w & HIGHS) | zero_byte(w ^ (ONES * '"')) |
		    zero_byte(w ^ (ONES * '\\')) | zero_byte(w ^ (ONES * 0x7f)))
			break;
		p += 8;
	}
	return p;
}
#endif

/* A string at s->p (the opening quote); on success s->p is past the closing
 * quote, and text and len give its bytes in the line. */
static inline __attribute__((always_inline)) bool string_span(scan *s, const char **text, size_t *len)
{
	/* Whole chunks first; the bytes left (under 16, or the one that
	 * stopped the chunks) one by one. */
	const char *p = skip_plain16(s->p + 1, s->end);
	while (p < s->end && plain((unsigned char)*p))
		p++;
	if (p >= s->end || *p != '"')
		return false;
	*text = s->p + 1;
	*len = (size_t)(p - *text);
	s->p = p + 1;
	return true;
}

/* The copy is NUL-terminated, as cJSON's valuestring is. Scratch holds the
 * whole line plus one, enough for every string in it with its NUL. */
static const char *copy_string(scan *s, const char *text, size_t len)
{
	char *d = s->scratch;
	memcpy(d, text, len);
	d[len] = '\0';
	s->scratch += len + 1;
	return d;
}

static bool delimiter(const scan *s)
{
	return s->p >= s->end || *s->p == ',' || *s->p == '}' || *s->p == ']' || *s->p == ' ' ||
	       *s->p == '\t';
}

static const char *digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* A number as JSON writes it, leading zeros allowed (strtod, which cJSON
 * calls, reads them): -?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)? */
static inline __attribute__((always_inline)) bool number_span(scan *s, const char **text, size_t *len)
{
	const char *start = s->p, *p = s->p, *d;
	if (p < s->end && *p == '-')
		p++;
	d = p;
	p = digits(p, s->end);
	if (p == d)
		return false;
	if (p < s->end && *p == '.') {
		d = ++p;
		p = digits(p, s->end);
		if (p == d)
			return false;
	}
	if (p < s->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < s->end && (*p == '+' || *p == '-'))
			p++;
		d = p;
		p = digits(p, s->end);
		if (p == d)
			return false;
	}
	if (p - start > MAX_NUMBER_LEN)
		return false;
	s->p = p;
	if (!delimiter(s))
		return false;
	*text = start;
	*len = (size_t)(p - start);
	return true;
}

static bool literal(scan *s, const char *word, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return false;
	s->p += n;
	return delimiter(s);
}

static bool skip_value(scan *s, int depth);

/* Skips an array or object (s->p at its opening bracket), validating it. */
static bool skip_container(scan *s, int depth)
{
	if (depth >= MAX_DEPTH)
		return false;
	bool object = *s->p == '{';
	char close = object ? '}' : ']';
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		return true;
	}
	for (;;) {
		if (object) {
			const char *k;
			size_t kn;
			if (s->p >= s->end || *s->p != '"' || !string_span(s, &k, &kn))
				return false;
			skip_ws(s);
			if (s->p >= s->end || *s->p != ':')
				return false;
			s->p++;
			skip_ws(s);
		}
		if (!skip_value(s, depth + 1))
			return false;
		skip_ws(s);
		if (s->p >= s->end)
			return false;
		if (*s->p == close) {
			s->p++;
			return true;
		}
		if (*s->p != ',')
			return false;
		s->p++;
		skip_ws(s);
	}
}

static bool skip_value(scan *s, int depth)
{
	const char *t;
	size_t n;
	if (s->p >= s->end)
		return false;
	switch (*s->p) {
	case '"': return string_span(s, &t, &n);
	case '{':
	case '[': return skip_container(s, depth);
	case 't': return literal(s, "true", 4);
	case 'f': return literal(s, "false", 5);
	case 'n': return literal(s, "null", 4);
	default: return number_span(s, &t, &n);
	}
}

/* One value into v as jsonl.c's value_of does: strings copied, numbers,
 * arrays and objects as their text. Arrays leave first/count to the caller. */
static bool scan_value(scan *s, cg_jval *v, int depth)
{
	const char *start = s->p, *t;
	size_t n;
	if (s->p >= s->end)
		return false;
	switch (*s->p) {
	case '"':
		if (!string_span(s, &t, &n))
			return false;
		v->type = CG_JT_STRING;
		v->s = copy_string(s, t, n);
		v->n = n;
		return true;
	case '{':
	case '[':
		if (!skip_container(s, depth))
			return false;
		v->type = *start == '{' ? CG_JT_OBJECT : CG_JT_ARRAY;
		v->s = start;
		v->n = (size_t)(s->p - start);
		return true;
	case 't':
		v->type = CG_JT_BOOL;
		v->boolean = true;
		return literal(s, "true", 4);
	case 'f':
		v->type = CG_JT_BOOL;
		return literal(s, "false", 5);
	case 'n':
		v->type = CG_JT_NULL;
		return literal(s, "null", 4);
	default:
		if (!number_span(s, &t, &n))
			return false;
		v->type = CG_JT_NUMBER;
		v->s = t;
		v->n = n;
		return true;
	}
}

/* An array of a field cgmem reads: its elements go into f->elems. */
static bool array_field(scan *s, cg_fields *f, cg_jval *v)
{
	const char *start = s->p;
	v->type = CG_JT_ARRAY;
	v->first = (uint32_t)f->nelems;
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
	} else {
		for (;;) {
			CG_GROW(f->elems, f->elems_cap, f->nelems + 1);
			cg_jval *e = &f->elems[f->nelems];
			memset(e, 0, sizeof *e);
			if (!scan_value(s, e, 1))
				return false;
			f->nelems++;
			skip_ws(s);
			if (s->p >= s->end)
				return false;
			if (*s->p == ']') {
				s->p++;
				break;
			}
			if (*s->p != ',')
				return false;
			s->p++;
			skip_ws(s);
		}
	}
	v->count = (uint32_t)(f->nelems - v->first);
	v->s = start;
	v->n = (size_t)(s->p - start);
	return true;
}

static bool scan_members(scan *s, cg_fields *f)
{
	skip_ws(s);
	if (s->p >= s->end || *s->p != '{')
		return false;
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return true;
	}
	for (;;) {
		const char *key;
		size_t keylen;
		if (s->p >= s->end || *s->p != '"' || !string_span(s, &key, &keylen))
			return false;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ':')
			return false;
		s->p++;
		skip_ws(s);
		int k = cg_field_lookup(key, keylen);
		if (k < 0 || f->v[k].type != CG_JT_ABSENT) {
			/* Not read, or a repeated key: the first occurrence wins. */
			if (!skip_value(s, 1))
				return false;
		} else {
			f->present |= (uint64_t)1 << k;
			if (s->p < s->end && *s->p == '[' ? !array_field(s, f, &f->v[k]) : !scan_value(s, &f->v[k], 1))
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

int cg_jsonl_parse_fast(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out)
{
	cg_fields *f = &p->fields;
	cg_fields_clear(f);
	CG_GROW(p->scratch, p->scratch_cap, len + 1);
	scan s = {line, line + len, p, p->scratch};
	if (!scan_members(&s, f))
		return 0;
	skip_ws(&s);
	if (s.p != s.end)
		return 0;
	/* Meta records keep every member: cJSON's path lists them. */
	const cg_jval *kind = &f->v[CG_F_KIND];
	if (kind->type == CG_JT_STRING && kind->n == 4 && memcmp(kind->s, "meta", 4) == 0)
		return 0;
	*out = f;
	return 1;
}
