#include "escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

static const char replacement[] = "\xef\xbf\xbd";

/* Bytes JSON text takes as they are: printable ASCII but '"' and '\\'. */
static bool json_plain(const unsigned char *s, size_t n)
{
	unsigned bad = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned c = s[i];
		bad |= (c - 0x20u >= 0x5fu) | (c == '"') | (c == '\\');
	}
	return !bad;
}

void cg_escape_json(cg_sink *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	/* Names and ids are plain ASCII nearly always: one copy. */
	if (n + 2 <= CG_SINK_RESERVE_MAX && json_plain(s, n)) {
		char *p = cg_sink_reserve(out, n + 2);
		p[0] = '"';
		memcpy(p + 1, s, n);
		p[n + 1] = '"';
		cg_sink_commit(out, n + 2);
		return;
	}
	cg_sink_putc(out, '"');
	size_t run = 0; /* start of bytes that need no escaping */
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		const char *esc = NULL;
		char buf[8];
		size_t len = 1;
		if (c == '"')
			esc = "\\\"";
		else if (c == '\\')
			esc = "\\\\";
		else if (c == '\n')
			esc = "\\n";
		else if (c == '\r')
			esc = "\\r";
		else if (c == '\t')
			esc = "\\t";
		else if (c < 0x20 || c == 0x7f) {
			snprintf(buf, sizeof buf, "\\u%04x", c);
			esc = buf;
		} else if (c >= 0x80) {
			len = cg_utf8_sequence(s + i, n - i);
			if (len == 0) {
				esc = replacement;
				len = 1;
			} else if (c == 0xc2 && s[i + 1] < 0xa0) {
				/* C1 controls: valid JSON raw, but a terminal acts on them */
				snprintf(buf, sizeof buf, "\\u%04x", s[i + 1]);
				esc = buf;
			}
		}
		if (esc) {
			cg_sink_write(out, s + run, i - run);
			cg_sink_puts(out, esc);
			run = i + len;
		}
		i += len;
	}
	cg_sink_write(out, s + run, n - run);
	cg_sink_putc(out, '"');
}

void cg_escape_html(cg_sink *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		const char *esc = NULL;
		size_t len = 1;
		switch (c) {
		case '&': esc = "&amp;"; break;
		case '<': esc = "&lt;"; break;
		case '>': esc = "&gt;"; break;
		case '"': esc = "&quot;"; break;
		case '\'': esc = "&#39;"; break;
		default:
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
				esc = "";
			} else if (c >= 0x80) {
				len = cg_utf8_sequence(s + i, n - i);
				if (len == 0) {
					esc = replacement;
					len = 1;
				} else if (c == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe) {
					/* U+FFFE, U+FFFF: not XML characters (XML 1.0, 2.2) */
					esc = replacement;
				}
			}
		}
		if (esc) {
			cg_sink_write(out, s + run, i - run);
			cg_sink_puts(out, esc);
			run = i + len;
		}
		i += len;
	}
	cg_sink_write(out, s + run, n - run);
}

void cg_escape_markdown(cg_sink *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = 1;
		switch (c) {
		case '|': case '`': case '*': case '_': case '[': case ']': case '\\':
			cg_sink_putc(out, '\\');
			cg_sink_putc(out, (char)c);
			break;
		case '<': cg_sink_puts(out, "&lt;"); break;
		case '>': cg_sink_puts(out, "&gt;"); break;
		case '&': cg_sink_puts(out, "&amp;"); break;
		case '\n': case '\r': case '\t': cg_sink_putc(out, ' '); break;
		default:
			if (c < 0x20 || c == 0x7f)
				break;
			if (c >= 0x80) {
				len = cg_utf8_sequence(s + i, n - i);
				if (len == 0) {
					cg_sink_puts(out, replacement);
					len = 1;
					break;
				}
			}
			cg_sink_write(out, s + i, len);
		}
		i += len;
	}
}

/* GitHub's toolkit (@actions/core, command.ts: escapeData, escapeProperty). */
static void github(cg_sink *out, const char *s, size_t n, bool property)
{
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		const char *esc = NULL;
		switch (s[i]) {
		case '%': esc = "%25"; break;
		case '\r': esc = "%0D"; break;
		case '\n': esc = "%0A"; break;
		case ':': esc = property ? "%3A" : NULL; break;
		case ',': esc = property ? "%2C" : NULL; break;
		default: break;
		}
		if (esc) {
			cg_sink_write(out, s + run, i - run);
			cg_sink_puts(out, esc);
			run = i + 1;
		}
	}
	cg_sink_write(out, s + run, n - run);
}

void cg_escape_github_data(cg_sink *out, const char *s, size_t n)
{
	github(out, s, n, false);
}

void cg_escape_github_property(cg_sink *out, const char *s, size_t n)
{
	github(out, s, n, true);
}

/* Does a spreadsheet take a cell starting with c for a formula? (OWASP,
 * "CSV injection": = + - @, and TAB / CR, which some strip first.) */
static bool formula_start(unsigned char c)
{
	return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

/* Writes s[0..n) with invalid UTF-8 replaced and '"' doubled when quoted. */
static void csv_body(cg_sink *out, const unsigned char *s, size_t n, bool quoted)
{
	size_t run = 0;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = c < 0x80 ? 1 : cg_utf8_sequence(s + i, n - i);
		if (len == 0 || (quoted && c == '"')) {
			cg_sink_write(out, s + run, i - run);
			cg_sink_puts(out, len == 0 ? replacement : "\"\"");
			len = 1;
			run = i + 1;
		}
		i += len;
	}
	cg_sink_write(out, s + run, n - run);
}

void cg_escape_csv(cg_sink *out, const char *str, size_t n, bool from_trace)
{
	const unsigned char *s = (const unsigned char *)str;
	bool quote = false;
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (quote)
		cg_sink_putc(out, '"');
	if (from_trace && n > 0 && formula_start(s[0]))
		cg_sink_putc(out, '\'');
	csv_body(out, s, n, quote);
	if (quote)
		cg_sink_putc(out, '"');
}

void cg_escape_folded_frame(cg_sink *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = c < 0x80 ? 1 : cg_utf8_sequence(s + i, n - i);
		const char *esc = NULL;
		if (len == 0) {
			esc = replacement;
			len = 1;
		} else if (c == ';') {
			esc = ":";
		} else if (c < 0x20 || c == 0x7f) {
			esc = " ";
		}
		if (esc) {
			cg_sink_write(out, s + run, i - run);
			cg_sink_puts(out, esc);
			run = i + len;
		}
		i += len;
	}
	cg_sink_write(out, s + run, n - run);
}
