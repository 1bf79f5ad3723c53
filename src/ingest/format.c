#include "format.h"

#include <stdbool.h>
#include <string.h>

/* Enough to see past the harness metadata some tools put before traceEvents. */
#define PEEK_BYTES ((size_t)256 << 10)

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool key_is(const char *k, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(k, name, n) == 0;
}

/* Keys a Chrome trace document has at the top level (Kineto's and the
 * Trace Event Format's own). */
static bool chrome_key(const char *k, size_t n)
{
	static const char *const keys[] = {
		"traceEvents", "schemaVersion", "deviceProperties", "displayTimeUnit",
		"baseTimeNanoseconds", "traceName", "otherData", "systemTraceEvents",
		"stackFrames", "samples", "distributedInfo", "metadata",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (key_is(k, n, keys[i]))
			return true;
	return false;
}

/* The walk of the first object, resumable: the bytes come a window at a
 * time (the first value of a compact Chrome trace may be megabytes long),
 * and each byte is looked at once. */
typedef struct object_scan {
	size_t pos; /* the next byte to look at */
	size_t depth;
	bool in_str, esc, str_is_key;
	size_t str_start;
	bool want_key, chrome_seen;
} object_scan;

#define UNDECIDED (-1)

/* A Chrome document names traceEvents or spans several lines; a JSONL
 * record names its kind and closes on its line. Looks at p[s->pos .. n);
 * returns a cg_format, or UNDECIDED when the object goes on past n. */
static int classify_more(object_scan *s, const char *p, size_t n)
{
	size_t i = s->pos;
	while (i < n) {
		if (s->in_str) {
			/* The bulk is string bytes: straight to a quote or backslash. */
			if (!s->esc)
				while (i < n && p[i] != '"' && p[i] != '\\')
					i++;
			if (i == n)
				break;
			char c = p[i++];
			if (s->esc) {
				s->esc = false;
			} else if (c == '\\') {
				s->esc = true;
			} else {
				s->in_str = false;
				size_t k = i - 1 - s->str_start;
				if (s->str_is_key && key_is(p + s->str_start, k, "traceEvents"))
					return CG_FORMAT_CHROME;
				if (s->str_is_key && key_is(p + s->str_start, k, "kind"))
					return CG_FORMAT_JSONL;
				if (s->str_is_key)
					s->chrome_seen |= chrome_key(p + s->str_start, k);
			}
			continue;
		}
		char c = p[i++];
		if (c == '"') {
			s->in_str = true;
			s->str_is_key = s->depth == 1 && s->want_key;
			s->str_start = i;
		} else if (c == '\n') {
			return CG_FORMAT_CHROME; /* JSONL records are one line each */
		} else if (c == '{' || c == '[') {
			s->depth++;
		} else if (c == '}' || c == ']') {
			if (--s->depth == 0)
				return CG_FORMAT_JSONL;
		} else if (s->depth == 1 && c == ',') {
			s->want_key = true;
		} else if (s->depth == 1 && c == ':') {
			s->want_key = false;
		}
	}
	s->pos = i;
	return UNDECIDED;
}

/* The object ended, or the bytes to look at did, before a decision. */
static cg_format classify_end(const object_scan *s)
{
	return s->chrome_seen ? CG_FORMAT_CHROME : CG_FORMAT_JSONL;
}

/* Decides what it can from the start; *object is set (to the offset of
 * the first object's '{') when the rest depends on that object. */
static cg_format detect_start(const char *data, size_t n, bool *object, size_t *at)
{
	const char *p = data, *end = data + n;
	*object = false;
	/* A pickle starts with PROTO (0x80) and its version: protocols 2 to 5
	 * are snapshots; any other version is still a pickle, which the
	 * snapshot reader refuses by name rather than as bad JSON lines. */
	if (n >= 2 && (unsigned char)p[0] == 0x80 && (unsigned char)p[1] <= 16)
		return CG_FORMAT_SNAPSHOT;
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end && is_ws(*p))
		p++;
	if (p == end)
		return CG_FORMAT_JSONL;
	if (*p == '[') {
		for (p++; p < end && is_ws(*p); p++)
			;
		return p < end && *p == '[' ? CG_FORMAT_MEMORY_TIMELINE : CG_FORMAT_CHROME;
	}
	if (*p == '{') {
		*object = true;
		*at = (size_t)(p - data);
	}
	return CG_FORMAT_JSONL;
}

static object_scan scan_at(size_t at)
{
	object_scan s = {0};
	s.pos = at + 1;
	s.depth = 1;
	s.want_key = true;
	return s;
}

cg_format cg_format_detect_bytes(const char *p, size_t n)
{
	bool object;
	size_t at;
	cg_format f = detect_start(p, n, &object, &at);
	if (!object)
		return f;
	object_scan s = scan_at(at);
	int d = classify_more(&s, p, n);
	return d == UNDECIDED ? classify_end(&s) : (cg_format)d;
}

static bool json_start(unsigned char c)
{
	return c == '{' || c == '[' || is_ws((char)c);
}

/* What the first bytes say a file is when it is none of the formats but a
 * known one cgmem does not read; NULL otherwise. */
static const char *foreign(const unsigned char *p, size_t n, bool gzip)
{
	if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
		return "this is zstd-compressed: cgmem reads plain or gzip";
	if (n >= 4 && memcmp(p, "BZh", 3) == 0 && p[3] >= '1' && p[3] <= '9')
		return "this is bzip2-compressed: cgmem reads plain or gzip";
	if (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
		return "this is xz-compressed: cgmem reads plain or gzip";
	if (gzip && n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return "this is gzip-compressed twice (a gzip file inside the gzip file): cgmem reads plain or "
		       "gzip, one layer deep";
	if (n >= 2 && p[0] == 0xff && p[1] == 0xfe)
		return "this is UTF-16 (little-endian, with a byte-order mark): cgmem reads UTF-8";
	if (n >= 2 && p[0] == 0xfe && p[1] == 0xff)
		return "this is UTF-16 (big-endian, with a byte-order mark): cgmem reads UTF-8";
	/* Without a mark: ASCII JSON text as 16-bit units, a zero byte beside
	 * each character, starting with '{', '[' or whitespace. */
	if (n >= 4 && json_start(p[0]) && p[1] == 0 && p[2] != 0 && p[3] == 0)
		return "this is UTF-16 (little-endian, without a byte-order mark): cgmem reads UTF-8";
	if (n >= 4 && p[0] == 0 && json_start(p[1]) && p[2] == 0 && p[3] != 0)
		return "this is UTF-16 (big-endian, without a byte-order mark): cgmem reads UTF-8";
	return NULL;
}

int cg_format_detect(cg_reader *r, cg_format *out, cg_error *err)
{
	const char *data;
	size_t len, want = PEEK_BYTES;
	int rc = cg_reader_peek(r, want, &data, &len, err);
	if (rc < 0)
		return rc;
	const char *why = foreign((const unsigned char *)data, len, cg_reader_is_gzip(r));
	if (why)
		return cg_error_set(err, CG_EINPUT, "%s: %s", cg_reader_name(r), why);
	bool object;
	size_t at;
	*out = detect_start(data, len, &object, &at);
	if (!object)
		return 0;
	/* The first object is read until it decides, in growing windows: no
	 * further than the longest line JSONL takes (a longer first line would
	 * be a bad line anyway). */
	size_t limit = cg_reader_max_line_bytes(r) + 1;
	object_scan s = scan_at(at);
	for (;;) {
		int d = classify_more(&s, data, len);
		if (d != UNDECIDED) {
			*out = (cg_format)d;
			return 0;
		}
		if (len < want || want >= limit)
			break; /* the file ended, or the limit */
		want = want > limit / 2 ? limit : want * 2;
		if ((rc = cg_reader_peek(r, want, &data, &len, err)) < 0)
			return rc;
	}
	*out = classify_end(&s);
	return 0;
}
