#include "termtext.h"

#include <string.h>

#include "utf8.h"
#include "xalloc.h"

/* Bidirectional embeddings, overrides and isolates: LRE RLE PDF LRO RLO
 * and LRI RLI FSI PDI (Unicode's "Trojan Source" set, CVE-2021-42574). */
static bool bidi_control(unsigned cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The unit of text at s (n >= 1 bytes): one byte, or one valid UTF-8
 * character. *len is its length in s. When a terminal must not see it,
 * writes its escape to esc and returns the escape's length; 0 when it
 * prints as it is. */
static size_t unit(const unsigned char *s, size_t n, size_t *len, char esc[8])
{
	static const char hex[] = "0123456789abcdef";
	unsigned c = s[0];
	*len = 1;
	if (c >= 0x20 && c < 0x7f)
		return 0;
	if (c == '\n' || c == '\r' || c == '\t') {
		esc[0] = '\\';
		esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		return 2;
	}
	size_t k = c < 0x80 ? 0 : cg_utf8_sequence(s, n);
	if (k == 0) { /* C0, DEL, or a byte outside valid UTF-8 */
		esc[0] = '\\';
		esc[1] = 'x';
		esc[2] = hex[c >> 4];
		esc[3] = hex[c & 15];
		return 4;
	}
	*len = k;
	unsigned cp;
	if (k == 2)
		cp = (c & 0x1fu) << 6 | (s[1] & 0x3fu);
	else if (k == 3)
		cp = (c & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
	else
		return 0;
	if (cp > 0x9f && !bidi_control(cp))
		return 0;
	memcpy(esc, "\\u", 2);
	for (int i = 0; i < 4; i++)
		esc[2 + i] = hex[(cp >> (12 - 4 * i)) & 15];
	return 6;
}

bool cg_termtext_plain(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		/* printable ASCII, the common case, without a call */
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			i++;
			continue;
		}
		char esc[8];
		size_t len;
		if (unit(s + i, n - i, &len, esc))
			return false;
		i += len;
	}
	return true;
}

size_t cg_termtext_escape(char *buf, size_t size, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t total = 0, written = 0; /* the whole escaped text; what fitted in buf */
	for (size_t i = 0; i < n;) {
		char esc[8];
		size_t len, elen = unit(s + i, n - i, &len, esc);
		const char *piece = elen ? esc : (const char *)s + i;
		size_t plen = elen ? elen : len;
		/* once a piece does not fit, nothing after it is written either */
		if (written == total && total + plen < size) {
			memcpy(buf + written, piece, plen);
			written += plen;
		}
		total += plen;
		i += len;
	}
	if (size > 0)
		buf[written] = '\0';
	return total;
}

char *cg_termtext_dup(const char *s)
{
	size_t n = strlen(s), len = cg_termtext_escape(NULL, 0, s, n);
	char *out = cg_malloc(len + 1);
	cg_termtext_escape(out, len + 1, s, n);
	return out;
}

int cg_termtext_write(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0; /* start of bytes written as they are */
	for (size_t i = 0; i < n;) {
		char esc[8];
		size_t len, elen = unit(s + i, n - i, &len, esc);
		if (elen) {
			fwrite(s + run, 1, i - run, f);
			fwrite(esc, 1, elen, f);
			run = i + len;
		}
		i += len;
	}
	fwrite(s + run, 1, n - run, f);
	return ferror(f) ? -1 : 0;
}

int cg_termtext_vline(FILE *f, const char *fmt, va_list ap)
{
	char small[1024], *text = small;
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0) {
		va_end(again);
		return -1;
	}
	if ((size_t)n >= sizeof small) {
		text = cg_malloc((size_t)n + 1);
		vsnprintf(text, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	int rc = cg_termtext_write(f, text, (size_t)n);
	if (text != small)
		cg_free(text);
	if (putc('\n', f) == EOF)
		rc = -1;
	return rc;
}

int cg_termtext_line(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = cg_termtext_vline(f, fmt, ap);
	va_end(ap);
	return rc;
}
