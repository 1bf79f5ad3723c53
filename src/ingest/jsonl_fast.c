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
	const char *begin; /* the line's first byte */
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
/* One bit per byte of the sixteen at p that is not plain (compared as
 * signed, bytes from 0x80 up are below 0x20 too). */
static inline unsigned stop_bits16(const char *p)
{
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
		      del = _mm_set1_epi8(0x7f), space = _mm_set1_epi8(0x20);
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
				    _mm_or_si128(_mm_cmpeq_epi8(v, del), _mm_cmplt_epi8(v, space)));
	return (unsigned)_mm_movemask_epi8(stop);
}

/* The first byte at or after p that is not plain, or end. Sixteen bytes at
 * a time; fewer than sixteen left are read as the line's last sixteen
 * (shifted to start at p), so no byte before begin or from end on is read
 * and only lines shorter than sixteen bytes take the byte loop. */
static inline const char *skip_plain(const char *p, const char *begin, const char *end)
{
	while (end - p >= 16) {
		unsigned bits = stop_bits16(p);
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
	if (p < end && end - begin >= 16) {
		unsigned bits = stop_bits16(end - 16) >> (16 - (end - p));
		return bits ? p + __builtin_ctz(bits) : end;
	}
	while (p < end && plain((unsigned char)*p))
		p++;
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

static inline const char *skip_plain(const char *p, const char *begin, const char *end)
{
	(void)begin;
	p = skip_plain16(p, end);
	while (p < end && plain((unsigned char)*p))
		p++;
	return p;
}
#endif

/* A string at s->p (the opening quote); on success s->p is past the closing
 * quote, and text and len give its bytes in the line. */
static inline __attribute__((always_inline)) bool string_span(scan *s, const char **text, size_t *len)
{
	const char *p = skip_plain(s->p + 1, s->begin, s->end);
	if (p >= s->end || *p != '"')
		return false;
	*text = s->p + 1;
	*len = (size_t)(p - *text);
	s->p = p + 1;
	return true;
}

/* Bytes of slack after a line's strings in scratch, so a short string is
 * copied as one sixteen-byte move. */
#define SCRATCH_SLACK 16

/* The copy is NUL-terminated, as cJSON's valuestring is. Scratch holds the
 * whole line plus one, enough for every string in it with its NUL, and
 * SCRATCH_SLACK more. */
static inline const char *copy_string(scan *s, const char *text, size_t len)
{
	char *d = s->scratch;
	if (len <= 16 && s->end - text >= 16)
		memcpy(d, text, 16); /* the bytes after len are overwritten or unused */
	else
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

static inline const char *digits(const char *p, const char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Eight bytes at a time: a byte is a digit when its high nibble is 3
	 * and adding 6 keeps it 3. A byte from 0xfa up carries into the next
	 * one, but is itself not a digit, so the first one flagged is right. */
	while (end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t not_digit = ((w & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull) |
				     (((w + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull);
		if (not_digit)
			return p + (__builtin_ctzll(not_digit) >> 3);
		p += 8;
	}
#endif
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
static inline __attribute__((always_inline)) bool scan_value(scan *s, cg_jval *v, int depth)
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
			*e = (cg_jval){0};
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

static inline uint64_t rd64(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* Remembers the text before a value, as words and masks for lit_at. */
static void set_lit(cg_jsonl_lit *l, const char *text, size_t len)
{
	unsigned char ones[CG_JSONL_SHAPE_LIT] = {0};
	memset(l, 0, sizeof *l);
	memcpy(l->text, text, len);
	memset(ones, 0xff, len);
	l->len = (uint8_t)len;
	for (int i = 0; i < 3; i++) {
		memcpy(&l->word[i], l->text + 8 * i, 8);
		memcpy(&l->mask[i], ones + 8 * i, 8);
	}
}

/* Whether the line at p continues with l's text. */
static inline bool lit_at(const char *p, const char *end, const cg_jsonl_lit *l)
{
	size_t avail = (size_t)(end - p);
	if (avail >= CG_JSONL_SHAPE_LIT)
		return (((rd64(p) ^ l->word[0]) & l->mask[0]) | ((rd64(p + 8) ^ l->word[1]) & l->mask[1]) |
			((rd64(p + 16) ^ l->word[2]) & l->mask[2])) == 0;
	return avail >= l->len && memcmp(p, l->text, l->len) == 0;
}

/* Reads a line of shape sh: 1 when it has that shape (the fields filled as
 * scan_members fills them: the same bytes take the same steps there), 0
 * when a value is not one this path reads (scan_members would fail on it
 * too), -1 when the line has another shape. */
static int match_shape(scan *s, cg_fields *f, const cg_jsonl_shape *sh)
{
	for (unsigned i = 0; i < sh->nkeys; i++) {
		if (!lit_at(s->p, s->end, &sh->lit[i]))
			return -1;
		s->p += sh->lit[i].len;
		int k = sh->key[i];
		f->present |= (uint64_t)1 << k;
		if (s->p < s->end && *s->p == '[' ? !array_field(s, f, &f->v[k]) : !scan_value(s, &f->v[k], 1))
			return 0;
	}
	skip_ws(s);
	if (s->p >= s->end || *s->p != '}')
		return -1;
	s->p++;
	return 1;
}

/* Reads the members of the line's object; with learn, also notes the line's
 * shape there (learn->nkeys stays 0 when the line has none: an unread or
 * repeated key, too many keys, too long a text before a value). */
static bool scan_members(scan *s, cg_fields *f, cg_jsonl_shape *learn)
{
	const char *before = s->p; /* where the text before the next value starts */
	unsigned nkeys = 0;
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
		bool first = k >= 0 && f->v[k].type == CG_JT_ABSENT;
		if (learn) {
			size_t n = (size_t)(s->p - before);
			if (!first || nkeys == CG_JSONL_SHAPE_KEYS || n > CG_JSONL_SHAPE_LIT) {
				learn = NULL;
			} else {
				set_lit(&learn->lit[nkeys], before, n);
				learn->key[nkeys++] = (uint8_t)k;
			}
		}
		if (!first) {
			/* Not read, or a repeated key: the first occurrence wins. */
			if (!skip_value(s, 1))
				return false;
		} else {
			f->present |= (uint64_t)1 << k;
			if (s->p < s->end && *s->p == '[' ? !array_field(s, f, &f->v[k]) : !scan_value(s, &f->v[k], 1))
				return false;
		}
		before = s->p;
		skip_ws(s);
		if (s->p >= s->end)
			return false;
		if (*s->p == '}') {
			s->p++;
			if (learn)
				learn->nkeys = (uint8_t)nkeys;
			return true;
		}
		if (*s->p != ',')
			return false;
		s->p++;
		skip_ws(s);
	}
}

/* The shape to try for a line starting with the sixteen bytes h0 h1. */
static cg_jsonl_shape *find_shape(cg_jsonl_parser *p, uint64_t h0, uint64_t h1)
{
	cg_jsonl_shape *sh = &p->shapes[p->last_shape];
	if (sh->nkeys && sh->head[0] == h0 && sh->head[1] == h1)
		return sh;
	for (unsigned i = 0; i < CG_JSONL_SHAPES; i++) {
		sh = &p->shapes[i];
		if (sh->nkeys && sh->head[0] == h0 && sh->head[1] == h1) {
			p->last_shape = i;
			return sh;
		}
	}
	return NULL;
}

int cg_jsonl_parse_fast(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out)
{
	cg_fields *f = &p->fields;
	cg_fields_clear(f);
	CG_GROW(p->scratch, p->scratch_cap, len + 1 + SCRATCH_SLACK);
	scan s = {.p = line, .end = line + len, .begin = line, .parser = p, .scratch = p->scratch};
	/* Lines of one kind repeat one shape: try the one last seen with the
	 * same first sixteen bytes, else read the line and learn its shape. */
	cg_jsonl_shape *learn = NULL;
	int shaped = -1;
	if (len >= 16) {
		uint64_t h0 = rd64(line), h1 = rd64(line + 8);
		cg_jsonl_shape *sh = find_shape(p, h0, h1);
		if (sh) {
			shaped = match_shape(&s, f, sh);
			if (shaped == 0)
				return 0;
			if (shaped < 0) {
				cg_fields_clear(f);
				s.p = line;
				s.scratch = p->scratch;
			}
		}
		if (shaped < 0) {
			learn = sh ? sh : &p->shapes[p->next_shape++ % CG_JSONL_SHAPES];
			learn->nkeys = 0;
			learn->head[0] = h0;
			learn->head[1] = h1;
		}
	}
	if (shaped < 0 && !scan_members(&s, f, learn))
		goto decline;
	skip_ws(&s);
	if (s.p != s.end)
		goto decline;
	/* Meta records keep every member: cJSON's path lists them. */
	const cg_jval *kind = &f->v[CG_F_KIND];
	if (kind->type == CG_JT_STRING && kind->n == 4 && memcmp(kind->s, "meta", 4) == 0)
		goto decline;
	if (learn && learn->nkeys)
		p->last_shape = (unsigned)(learn - p->shapes);
	p->shaped_lines += shaped > 0;
	*out = f;
	return 1;
decline:
	if (learn)
		learn->nkeys = 0;
	return 0;
}
