#include "jsonw.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "escape.h"

void cg_jw_init(cg_jw *w, cg_sink *out, bool pretty)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	w->pretty = pretty;
}

/* A newline and two spaces a level, in one write. */
static void newline(cg_jw *w)
{
	if (!w->pretty)
		return;
	size_t n = 1 + 2 * (size_t)w->depth;
	char *p = cg_sink_reserve(w->out, n);
	p[0] = '\n';
	memset(p + 1, ' ', n - 1);
	cg_sink_commit(w->out, n);
}

/* Separator and indentation before a value or a key. */
static void before_item(cg_jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->has_items[w->depth])
			cg_sink_putc(w->out, ',');
		w->has_items[w->depth] = true;
		newline(w);
	}
}

static void open_container(cg_jw *w, char open, char close)
{
	before_item(w);
	cg_sink_putc(w->out, open);
	assert(w->depth + 1 < CG_JW_MAX_DEPTH);
	w->depth++;
	w->has_items[w->depth] = false;
	w->closer[w->depth] = close;
}

void cg_jw_object(cg_jw *w) { open_container(w, '{', '}'); }
void cg_jw_array(cg_jw *w) { open_container(w, '[', ']'); }

void cg_jw_end(cg_jw *w)
{
	assert(w->depth > 0);
	bool items = w->has_items[w->depth];
	char close = w->closer[w->depth];
	w->depth--;
	if (items)
		newline(w);
	cg_sink_putc(w->out, close);
	if (w->depth == 0 && w->pretty)
		cg_sink_putc(w->out, '\n');
}

void cg_jw_key(cg_jw *w, const char *key)
{
	before_item(w);
	cg_escape_json(w->out, key, strlen(key));
	cg_sink_write(w->out, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
	w->after_key = true;
}

void cg_jw_string_n(cg_jw *w, const char *s, size_t n)
{
	before_item(w);
	cg_escape_json(w->out, s, n);
}

void cg_jw_string(cg_jw *w, const char *s)
{
	cg_jw_string_n(w, s, strlen(s));
}

void cg_jw_u64(cg_jw *w, uint64_t v)
{
	before_item(w);
	char *p = cg_sink_reserve(w->out, 20);
	cg_sink_commit(w->out, (size_t)(cg_u64_decimal(p, v) - p));
}

void cg_jw_i64(cg_jw *w, int64_t v)
{
	before_item(w);
	char *p = cg_sink_reserve(w->out, 21), *e = p;
	if (v < 0) {
		*e++ = '-';
		e = cg_u64_decimal(e, (uint64_t)(-(v + 1)) + 1); /* INT64_MIN has no positive int64 */
	} else {
		e = cg_u64_decimal(e, (uint64_t)v);
	}
	cg_sink_commit(w->out, (size_t)(e - p));
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v. A summary
 * repeats few values many times (a device's fragmentation at 134,740
 * checkpoints took 170 values), so the text of recent ones is kept, by the
 * value's bits: the same bits always give the same text. */
static size_t shortest_text(double v, char *buf, size_t size)
{
	enum { SLOTS = 256 };
	static _Thread_local struct {
		uint64_t bits;
		unsigned char len; /* 0: empty */
		char text[31];
	} cache[SLOTS];
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	size_t slot = (size_t)((bits * UINT64_C(0x9E3779B97F4A7C15)) >> 56) % SLOTS;
	if (cache[slot].len && cache[slot].bits == bits) {
		memcpy(buf, cache[slot].text, cache[slot].len);
		return cache[slot].len;
	}
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	assert(n > 0 && (size_t)n < sizeof cache[slot].text && (size_t)n < size);
	cache[slot].bits = bits;
	cache[slot].len = (unsigned char)n;
	memcpy(cache[slot].text, buf, (size_t)n);
	return (size_t)n;
}

void cg_jw_double(cg_jw *w, double v)
{
	before_item(w);
	if (!isfinite(v)) {
		cg_sink_puts(w->out, "null");
		return;
	}
	char buf[40];
	cg_sink_write(w->out, buf, shortest_text(v, buf, sizeof buf));
}

void cg_jw_bool(cg_jw *w, bool v)
{
	before_item(w);
	cg_sink_puts(w->out, v ? "true" : "false");
}

void cg_jw_null(cg_jw *w)
{
	before_item(w);
	cg_sink_puts(w->out, "null");
}

void cg_jw_raw(cg_jw *w, const char *json, size_t n)
{
	before_item(w);
	cg_sink_write(w->out, json, n);
}

void cg_jw_kv_string(cg_jw *w, const char *key, const char *s)
{
	cg_jw_key(w, key);
	cg_jw_string(w, s);
}

void cg_jw_kv_u64(cg_jw *w, const char *key, uint64_t v)
{
	cg_jw_key(w, key);
	cg_jw_u64(w, v);
}

void cg_jw_kv_double(cg_jw *w, const char *key, double v)
{
	cg_jw_key(w, key);
	cg_jw_double(w, v);
}

void cg_jw_kv_bool(cg_jw *w, const char *key, bool v)
{
	cg_jw_key(w, key);
	cg_jw_bool(w, v);
}
