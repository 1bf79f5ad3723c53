#include "jsontext.h"

#include <stdbool.h>

#include "checked.h"

/* The walk, for either whitespace rule; inlined into each public entry
 * with the rule a constant, so neither pays for the other. */
static inline __attribute__((always_inline)) bool is_ws(char c, cg_json_ws ws)
{
	if (ws == CG_JSON_WS_CJSON)
		return (unsigned char)c <= 32;
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline __attribute__((always_inline)) const char *skip_ws(const char *p, const char *end, cg_json_ws ws)
{
	while (p < end && is_ws(*p, ws))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < end ? p + 1 : end;
}

static inline __attribute__((always_inline)) const char *skip_value(const char *p, const char *end, cg_json_ws ws)
{
	if (p >= end)
		return end;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		size_t depth = 0;
		while (p < end) {
			char c = *p;
			if (c == '"') {
				p = skip_string(p, end);
				continue;
			}
			if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return end;
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && !is_ws(*p, ws))
		p++;
	return p;
}

static inline __attribute__((always_inline)) size_t children(const char *p, const char *end, cg_json_ws ws,
							      cg_json_span *out, size_t max)
{
	size_t k = 0;
	p = skip_ws(p, end, ws);
	if (p >= end || (*p != '{' && *p != '['))
		return 0;
	bool object = *p == '{';
	p = skip_ws(p + 1, end, ws);
	while (p < end && *p != '}' && *p != ']') {
		if (object) {
			p = skip_string(p, end);
			p = skip_ws(p, end, ws);
			if (p < end)
				p++; /* ':' */
			p = skip_ws(p, end, ws);
		}
		const char *v = p;
		p = skip_value(p, end, ws);
		if (k < max)
			out[k] = (cg_json_span){v, (size_t)(p - v)};
		k++;
		p = skip_ws(p, end, ws);
		if (p < end && *p == ',')
			p = skip_ws(p + 1, end, ws);
	}
	return k;
}

const char *cg_json_skip_ws(const char *p, const char *end, cg_json_ws ws)
{
	return ws == CG_JSON_WS_CJSON ? skip_ws(p, end, CG_JSON_WS_CJSON) : skip_ws(p, end, CG_JSON_WS_JSON);
}

const char *cg_json_skip_value(const char *p, const char *end, cg_json_ws ws)
{
	return ws == CG_JSON_WS_CJSON ? skip_value(p, end, CG_JSON_WS_CJSON) : skip_value(p, end, CG_JSON_WS_JSON);
}

size_t cg_json_children(const char *p, const char *end, cg_json_ws ws, cg_json_span *out, size_t max)
{
	return ws == CG_JSON_WS_CJSON ? children(p, end, CG_JSON_WS_CJSON, out, max)
				      : children(p, end, CG_JSON_WS_JSON, out, max);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The literal's digits, integer part then fraction, as one sequence. */
typedef struct digits {
	const char *ip, *fp;
	size_t ni, nf;
} digits;

static int digit_at(const digits *d, size_t k)
{
	return k < d->ni ? d->ip[k] - '0' : d->fp[k - d->ni] - '0';
}

int cg_json_decimal(const char *s, size_t n, int scale, int64_t *out, bool *exact)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && s[i] == '-') {
		neg = true;
		i++;
	}
	digits d = {s + i, NULL, 0, 0};
	while (i < n && is_digit(s[i])) {
		d.ni++;
		i++;
	}
	if (d.ni == 0)
		return CG_JSON_NOT_NUMBER;
	if (i < n && s[i] == '.') {
		i++;
		d.fp = s + i;
		while (i < n && is_digit(s[i])) {
			d.nf++;
			i++;
		}
		if (d.nf == 0)
			return CG_JSON_NOT_NUMBER;
	}
	long exp10 = 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		bool eneg = false;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		size_t start = i;
		while (i < n && is_digit(s[i])) {
			if (exp10 < 100000) /* beyond that only zero fits, or nothing */
				exp10 = exp10 * 10 + (s[i] - '0');
			i++;
		}
		if (i == start)
			return CG_JSON_NOT_NUMBER;
		if (eneg)
			exp10 = -exp10;
	}
	if (i != n)
		return CG_JSON_NOT_NUMBER;

	/* value = D x 10^shift, D the digit sequence read as an integer. */
	size_t len = d.ni + d.nf;
	long shift = exp10 - (long)d.nf + scale;
	long keep = (long)len + shift; /* digits of D in the integer result */
	uint64_t v = 0;
	bool all_zero_after = true;
	for (size_t k = 0; k < len; k++) {
		int dg = digit_at(&d, k);
		if ((long)k < keep) {
			if (!cg_mul_u64(v, 10, &v) || !cg_add_u64(v, (uint64_t)dg, &v))
				return CG_JSON_RANGE;
		} else if (dg != 0) {
			all_zero_after = false;
		}
	}
	for (long z = 0; z < shift; z++) {
		if (v == 0)
			break;
		if (!cg_mul_u64(v, 10, &v))
			return CG_JSON_RANGE;
	}
	if (keep >= 0 && (size_t)keep < len && digit_at(&d, (size_t)keep) >= 5 &&
	    !cg_add_u64(v, 1, &v))
		return CG_JSON_RANGE;
	if (exact)
		*exact = all_zero_after;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return CG_JSON_RANGE;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return CG_JSON_RANGE;
		*out = (int64_t)v;
	}
	return 0;
}

int cg_json_int(const char *s, size_t n, int64_t *out)
{
	bool exact;
	int rc = cg_json_decimal(s, n, 0, out, &exact);
	if (rc == 0 && !exact)
		return CG_JSON_INEXACT;
	return rc;
}
