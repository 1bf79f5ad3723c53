/* diff.json: the comparison of two runs as data ("schema": "cgmem/diff/1"),
 * documented field by field in docs/diff-format.md. */
#ifndef CG_DIFF_JSON_H
#define CG_DIFF_JSON_H

#include <stdbool.h>

#include "compare.h"
#include "sink.h"

void cg_diff_json_write(cg_sink *out, const cg_diff_view *v, bool pretty);
/* Writes it to path; CG_EIO on a write error. */
int cg_diff_json_save(const char *path, const cg_diff_view *v, cg_error *err);

#endif
