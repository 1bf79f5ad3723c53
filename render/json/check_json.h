/* The verdicts of `cgmem check --json`: the document of schema
 * cgmem/check/1 (docs/diff-format.md), pretty-printed. */
#ifndef CG_CHECK_JSON_H
#define CG_CHECK_JSON_H

#include "check.h"
#include "sink.h"

/* Writes the verdicts of r, judged against l on the run read from file
 * (and baseline, NULL when there is none). */
void cg_check_json_write(cg_sink *s, const cg_check_result *r, const cg_check_limits *l, const char *file,
			 const char *baseline);

#endif
