#include "utf8.h"

#include <stdint.h>
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
		unsigned c = p[i];
		if (c == 0) {
			*offset = i;
			return CG_UTF8_NUL;
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t len;
		unsigned min;
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			min = 0x10000;
		} else {
			*offset = i;
			return CG_UTF8_INVALID;
		}
		if (n - i < len) {
			*offset = i;
			return CG_UTF8_INVALID;
		}
		unsigned cp = c & (0x7f >> len);
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80) {
				*offset = i;
				return CG_UTF8_INVALID;
			}
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			*offset = i;
			return CG_UTF8_INVALID;
		}
		i += len;
	}
	return CG_UTF8_OK;
}

size_t cg_utf8_prefix(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	size_t k = max;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return k;
}
