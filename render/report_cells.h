/* What the report's modules (report.c, report_snapshot.c) share to build
 * table rows: one buffer per cell and the formatting that fills it. */
#ifndef CG_REPORT_CELLS_H
#define CG_REPORT_CELLS_H

#include <stdint.h>
#include <stdio.h>

#include "doc.h"
#include "timeline.h"
#include "units.h"

#define ROW(d, ...) cg_doc_row(d, (const char *const[]){__VA_ARGS__})

/* Buffers for one table cell each; formatting helpers write into them. */
typedef char cell[160];

static inline const char *bytes(cell c, uint64_t b)
{
	return cg_fmt_bytes(c, sizeof(cell), b);
}

/* "12.97 GiB (13,923,997,700 B)" */
static inline const char *bytes_exact(cell c, uint64_t b)
{
	char h[32], e[32];
	snprintf(c, sizeof(cell), "%s (%s B)", cg_fmt_bytes(h, sizeof h, b), cg_fmt_count(e, sizeof e, b));
	return c;
}

static inline const char *when(const cg_timeline *tl, cell c, uint64_t ns)
{
	return cg_timeline_fmt_time(tl, c, sizeof(cell), ns);
}

static inline const char *count(cell c, uint64_t n)
{
	return cg_fmt_count(c, sizeof(cell), n);
}

static inline const char *percent(cell c, uint64_t part, uint64_t whole)
{
	return cg_fmt_percent(c, sizeof(cell), whole ? (double)part / (double)whole : 0.0);
}

#endif
