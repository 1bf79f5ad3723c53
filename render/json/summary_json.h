/* summary.json: the analysis as data ("schema": "cgmem/summary/1"),
 * documented field by field in docs/summary-format.md. */
#ifndef CG_SUMMARY_JSON_H
#define CG_SUMMARY_JSON_H

#include <stdbool.h>

#include "analysis.h"
#include "sink.h"

/* Writes the summary of a to out. */
void cg_summary_json_write(cg_sink *out, const cg_analysis *a, bool pretty);

/* Writes it to path; CG_EIO on a write error. */
int cg_summary_json_save(const char *path, const cg_analysis *a, cg_error *err);

#endif
