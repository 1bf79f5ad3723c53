/* Escaping for every output format, in one place: strings from a trace are
 * hostile until escaped ("<script>", quotes, control bytes, "../"). */
#ifndef CG_ESCAPE_H
#define CG_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "sink.h"

/* Writes s as a JSON string literal, quotes included. Bytes that are not
 * valid UTF-8 become U+FFFD, so the output is always valid JSON. */
void cg_escape_json(cg_sink *out, const char *s, size_t n);
/* Writes s as HTML/XML text or attribute content (& < > " ' escaped,
 * control characters dropped, invalid UTF-8 and the noncharacters U+FFFE
 * and U+FFFF, which XML does not allow, replaced). */
void cg_escape_html(cg_sink *out, const char *s, size_t n);
/* Writes s for a Markdown table cell or text: | ` * _ [ ] < > escaped,
 * newlines as spaces. */
void cg_escape_markdown(cg_sink *out, const char *s, size_t n);
/* Writes s as the message of a GitHub Actions workflow command (after the
 * second "::"): % CR LF as %25 %0D %0A, which the runner decodes. */
void cg_escape_github_data(cg_sink *out, const char *s, size_t n);
/* Writes s as a property value of a workflow command (file=, title=): as
 * the message, and : , as %3A %2C, which would end the value. */
void cg_escape_github_property(cg_sink *out, const char *s, size_t n);

/* Writes s as one CSV field (RFC 4180): in double quotes, with '"'
 * doubled, when it holds ',' '"' CR or LF, else as it is. A field from the
 * trace (from_trace) that starts with = + - @ TAB or CR gets a leading '
 * first, so that no spreadsheet takes it for a formula. Bytes that are not
 * valid UTF-8 become U+FFFD. */
void cg_escape_csv(cg_sink *out, const char *s, size_t n, bool from_trace);
/* Writes s as one frame of a collapsed ("folded") stack: ';', which
 * separates frames, becomes ':'; CR, LF and the other control characters,
 * which would end or garble the line, become spaces; bytes that are not
 * valid UTF-8 become U+FFFD. */
void cg_escape_folded_frame(cg_sink *out, const char *s, size_t n);

#endif
