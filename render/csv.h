/* Tables of the analysis as CSV (RFC 4180, CRLF line ends), for
 * spreadsheets and pandas: `cgmem summary --csv SECTION` and the report's
 * --formats csv. Columns are defined in docs/exports.md.
 *
 *     cg_csv_section s;
 *     if (cg_csv_section_parse("peak", &s)) cg_csv_write(sink, a, s, CG_NONE);
 *
 * Fields from the trace (names, ids, paths) that a spreadsheet would take
 * for a formula get a leading ' (cg_escape_csv); numbers are plain
 * integers (bytes, nanoseconds). */
#ifndef CG_CSV_H
#define CG_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "sink.h"

typedef enum cg_csv_section {
	CG_CSV_PEAK,  /* every allocation live at each device's peak */
	CG_CSV_STEPS, /* the steps table, per step and device */
	CG_CSV_SECTION_COUNT
} cg_csv_section;

/* "peak", "steps". */
const char *cg_csv_section_name(cg_csv_section s);
/* The section named name; false when there is none. */
bool cg_csv_section_parse(const char *name, cg_csv_section *out);

/* Writes section s, header row first: for CG_CSV_PEAK the rows of device
 * `device` only, or of every device (CG_NONE); CG_CSV_STEPS ignores it. */
void cg_csv_write(cg_sink *out, const cg_analysis *a, cg_csv_section s, uint32_t device);

#endif
