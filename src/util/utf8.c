#include "utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

cg_utf8_status cg_utf8_check(const char *s, size_t n, size_t *offset)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		/* Fast path: eight ASCII bytes, none of them NUL. */
		if (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			uint64_t has_zero = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
			if (!(w & 0x8080808080808080ull) && !has_zero) {
				i += 8;
				continue;
			}
		}
		if (p[i] == 0) {
			*offset = i;
			return CG_UTF8_NUL;
		}
		size_t len = cg_utf8_sequence(p + i, n - i);
		if (len == 0) {
			*offset = i;
			return CG_UTF8_INVALID;
		}
		i += len;
	}
	return CG_UTF8_OK;
}

size_t cg_utf8_prefix(const char *str, size_t n, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	if (n <= max)
		return n;
	if ((s[max] & 0xc0) != 0x80)
		return max;
	/* s[max] continues a character: the one that starts at most three
	 * bytes before it, if that is valid UTF-8 and reaches s[max] */
	for (size_t back = 1; back <= 3 && back <= max; back++) {
		size_t j = max - back;
		if ((s[j] & 0xc0) != 0x80)
			return cg_utf8_sequence(s + j, n - j) > back ? j : max;
	}
	return max;
}

static const char ellipsis[] = "\xe2\x80\xa6";

char *cg_utf8_excerpt(char *buf, size_t size, const char *s, size_t n, size_t max)
{
	if (size == 0)
		return buf;
	bool cut = n > max;
	size_t room = size - 1, keep = cut ? max : n;
	if (keep + (cut ? 3 : 0) > room) {
		cut = true;
		keep = room >= 3 ? room - 3 : room;
	}
	keep = cg_utf8_prefix(s, n, keep);
	memcpy(buf, s, keep);
	if (cut && keep + 3 <= room) {
		memcpy(buf + keep, ellipsis, 3);
		keep += 3;
	}
	buf[keep] = '\0';
	return buf;
}

/* Length of s[0..n) without the character vsnprintf cut short at its end. */
static size_t drop_partial(const unsigned char *s, size_t n)
{
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned c = s[n - back];
		if ((c & 0xc0) == 0x80)
			continue;
		size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 1;
		return len > back ? n - back : n;
	}
	return n;
}

char *cg_utf8_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	if (size == 0)
		return buf;
	int len = vsnprintf(buf, size, fmt, ap);
	if (len < 0) {
		buf[0] = '\0';
		return buf;
	}
	if ((size_t)len < size)
		return buf;
	/* vsnprintf kept size - 1 bytes; keep fewer, to end with "…" */
	size_t n = size - 1, keep;
	if (size >= 4) {
		keep = cg_utf8_prefix(buf, n, n - 3);
		memcpy(buf + keep, ellipsis, 3);
		keep += 3;
	} else {
		keep = drop_partial((const unsigned char *)buf, n);
	}
	buf[keep] = '\0';
	return buf;
}
