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

/* The first object: a Chrome document names traceEvents or spans several
 * lines; a JSONL record names its kind and closes on its line. */
static cg_format classify_object(const char *p, const char *end)
{
	size_t depth = 1;
	bool want_key = true, chrome_seen = false;
	for (p++; p < end; p++) {
		char c = *p;
		if (c == '"') {
			const char *s = ++p;
			while (p < end && *p != '"')
				p += *p == '\\' ? 2 : 1;
			if (p >= end)
				break;
			if (depth == 1 && want_key) {
				size_t n = (size_t)(p - s);
				if (key_is(s, n, "traceEvents"))
					return CG_FORMAT_CHROME;
				if (key_is(s, n, "kind"))
					return CG_FORMAT_JSONL;
				chrome_seen |= chrome_key(s, n);
			}
		} else if (c == '\n') {
			return CG_FORMAT_CHROME; /* JSONL records are one line each */
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth == 0)
				return CG_FORMAT_JSONL;
		} else if (depth == 1 && c == ',') {
			want_key = true;
		} else if (depth == 1 && c == ':') {
			want_key = false;
		}
	}
	return chrome_seen ? CG_FORMAT_CHROME : CG_FORMAT_JSONL;
}

cg_format cg_format_detect_bytes(const char *p, size_t n)
{
	const char *end = p + n;
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
	if (*p == '{')
		return classify_object(p, end);
	return CG_FORMAT_JSONL;
}

int cg_format_detect(cg_reader *r, cg_format *out, cg_error *err)
{
	const char *data;
	size_t len;
	int rc = cg_reader_peek(r, PEEK_BYTES, &data, &len, err);
	if (rc < 0)
		return rc;
	*out = cg_format_detect_bytes(data, len);
	return 0;
}
