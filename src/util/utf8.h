/* UTF-8: validation of trace lines (which must be valid UTF-8 without NUL
 * bytes), the one decoder of a sequence that validation and the output
 * escapers share, and cutting without splitting a character. */
#ifndef CG_UTF8_H
#define CG_UTF8_H

#include <stdarg.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n >= 1 bytes there): 1 for
 * ASCII (NUL included), 2 to 4, or 0 when it is not valid UTF-8 (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF or cut
 * short by n). */
static inline size_t cg_utf8_sequence(const unsigned char *s, size_t n)
{
	unsigned c = s[0], min, cp;
	size_t len;
	if (c < 0x80)
		return 1;
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
		return 0;
	}
	if (n < len)
		return 0;
	cp = c & (0x7f >> len);
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

typedef enum cg_utf8_status { CG_UTF8_OK, CG_UTF8_NUL, CG_UTF8_INVALID } cg_utf8_status;

/* Checks s[0..n); on failure *offset is the byte offset of the problem. */
cg_utf8_status cg_utf8_check(const char *s, size_t n, size_t *offset);

/* Length of the longest prefix of s[0..n) not longer than max bytes that
 * does not cut a valid multi-byte character. Bytes that are not valid UTF-8
 * count as characters of one byte each. */
size_t cg_utf8_prefix(const char *s, size_t n, size_t max);

/* An excerpt of s[0..n) to quote in a message: all of it when n <= max,
 * else its longest prefix of at most max bytes (cg_utf8_prefix) and "…".
 * Written into buf (size bytes: max + 4 holds any excerpt; a smaller buf
 * cuts it at a character too). Returns buf. */
char *cg_utf8_excerpt(char *buf, size_t size, const char *s, size_t n, size_t max);

/* vsnprintf that never ends inside a character: a text longer than buf is
 * cut at a character boundary and ends with "…" (when size >= 4). Returns
 * buf. */
char *cg_utf8_vformat(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
