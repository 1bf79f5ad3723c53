/* Lines of text for a terminal of a given width, what the summary is made
 * of: every line escaped (termtext.h) and cut at the width with "…",
 * paragraphs wrapped, table cells padded and fitted, and a part of a line
 * emphasised with SGR escapes when colour is on. Internal to render/. */
#ifndef CG_SUMMARY_LINES_H
#define CG_SUMMARY_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "sink.h"

/* SGR parameters of the emphasis: bold red for FAIL, bold for the peak. */
#define CG_SGR_FAIL "1;31"
#define CG_SGR_STRONG "1"

typedef struct cg_lines {
	cg_sink *sink;	/* borrowed */
	unsigned width; /* columns; no line is wider */
	bool color;	/* SGR escapes around emphasised parts */
} cg_lines;

/* Writes raw escaped as one line, cut to the width with "…" at the end (a
 * table row keeps its first columns). */
void cg_lines_put(cg_lines *w, const char *raw);
void cg_lines_putf(cg_lines *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line: lead, then styled (in SGR sgr when colour is on), then rest,
 * each escaped; cut at the width like cg_lines_put, the escapes not
 * counted. */
void cg_lines_put_styled(cg_lines *w, const char *lead, const char *styled, const char *sgr, const char *rest);

/* raw as a paragraph wrapped at the width, every line indented by indent
 * columns. */
void cg_lines_wrap(cg_lines *w, const char *raw, int indent);

/* raw wrapped at the width after lead (in SGR sgr when colour is on and
 * sgr is not NULL), the following lines indented as wide as lead; at most
 * max_lines lines (0: as many as it takes), the last cut with "…". */
void cg_lines_wrap_lead(cg_lines *w, const char *lead, const char *sgr, const char *raw, unsigned max_lines);

/* A paragraph opened by a styled word: "WORD  text...", wrapped at the
 * width, the following lines indented under the text. */
void cg_lines_wrap_styled(cg_lines *w, const char *word, const char *sgr, const char *raw);

/* s escaped, then fitted into width columns with cg_fmt_fit (cut in the
 * middle). Returns buf. */
char *cg_lines_fit(char *buf, size_t size, const char *s, size_t width);

/* Appends s to row, fitted and padded to width columns (right-aligned if
 * right); a row too narrow for its cells is cut. */
void cg_lines_cell(char *row, size_t size, const char *s, size_t width, bool right);

/* The widest a line may be, in bytes: a character or escape takes at most
 * 6 bytes for its column (4 for a character, 6 for "\u009b"). */
#define CG_LINES_BYTES(width) ((size_t)(width) * 6 + 64)

#endif
