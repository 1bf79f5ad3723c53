/* Text for a terminal: strings from a trace (span, op and device names,
 * file names, metadata, excerpts in messages) made harmless to print.
 *
 * A name holding ESC[2J clears the screen, an OSC sequence retitles the
 * window, and "\r" rewrites the start of a CI log line. Every byte or
 * character a terminal would act on is written as a visible escape
 * instead:
 *
 *     \n \r \t             newline, carriage return, tab
 *     \xNN                 other C0 controls (ESC is \x1b), DEL (\x7f), and
 *                          each byte that is not part of valid UTF-8
 *     \u0080 ... \u009f    C1 controls (valid UTF-8, but CSI is U+009B)
 *     \u202a ... \u202e,   bidirectional embeddings, overrides and isolates,
 *     \u2066 ... \u2069    which reorder what the rest of a line shows
 *
 * Everything else, valid UTF-8 included, is written as it is. A backslash
 * stays a backslash: the escaped text is for people, not for parsing back,
 * Windows paths read as they are, and escaping escaped text changes
 * nothing (so a line can be escaped whole after its names were).
 *
 * JSON, Markdown and HTML have escapers of their own (render/output). */
#ifndef CG_TERMTEXT_H
#define CG_TERMTEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True when s[0..n) prints as it is: escaping would not change it. */
bool cg_termtext_plain(const char *s, size_t n);

/* Writes s[0..n) escaped into buf, NUL-terminated when size > 0. A
 * character or an escape is written whole or not at all, so a cut text is
 * still valid UTF-8. Returns the length of the whole escaped text, as
 * snprintf does: a value >= size means it was cut. buf may be NULL when
 * size is 0. */
size_t cg_termtext_escape(char *buf, size_t size, const char *s, size_t n);

/* s escaped, in a new string the caller frees with cg_free. */
char *cg_termtext_dup(const char *s);

/* Writes s[0..n) escaped to f. Returns 0, or -1 when f has an error. */
int cg_termtext_write(FILE *f, const char *s, size_t n);

/* Formats as printf does, writes the text escaped (a newline in it
 * included), then one newline. Returns 0, or -1 when f has an error. */
int cg_termtext_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cg_termtext_vline(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
