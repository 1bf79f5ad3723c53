/* Diagnostics about the trace: bad lines and warnings, each with its line. */
#ifndef CG_DIAG_H
#define CG_DIAG_H

#include <stdint.h>

#include "timeline.h"

/* Counts the diagnostic (bad lines in source.bad_lines, warnings in
 * source.warnings) and keeps its text while fewer than CG_MAX_DIAGS are kept. */
void cg_diag_add(cg_timeline *tl, cg_diag_kind kind, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
