#include "chrome_stream.h"

#include <cjson/cJSON.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>

#include "xalloc.h"

#define MAX_KEY_NAME_BYTES ((size_t)64 << 10)
#define END_OF_DATA (-1)

enum state {
	ST_START,
	ST_OBJ_KEY,   /* a key or '}' */
	ST_OBJ_AFTER, /* ',' or '}' after a member */
	ST_EV_ELEM,   /* an element or ']' */
	ST_EV_AFTER,  /* ',' or ']' after an element */
	ST_TAIL,      /* only whitespace may follow */
	ST_END,
};

struct cg_chrome_stream {
	cg_reader *r;
	cg_chrome_options o;
	char *buf;
	size_t cap, pos, len; /* unread bytes are buf[pos .. len) */
	uint64_t base;	      /* document offset of buf[0] */
	bool eof;
	enum state state;
	cg_chrome_shape shape;
	bool has_events;
	uint64_t nevents;
	bool truncated, truncated_in_events;
	bool trailing;
	cg_chrome_key *keys;
	size_t nkeys, keys_cap;
};

cg_chrome_stream *cg_chrome_stream_new(cg_reader *r, const cg_chrome_options *o)
{
	cg_chrome_options defaults = CG_CHROME_OPTIONS_INIT;
	cg_chrome_stream *s = cg_calloc(1, sizeof *s);
	s->r = r;
	s->o = o ? *o : defaults;
	if (s->o.read_bytes == 0)
		s->o.read_bytes = defaults.read_bytes;
	s->cap = s->o.read_bytes;
	s->buf = cg_malloc(s->cap);
	return s;
}

void cg_chrome_stream_free(cg_chrome_stream *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nkeys; i++) {
		cg_free(s->keys[i].name);
		cg_free(s->keys[i].value);
	}
	cg_free(s->keys);
	cg_free(s->buf);
	cg_free(s);
}

/* Reads more bytes, keeping buf[keep .. len) (moved to the front). Returns
 * the number of bytes read (0 at the end of the file) or a negative code. */
static int64_t fill(cg_chrome_stream *s, size_t keep, cg_error *err)
{
	if (s->eof)
		return 0;
	if (keep > 0) {
		memmove(s->buf, s->buf + keep, s->len - keep);
		s->len -= keep;
		s->pos -= keep;
		s->base += keep;
	}
	if (s->len == s->cap) {
		s->cap *= 2;
		s->buf = cg_realloc(s->buf, s->cap);
	}
	size_t room = s->cap - s->len;
	int64_t k = cg_reader_read(s->r, s->buf + s->len, room < s->o.read_bytes ? room : s->o.read_bytes, err);
	if (k < 0)
		return k;
	if (k == 0)
		s->eof = true;
	s->len += (size_t)k;
	return k;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next byte that is not whitespace (not consumed), or END_OF_DATA. */
static int peek_nonws(cg_chrome_stream *s, int *c, cg_error *err)
{
	for (;;) {
		while (s->pos < s->len && is_ws(s->buf[s->pos]))
			s->pos++;
		if (s->pos < s->len) {
			*c = (unsigned char)s->buf[s->pos];
			return 0;
		}
		int64_t k = fill(s, s->pos, err);
		if (k < 0)
			return (int)k;
		if (k == 0) {
			*c = END_OF_DATA;
			return 0;
		}
	}
}

/* Where one value is, while its end is being looked for across reads. */
typedef struct vscan {
	int64_t depth;
	bool started, scalar, in_str, esc;
} vscan;

static bool is_delim(char c)
{
	return c == ',' || c == '}' || c == ']' || c == ':' || is_ws(c);
}

/* The first '"' or '\\' at or after p, or end. */
static inline const char *string_stop(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned bits = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* The first quote or bracket at or after p, or end: what changes the
 * scan's state outside strings. */
static inline const char *structural(const char *p, const char *end)
{
#ifdef __SSE2__
	/* '[' ']' and '{' '}' differ only in bit 5: fold it away */
	const __m128i quote = _mm_set1_epi8('"'), fold = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'),
		      close = _mm_set1_epi8('}');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i f = _mm_or_si128(v, fold);
		__m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
					   _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close)));
		unsigned bits = (unsigned)_mm_movemask_epi8(hit);
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']')
		p++;
	return p;
}

/* Advances pos over the value being scanned; true when it ended there. */
static bool scan(cg_chrome_stream *s, vscan *v)
{
	const char *p = s->buf + s->pos, *end = s->buf + s->len;
	if (!v->started && p < end) {
		v->started = true;
		if (*p == '{' || *p == '[') {
			v->depth = 1;
			p++;
		} else if (*p == '"') {
			v->in_str = true;
			p++;
		} else {
			v->scalar = true;
		}
	}
	if (v->scalar) {
		while (p < end && !is_delim(*p))
			p++;
		s->pos = (size_t)(p - s->buf);
		return p < end;
	}
	while (p < end) {
		if (v->in_str) {
			if (v->esc) {
				p++;
				v->esc = false;
				continue;
			}
			/* The bulk of an event is string bytes: skip to the next quote or backslash. */
			p = string_stop(p, end);
			if (p == end)
				break;
			if (*p++ == '\\') {
				v->esc = true;
			} else {
				v->in_str = false;
				if (v->depth == 0) {
					s->pos = (size_t)(p - s->buf);
					return true;
				}
			}
			continue;
		}
		p = structural(p, end);
		if (p == end)
			break;
		char c = *p++;
		if (c == '"') {
			v->in_str = true;
		} else if (c == '{' || c == '[') {
			v->depth++;
		} else if (--v->depth == 0) { /* '}' or ']' */
			s->pos = (size_t)(p - s->buf);
			return true;
		}
	}
	s->pos = s->len;
	return false;
}

typedef struct captured {
	const char *data; /* NULL when longer than the limit */
	size_t len;
	uint64_t offset;
	uint64_t bytes;
	bool complete; /* false: the file ended inside the value */
} captured;

/* Finds the end of the value starting at pos, keeping its bytes while they
 * fit in limit. */
static int capture(cg_chrome_stream *s, size_t limit, captured *out, cg_error *err)
{
	memset(out, 0, sizeof *out);
	size_t mark = s->pos;
	uint64_t dropped = 0;
	bool keeping = true;
	vscan v = {0};
	for (;;) {
		if (s->pos < s->len && scan(s, &v))
			break;
		if (keeping && s->pos - mark > limit) {
			/* Too long to keep: count it and let the buffer move on. */
			keeping = false;
		}
		if (!keeping) {
			dropped += s->pos - mark;
			mark = s->pos;
		}
		uint64_t before = s->base + mark;
		int64_t k = fill(s, mark, err);
		if (k < 0)
			return (int)k;
		mark = (size_t)(before - s->base);
		if (k == 0) {
			out->offset = s->base + mark - dropped;
			out->bytes = dropped + (s->pos - mark);
			/* A number that runs to the end of the file is complete. */
			out->complete = v.scalar && s->pos > mark;
			if (out->complete && keeping) {
				out->data = s->buf + mark;
				out->len = s->pos - mark;
			}
			return 0;
		}
	}
	size_t n = s->pos - mark;
	out->offset = s->base + mark - dropped;
	out->bytes = dropped + n;
	out->complete = true;
	if (keeping && n <= limit) {
		out->data = s->buf + mark;
		out->len = n;
	}
	return 0;
}

static int syntax(cg_chrome_stream *s, int c, const char *expected, cg_error *err)
{
	char found[16];
	if (c >= 0x20 && c < 0x7f)
		snprintf(found, sizeof found, "'%c'", c);
	else
		snprintf(found, sizeof found, "byte 0x%02x", (unsigned)c);
	return cg_error_set(err, CG_EINPUT, "%s: byte offset %llu (after event %llu): expected %s, found %s",
			    cg_reader_name(s->r), (unsigned long long)(s->base + s->pos),
			    (unsigned long long)s->nevents, expected, found);
}

static void cut(cg_chrome_stream *s)
{
	s->truncated = true;
	s->truncated_in_events = s->state == ST_EV_ELEM || s->state == ST_EV_AFTER;
	s->state = ST_END;
}

static void add_key(cg_chrome_stream *s, char *name, const captured *v)
{
	CG_GROW(s->keys, s->keys_cap, s->nkeys + 1);
	cg_chrome_key *k = &s->keys[s->nkeys++];
	k->name = name;
	k->value = v->data ? cg_strndup(v->data, v->len) : NULL;
	k->value_len = v->data ? v->len : 0;
	k->value_bytes = v->bytes;
}

/* What kind of JSON value starts with c, for messages. */
static const char *json_type(int c)
{
	switch (c) {
	case '{': return "it is an object";
	case '"': return "it is a string";
	case 't': case 'f': return "it is true or false";
	case 'n': return "it is null";
	default: return c == '-' || (c >= '0' && c <= '9') ? "it is a number" : "it is not JSON";
	}
}

/* A member of the top-level object: its key, then the events array or a
 * value to keep. Returns 0 (state updated) or a negative code. */
static int member(cg_chrome_stream *s, cg_error *err)
{
	captured key;
	int rc = capture(s, MAX_KEY_NAME_BYTES, &key, err);
	if (rc < 0)
		return rc;
	if (!key.complete) {
		cut(s);
		return 0;
	}
	char *name = NULL;
	if (key.data) {
		cJSON *j = cJSON_ParseWithLength(key.data, key.len);
		if (cJSON_IsString(j))
			name = cg_strdup(j->valuestring);
		cJSON_Delete(j);
		if (!name)
			return cg_error_set(err, CG_EINPUT, "%s: byte offset %llu: a key of the top-level object is not a valid JSON string",
					    cg_reader_name(s->r), (unsigned long long)key.offset);
	} else {
		name = cg_strdup("(a very long key)");
	}
	int c;
	if ((rc = peek_nonws(s, &c, err)) < 0)
		goto fail;
	if (c == END_OF_DATA) {
		cut(s);
		cg_free(name);
		return 0;
	}
	if (c != ':') {
		rc = syntax(s, c, "':' after a key", err);
		goto fail;
	}
	s->pos++;
	if ((rc = peek_nonws(s, &c, err)) < 0)
		goto fail;
	if (c == END_OF_DATA) {
		cut(s);
		cg_free(name);
		return 0;
	}
	if (strcmp(name, "traceEvents") == 0) {
		if (c != '[') {
			rc = cg_error_set(err, CG_EINPUT, "%s: byte offset %llu: \"traceEvents\" is not an array (%s): "
					  "a Chrome trace's events are a JSON array", cg_reader_name(s->r),
					  (unsigned long long)(s->base + s->pos), json_type(c));
			goto fail;
		}
		s->pos++;
		s->has_events = true;
		s->state = ST_EV_ELEM;
		cg_free(name);
		return 0;
	}
	captured v;
	if ((rc = capture(s, s->o.max_key_bytes, &v, err)) < 0)
		goto fail;
	if (!v.complete) {
		cut(s);
		cg_free(name);
		return 0;
	}
	if (v.bytes == 0) {
		rc = syntax(s, c, "a value", err);
		goto fail;
	}
	add_key(s, name, &v);
	s->state = ST_OBJ_AFTER;
	return 0;
fail:
	cg_free(name);
	return rc;
}

static int element(cg_chrome_stream *s, cg_chrome_event *ev, cg_error *err)
{
	captured v;
	int rc = capture(s, s->o.max_event_bytes, &v, err);
	if (rc < 0)
		return rc;
	if (!v.complete) {
		cut(s);
		return 0;
	}
	if (v.bytes == 0) {
		int c = (unsigned char)s->buf[s->pos];
		return syntax(s, c, "an event", err);
	}
	memset(ev, 0, sizeof *ev);
	ev->ordinal = ++s->nevents;
	ev->offset = v.offset;
	if (v.data) {
		ev->data = v.data;
		ev->len = v.len;
	} else {
		ev->overlong = true;
		ev->overlong_bytes = v.bytes;
	}
	s->state = ST_EV_AFTER;
	return 1;
}

static const char utf8_bom[] = "\xef\xbb\xbf";

static int start(cg_chrome_stream *s, cg_error *err)
{
	int c;
	int rc = peek_nonws(s, &c, err);
	if (rc < 0)
		return rc;
	if (c == 0xef) { /* a byte-order mark some Windows tools write */
		while (s->len - s->pos < 3 && !s->eof)
			if ((rc = (int)fill(s, s->pos, err)) < 0)
				return rc;
		if (s->len - s->pos >= 3 && memcmp(s->buf + s->pos, utf8_bom, 3) == 0) {
			s->pos += 3;
			if ((rc = peek_nonws(s, &c, err)) < 0)
				return rc;
		}
	}
	if (c == END_OF_DATA) {
		s->state = ST_END;
		return 0;
	}
	if (c == '{') {
		s->shape = CG_CHROME_OBJECT;
		s->state = ST_OBJ_KEY;
	} else if (c == '[') {
		s->shape = CG_CHROME_ARRAY;
		s->has_events = true;
		s->state = ST_EV_ELEM;
	} else {
		return syntax(s, c, "a JSON object or array", err);
	}
	s->pos++;
	return 0;
}

int cg_chrome_stream_next(cg_chrome_stream *s, cg_chrome_event *ev, cg_error *err)
{
	for (;;) {
		int c, rc;
		if (s->state == ST_END)
			return 0;
		if (s->state == ST_START) {
			if ((rc = start(s, err)) < 0)
				return rc;
			continue;
		}
		if ((rc = peek_nonws(s, &c, err)) < 0)
			return rc;
		if (c == END_OF_DATA) {
			if (s->state == ST_TAIL)
				s->state = ST_END;
			else
				cut(s);
			return 0;
		}
		switch (s->state) {
		case ST_OBJ_KEY:
			if (c == '}') { /* an empty object, or a trailing comma: accepted */
				s->pos++;
				s->state = ST_TAIL;
			} else if (c == '"') {
				if ((rc = member(s, err)) < 0)
					return rc;
			} else {
				return syntax(s, c, "a key in double quotes", err);
			}
			break;
		case ST_OBJ_AFTER:
			if (c != ',' && c != '}')
				return syntax(s, c, "',' or '}' after a top-level value", err);
			s->pos++;
			s->state = c == ',' ? ST_OBJ_KEY : ST_TAIL;
			break;
		case ST_EV_ELEM:
			if (c == ']') { /* an empty array, or a trailing comma: accepted */
				s->pos++;
				s->state = s->shape == CG_CHROME_ARRAY ? ST_TAIL : ST_OBJ_AFTER;
				break;
			}
			return element(s, ev, err);
		case ST_EV_AFTER:
			if (c != ',' && c != ']')
				return syntax(s, c, "',' or ']' after an event", err);
			s->pos++;
			if (c == ',')
				s->state = ST_EV_ELEM;
			else
				s->state = s->shape == CG_CHROME_ARRAY ? ST_TAIL : ST_OBJ_AFTER;
			break;
		case ST_TAIL:
			s->trailing = true;
			s->state = ST_END;
			return 0;
		default:
			return 0;
		}
	}
}

cg_chrome_shape cg_chrome_stream_shape(const cg_chrome_stream *s) { return s->shape; }
bool cg_chrome_stream_has_events(const cg_chrome_stream *s) { return s->has_events; }
uint64_t cg_chrome_stream_nevents(const cg_chrome_stream *s) { return s->nevents; }
bool cg_chrome_stream_trailing_bytes(const cg_chrome_stream *s) { return s->trailing; }
size_t cg_chrome_stream_nkeys(const cg_chrome_stream *s) { return s->nkeys; }

bool cg_chrome_stream_truncated(const cg_chrome_stream *s, bool *in_events)
{
	if (in_events)
		*in_events = s->truncated_in_events;
	return s->truncated;
}

bool cg_chrome_stream_cut_note(const cg_chrome_stream *s, bool gzip_cut, char *buf, size_t size)
{
	if (!s->truncated && !gzip_cut)
		return false;
	const char *gz = gzip_cut ? "; the gzip stream ends early: the file was cut short" : "";
	if (s->truncated && s->truncated_in_events)
		snprintf(buf, size, "the trace ends inside its events array after event %llu "
			 "(the recording process probably died)%s", (unsigned long long)s->nevents, gz);
	else if (s->truncated)
		snprintf(buf, size, "the trace ends before the end of its JSON document, after all "
			 "%llu events%s", (unsigned long long)s->nevents, gz);
	else
		snprintf(buf, size, "the gzip stream ends early: the file was cut short");
	return true;
}

const cg_chrome_key *cg_chrome_stream_key(const cg_chrome_stream *s, size_t i)
{
	return i < s->nkeys ? &s->keys[i] : NULL;
}
