#include "units.h"

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cg_fmt_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (bytes < 1024) {
		snprintf(buf, size, "%u B", (unsigned)bytes);
		return buf;
	}
	int u = 0;
	double v = (double)bytes;
	while (v >= 1024.0 && u < 6) {
		v /= 1024.0;
		u++;
	}
	/* Rounding can carry into the next unit: 1023.96 KiB is "1.00 MiB". */
	if (v >= 999.95 && u < 6) {
		v /= 1024.0;
		u++;
	}
	int decimals = v < 100.0 ? 2 : 1;
	snprintf(buf, size, "%.*f %s", decimals, v, units[u]);
	return buf;
}

char *cg_fmt_count(char *buf, size_t size, uint64_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	size_t k = 0;
	for (int i = 0; i < len && k + 1 < size; i++) {
		if (i > 0 && (len - i) % 3 == 0 && k + 2 < size)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	if (size)
		buf[k < size ? k : size - 1] = '\0';
	return buf;
}

char *cg_fmt_time(char *buf, size_t size, uint64_t ns)
{
	double s = (double)ns * 1e-9;
	if (ns >= 100000000ull)
		snprintf(buf, size, "%.3f s", s);
	else if (ns >= 1000000ull)
		snprintf(buf, size, "%.3g ms", (double)ns * 1e-6);
	else if (ns >= 1000ull)
		snprintf(buf, size, "%.3g \xc2\xb5s", (double)ns * 1e-3);
	else
		snprintf(buf, size, "%u ns", (unsigned)ns);
	return buf;
}

char *cg_fmt_percent(char *buf, size_t size, double fraction)
{
	double pct = fraction * 100.0;
	if (pct > 0.0 && pct < 0.05)
		snprintf(buf, size, "<0.1 %%");
	else
		snprintf(buf, size, "%.1f %%", pct);
	return buf;
}

char *cg_fmt_bytes_signed(char *buf, size_t size, int64_t delta)
{
	char b[32];
	uint64_t mag = delta < 0 ? (uint64_t)0 - (uint64_t)delta : (uint64_t)delta;
	snprintf(buf, size, "%s%s", delta > 0 ? "+" : delta < 0 ? "-" : "", cg_fmt_bytes(b, sizeof b, mag));
	return buf;
}

static bool continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

size_t cg_text_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += !continuation(*s);
	return n;
}

/* Byte offset where the first `cols` characters of s end. */
static size_t head_bytes(const char *s, size_t cols)
{
	size_t i = 0;
	for (size_t c = 0; s[i] && c < cols; c++)
		for (i++; s[i] && continuation(s[i]); i++)
			;
	return i;
}

char *cg_fmt_fit(char *buf, size_t size, const char *s, size_t width)
{
	if (size == 0)
		return buf;
	size_t w = cg_text_width(s);
	if (w <= width || width == 0) {
		snprintf(buf, size, "%s", w <= width ? s : "");
		return buf;
	}
	/* keep (width - 1) characters around one "…": the end a little longer,
	 * as the last names of a path say the most */
	size_t keep = width - 1, front = keep / 2, back = keep - front;
	size_t fb = head_bytes(s, front);
	const char *tail = s + head_bytes(s, w - back);
	snprintf(buf, size, "%.*s\xe2\x80\xa6%s", (int)fb, s, tail);
	return buf;
}

/* All digits: parse exactly, since a double cannot hold every 64-bit size. */
static int parse_plain(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			return -2;
	}
	*out = v;
	return 0;
}

int cg_parse_size(const char *s, uint64_t *out)
{
	while (isspace((unsigned char)*s))
		s++;
	int plain = parse_plain(s, out);
	if (plain != -1)
		return plain == 0 ? 0 : -1;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -1;
	while (*end == ' ')
		end++;
	char unit[8] = {0};
	size_t n = strlen(end);
	if (n >= sizeof unit)
		return -1;
	for (size_t i = 0; i < n; i++)
		unit[i] = (char)tolower((unsigned char)end[i]);
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{"", 1}, {"b", 1},
		{"k", 1024.0}, {"kib", 1024.0}, {"ki", 1024.0}, {"kb", 1e3},
		{"m", 1048576.0}, {"mib", 1048576.0}, {"mi", 1048576.0}, {"mb", 1e6},
		{"g", 1073741824.0}, {"gib", 1073741824.0}, {"gi", 1073741824.0}, {"gb", 1e9},
		{"t", 1099511627776.0}, {"tib", 1099511627776.0}, {"ti", 1099511627776.0}, {"tb", 1e12},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(unit, units[i].name) != 0)
			continue;
		double bytes = v * units[i].mult;
		if (bytes >= 18446744073709551615.0)
			return -1;
		*out = (uint64_t)llround(bytes);
		return 0;
	}
	return -1;
}
