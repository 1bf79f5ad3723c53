/* Lines for a terminal of a given width (summary_lines.h). */
#include "summary_lines.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "termtext.h"
#include "units.h"
#include "utf8.h"
#include "xalloc.h"

#define ELLIPSIS "\xe2\x80\xa6"

static bool continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

/* Bytes of the first cols characters of s. */
static size_t head(const char *s, size_t cols)
{
	size_t i = 0;
	for (size_t c = 0; s[i] && c < cols; c++) {
		i++;
		while (s[i] && continuation(s[i]))
			i++;
	}
	return i;
}

/* Names reach the terminal escaped: where they are aligned or fitted,
 * before measuring them (an escape is as wide as it is long); and every
 * line again as it is written, which changes nothing already escaped and
 * catches what was not. */
void cg_lines_put_styled(cg_lines *w, const char *lead, const char *styled, const char *sgr, const char *rest)
{
	char *part[3] = {cg_termtext_dup(lead), cg_termtext_dup(styled), cg_termtext_dup(rest)};
	size_t total = 0;
	for (int i = 0; i < 3; i++)
		total += cg_text_width(part[i]);
	bool cut = total > w->width;
	size_t budget = cut ? w->width - 1 : total; /* columns of text kept */
	for (int i = 0; i < 3; i++) {
		size_t cols = cg_text_width(part[i]);
		if (cols > budget)
			cols = budget;
		size_t n = head(part[i], cols);
		bool emph = i == 1 && w->color && sgr && n > 0;
		if (emph) {
			cg_sink_puts(w->sink, "\x1b[");
			cg_sink_puts(w->sink, sgr);
			cg_sink_putc(w->sink, 'm');
		}
		cg_sink_write(w->sink, part[i], n);
		if (emph)
			cg_sink_puts(w->sink, "\x1b[0m");
		budget -= cols;
		cg_free(part[i]);
	}
	if (cut)
		cg_sink_puts(w->sink, ELLIPSIS);
	cg_sink_putc(w->sink, '\n');
}

void cg_lines_put(cg_lines *w, const char *raw)
{
	cg_lines_put_styled(w, raw, "", NULL, "");
}

void cg_lines_putf(cg_lines *w, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(buf, sizeof buf, fmt, ap);
	va_end(ap);
	cg_lines_put(w, buf);
}

/* The first line of a paragraph: first styled but for its trailing
 * spaces, then line. */
static void put_first(cg_lines *w, const char *first, const char *sgr, const char *line)
{
	size_t n = strlen(first);
	while (n > 0 && first[n - 1] == ' ')
		n--;
	char *head = cg_strndup(first, n);
	size_t size = strlen(first) - n + strlen(line) + 1;
	char *rest = cg_malloc(size);
	snprintf(rest, size, "%s%s", first + n, line);
	cg_lines_put_styled(w, "", head, sgr, rest);
	cg_free(rest);
	cg_free(head);
}

/* Writes text (escaped) wrapped into lines of at most w->width - indent
 * columns, the first opened by first (styled) and the others by indent
 * spaces; at most max_lines lines (0: any), the last cut with "…". */
static void wrap(cg_lines *w, const char *raw, int indent, const char *first, const char *sgr, unsigned max_lines)
{
	char *text = cg_termtext_dup(raw); /* wrapped as it is shown */
	size_t room = w->width > (unsigned)indent ? w->width - (unsigned)indent : 1;
	char *line = cg_malloc(CG_LINES_BYTES(w->width));
	char pad[CG_LINES_BYTES(0)];
	snprintf(pad, sizeof pad, "%*s", indent, "");
	const char *p = text;
	bool opened = false;
	unsigned written = 0;
	if (!*p && first)
		put_first(w, first, sgr, "");
	while (*p) {
		if (max_lines && written + 1 == max_lines) {
			/* the last line allowed: the rest, cut at the width */
			if (!opened && first)
				put_first(w, first, sgr, p);
			else
				cg_lines_put_styled(w, pad, "", NULL, p);
			break;
		}
		written++;
		size_t len = 0, cols = 0, last_space = 0;
		while (p[len] && cols < room) {
			if (p[len] == ' ')
				last_space = len;
			len++;
			while (p[len] && continuation(p[len]))
				len++;
			cols++;
		}
		if (p[len] && p[len] != ' ' && last_space > 0)
			len = last_space;
		memcpy(line, p, len);
		line[len] = '\0';
		if (!opened && first)
			put_first(w, first, sgr, line);
		else
			cg_lines_put_styled(w, pad, "", NULL, line);
		opened = true;
		p += len;
		while (*p == ' ')
			p++;
	}
	cg_free(line);
	cg_free(text);
}

void cg_lines_wrap(cg_lines *w, const char *raw, int indent)
{
	wrap(w, raw, indent, NULL, NULL, 0);
}

void cg_lines_wrap_lead(cg_lines *w, const char *lead, const char *sgr, const char *raw, unsigned max_lines)
{
	wrap(w, raw, (int)cg_text_width(lead), lead, sgr, max_lines);
}

void cg_lines_wrap_styled(cg_lines *w, const char *word, const char *sgr, const char *raw)
{
	char first[64];
	snprintf(first, sizeof first, "%-4s  ", word);
	cg_lines_wrap_lead(w, first, sgr, raw, 0);
}

char *cg_lines_fit(char *buf, size_t size, const char *s, size_t width)
{
	if (cg_termtext_plain(s, strlen(s)))
		return cg_fmt_fit(buf, size, s, width);
	char *shown = cg_termtext_dup(s);
	cg_fmt_fit(buf, size, shown, width);
	cg_free(shown);
	return buf;
}

void cg_lines_cell(char *row, size_t size, const char *s, size_t width, bool right)
{
	char fitted[4096]; /* 512 columns of escapes */
	cg_lines_fit(fitted, sizeof fitted, s, width);
	size_t w = cg_text_width(fitted), len = strlen(row);
	size_t pad = width > w ? width - w : 0;
	/* Padding, text, padding; a row too narrow for its cells is cut. */
	size_t lead = right ? pad : 0, trail = right ? 0 : pad, flen = strlen(fitted);
	for (size_t i = 0; i < lead && len + 1 < size; i++)
		row[len++] = ' ';
	for (size_t i = 0; i < flen && len + 1 < size; i++)
		row[len++] = fitted[i];
	for (size_t i = 0; i < trail && len + 1 < size; i++)
		row[len++] = ' ';
	row[len] = '\0';
}
