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

size_t cg_utf8_prefix(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	size_t k = max;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return k;
}
